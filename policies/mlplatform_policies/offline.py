"""Run the pack's policies on recorded resources, the way the Pulumi CLI's analyzer would.

Same policy objects, same argument types (ResourceValidationArgs,
StackValidationArgs, PolicyResource), props wrapped in pulumi-policy's
unknown-checking proxies, and the CLI's enforcement-level rules: a level from
the policy config (per policy, else "all") wins over the policy's own, disabled
policies do not run, remediate counts as mandatory, and a value unknown during
a preview yields an advisory "can't run" diagnostic.
"""

from __future__ import annotations

import asyncio
import copy
import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from inspect import isawaitable
from pathlib import Path
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from . import POLICIES

LEVELS = {lvl.value: lvl for lvl in EnforcementLevel}
MAX_CONFIG_BYTES = 1_000_000


class PolicyConfigError(ValueError):
    """A policy config (the --policy-pack-config JSON) that the Pulumi CLI would refuse."""


@dataclass(frozen=True)
class Resource:
    """One registered resource: inputs for resource policies, state (inputs + outputs) for stack policies."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    parent: str | None = None
    protect: bool = False
    ignore_changes: tuple[str, ...] = ()
    state: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str  # mandatory or advisory
    severity: str | None
    message: str
    urn: str | None
    resource_type: str | None
    resource_name: str | None
    description: str
    remediation: str | None

    @property
    def mandatory(self) -> bool:
        return self.level == EnforcementLevel.MANDATORY.value

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Setting:
    level: EnforcementLevel
    properties: dict[str, Any] = field(default_factory=dict)


# --- policy config ------------------------------------------------------------------------------


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
                    errs.append(f"{where}: unknown key {k!r}; valid keys: {', '.join(schema['properties'])}")
            else:
                errs += _schema_errors(v, schema["properties"][k], f"{where}.{k}")
    return errs


def resolve_config(config: Mapping[str, Any] | None, policies: Sequence[Policy] = POLICIES) -> dict[str, Setting]:
    """Each policy's enforcement level and properties under `config`. Raises PolicyConfigError."""
    config = dict(config or {})
    by_name = {p.name: p for p in policies}
    errors: list[str] = []
    for name in sorted(set(config) - set(by_name) - {"all"}, key=str):
        near = difflib.get_close_matches(str(name), list(by_name), n=1, cutoff=0.6)
        hint = f"did you mean {near[0]}? " if near else ""
        errors.append(f"unknown policy name {name!r}; {hint}the pack has: {', '.join(by_name)}")
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
                        errors.append(f"{name}.{key}: not a setting of this policy; {hint}valid settings: {valid}")
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


# --- evaluation ---------------------------------------------------------------------------------


def _options(r: Resource) -> PolicyResourceOptions:
    return PolicyResourceOptions(
        protect=r.protect,
        ignore_changes=list(r.ignore_changes),
        delete_before_replace=None,
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(0, 0, 0),
        additional_secret_outputs=[],
        parent=r.parent,
    )


def _run(result: Any) -> None:
    if isawaitable(result):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(result)
        finally:
            loop.close()


def evaluate(
    resources: Iterable[Resource], config: Mapping[str, Any] | None = None, policies: Sequence[Policy] = POLICIES
) -> list[Violation]:
    """Every violation the policies report on `resources` under the policy `config`, mandatory first."""
    settings = resolve_config(config, policies)
    resources = list(resources)
    by_urn = {r.urn: r for r in resources}
    out: list[Violation] = []

    def reporter(policy: Policy, level: EnforcementLevel, default_urn: str | None):
        def report(message: str, urn: str | None = None) -> None:
            target = by_urn.get(urn or default_urn or "")
            out.append(
                Violation(
                    policy=policy.name,
                    level=level.value,
                    severity=policy.severity.value if policy.severity else None,
                    message=message or policy.description,
                    urn=urn or default_urn,
                    resource_type=target.type if target else None,
                    resource_name=target.name if target else None,
                    description=policy.description,
                    remediation=policy.remediation_steps,
                )
            )

        return report

    def attempt(policy: Policy, level: EnforcementLevel, urn: str | None, call) -> None:
        try:
            _run(call())
        except UnknownValueError as exc:  # what the CLI shows when a value is unknown during a preview
            reporter(policy, EnforcementLevel.ADVISORY, urn)(f"can't run policy during preview: {exc.message}")
        except _NotApplicableError:
            pass
        except Exception as exc:
            reporter(policy, EnforcementLevel.MANDATORY, urn)(f"policy raised {type(exc).__name__}: {exc}")

    active = []
    for policy in policies:
        level = settings[policy.name].level
        if level == EnforcementLevel.DISABLED:
            continue
        active.append((policy, EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level))

    for r in resources:
        props = unknown_checking_proxy(copy.deepcopy(dict(r.props)))
        opts = _options(r)
        for policy, level in active:
            if isinstance(policy, ResourceValidationPolicy):
                args = ResourceValidationArgs(
                    r.type, props, r.urn, r.name, opts, None, settings[policy.name].properties
                )
                attempt(
                    policy, level, r.urn, lambda p=policy, a=args, lv=level, u=r.urn: p.validate(a, reporter(p, lv, u))
                )

    stack = [
        PolicyResource(
            r.type,
            unknown_checking_proxy(copy.deepcopy(dict(r.state if r.state is not None else r.props))),
            r.urn,
            r.name,
            _options(r),
            None,
            None,
            [],
            {},
        )
        for r in resources
    ]
    by_policy_urn = {pr.urn: pr for pr in stack}
    for pr, r in zip(stack, resources, strict=True):
        pr.parent = by_policy_urn.get(r.parent or "")
    for policy, level in active:
        if isinstance(policy, StackValidationPolicy):
            args = StackValidationArgs(stack, settings[policy.name].properties)
            attempt(policy, level, None, lambda p=policy, a=args, lv=level: p.validate(a, reporter(p, lv, None)))

    rank = {EnforcementLevel.MANDATORY.value: 0, EnforcementLevel.ADVISORY.value: 1}
    out.sort(key=lambda v: (rank.get(v.level, 2), v.policy, v.resource_name or "", v.message))
    return out
