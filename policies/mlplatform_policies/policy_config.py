"""Policy configs (the `--policy-pack-config` JSON): read, checked against each policy's schema, resolved.

The Pulumi CLI's rules: a level from the config (per policy, else "all") wins over the policy's own;
settings must be the policy's and match its JSON schema (the small subset the pack's schemas use, as the
CLI's validator reads it). Anything the CLI would refuse raises PolicyConfigError naming the key.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel, Policy

from mlplatform_core.model.config.errors import escaped

from . import POLICIES

LEVELS = {lvl.value: lvl for lvl in EnforcementLevel}
MAX_CONFIG_BYTES = 1_000_000


class PolicyConfigError(ValueError):
    """A policy config (the --policy-pack-config JSON) that the Pulumi CLI would refuse."""


@dataclass(frozen=True)
class Setting:
    level: EnforcementLevel
    properties: dict[str, Any] = field(default_factory=dict)


def load_policy_config(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_CONFIG_BYTES:
            raise PolicyConfigError(f"{p}: larger than {MAX_CONFIG_BYTES:,} bytes; not a policy config")
        with p.open("rb") as f:  # at most the limit: devices and pipes report size 0
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise PolicyConfigError(f"{p}: larger than {MAX_CONFIG_BYTES:,} bytes; not a policy config")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyConfigError(f"{p}: cannot read the policy config ({exc})") from None
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyConfigError(f"{p}: not valid JSON ({exc})") from None
    except RecursionError:
        raise PolicyConfigError(f"{p}: nested too deeply to be a policy config") from None
    if not isinstance(doc, dict):
        raise PolicyConfigError(f"{p}: must be a JSON object of policy name -> level or settings")
    return doc


def _level(value: Any, where: str) -> EnforcementLevel:
    if not isinstance(value, str) or value not in LEVELS:
        raise PolicyConfigError(f"{where}: {json.dumps(value)} is not an enforcement level ({', '.join(LEVELS)})")
    return LEVELS[value]


_JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def _schema_errors(value: Any, schema: Mapping[str, Any], where: str) -> list[str]:
    """The small JSON-schema subset the pack's config schemas use (type, enum, minimum, items, uniqueItems,
    properties, additionalProperties), as the CLI's JSON-schema validator reads them."""
    types = schema.get("type")
    names = types if isinstance(types, list) else [types] if types else []
    ok = not names or any(
        (isinstance(value, _JSON_TYPES[n]) and not (n in ("integer", "number") and isinstance(value, bool)))
        # JSON Schema (and the CLI's validator) counts 3.0 as an integer.
        or (n == "integer" and isinstance(value, float) and value.is_integer())
        for n in names
    )
    if not ok:
        return [f"{where}: {json.dumps(value)} is not of type {' or '.join(names)}"]
    errs = []
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{where}: {json.dumps(value)} is not one of {', '.join(json.dumps(e) for e in schema['enum'])}")
    if isinstance(value, (int, float)) and "minimum" in schema and value < schema["minimum"]:
        errs.append(f"{where}: {value} is below the minimum {schema['minimum']}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errs += _schema_errors(v, schema["items"], f"{where}[{i}]")
    if isinstance(value, list) and schema.get("uniqueItems"):
        repeated = sorted({json.dumps(v) for i, v in enumerate(value) if v in value[:i]})
        if repeated:
            errs.append(f"{where}: {', '.join(repeated)} given more than once")
    if isinstance(value, dict) and "properties" in schema:
        for k, v in value.items():
            if k not in schema["properties"]:
                if schema.get("additionalProperties") is False:
                    errs.append(f"{where}: unknown key {named(k)}; valid keys: {', '.join(schema['properties'])}")
            else:
                errs += _schema_errors(v, schema["properties"][k], f"{where}.{k}")
    return errs


def lookalikes(key: Any) -> str:
    """` (it contains the non-ASCII character(s) \\u0430)` for a key with a look-alike character, else ""."""
    text = str(key)
    odd = ", ".join(dict.fromkeys(escaped(c) for c in text if not c.isascii()))
    return f" (it contains the non-ASCII character(s) {odd})" if odd else ""


def named(key: Any) -> str:
    """A key of the user's as an error shows it: quoted, a look-alike character escaped and pointed out
    (`'eks-endpoint-priv\\u0430te'`, a Cyrillic a), so the user sees why it is not the name it resembles."""
    return f"'{escaped(str(key))}'{lookalikes(key)}"


def resolve_config(config: Mapping[str, Any] | None, policies: Sequence[Policy] = POLICIES) -> dict[str, Setting]:
    """Each policy's enforcement level and properties under `config`. Raises PolicyConfigError."""
    config = dict(config or {})
    by_name = {p.name: p for p in policies}
    errors: list[str] = []
    for name in sorted(set(config) - set(by_name) - {"all"}, key=str):
        near = difflib.get_close_matches(str(name), list(by_name), n=1, cutoff=0.6)
        hint = f"did you mean {near[0]}? " if near else ""
        errors.append(f"unknown policy name {named(name)}; {hint}the pack has: {', '.join(by_name)}")
    base: EnforcementLevel | None = None
    if "all" in config:
        try:
            base = _level(config["all"], "all")
        except PolicyConfigError as exc:
            errors.append(str(exc))
    out: dict[str, Setting] = {}
    for name, policy in by_name.items():
        level = base or policy.enforcement_level or EnforcementLevel.ADVISORY
        props: dict[str, Any] = {}
        entry = config.get(name)
        try:
            if isinstance(entry, str):
                level = _level(entry, name)
            elif isinstance(entry, dict):
                if "enforcementLevel" in entry:
                    level = _level(entry["enforcementLevel"], f"{name}.enforcementLevel")
                props = {k: v for k, v in entry.items() if k != "enforcementLevel"}
                schema = policy.config_schema.properties if policy.config_schema else {}
                for key, value in props.items():
                    if key not in schema:
                        valid = ", ".join(schema) or "none (only enforcementLevel)"
                        near = difflib.get_close_matches(str(key), list(schema), n=1, cutoff=0.6)
                        hint = f"did you mean {near[0]}? " if near else ""
                        errors.append(
                            f"{name}.{escaped(str(key))}: not a setting of this policy{lookalikes(key)}; {hint}valid "
                            f"settings: {valid}"
                        )
                    else:
                        errors += _schema_errors(value, schema[key], f"{name}.{key}")
            elif entry is not None:
                errors.append(f"{name}: must be an enforcement level or an object, not {json.dumps(entry)}")
        except PolicyConfigError as exc:
            errors.append(str(exc))
        out[name] = Setting(level, props)
    if errors:
        raise PolicyConfigError("invalid policy config:\n" + "\n".join(f"  - {e}" for e in errors))
    return out
