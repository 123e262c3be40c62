"""The configuration reference (docs/configuration.md), generated from the settings model.

Every key of StackConfig and the models under it: its type, allowed values (Literal choices, ranges,
patterns, lengths) and default come from the pydantic fields; defaults that depend on the environment are
computed from the core (a minimal dev and prod stack parsed, the layout defaults, the namespace defaults).
What a key means and an example are written in scripts/docs/config_meanings.yaml (MEANINGS); a field's own
`description` wins. A key without either fails the docs test, so a new setting cannot go undocumented.
"""

from __future__ import annotations

import datetime
import json
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from mlplatform_core.model.config import PROJECT, REGION_KEY, kubernetes_layer_of, parse
from mlplatform_core.model.config.node_groups import NodeGroupSettings
from mlplatform_core.model.config.stack import StackConfig
from mlplatform_core.model.layout.defaults import DEFAULTS
from mlplatform_core.model.network import DEFAULT_VPC_CIDR, DEFAULT_ZONES, nat_per_az
from mlplatform_core.model.workloads.spec import DEFAULT_NAMESPACES, SYSTEM_CLASS_DEFAULTS, WORKLOAD_CLASS_DEFAULTS

ENVIRONMENTS = ("dev", "prod")
MEANINGS_FILE = Path(__file__).parent / "config_meanings.yaml"


class Doc(typing.NamedTuple):
    meaning: str
    example: str
    default: str | None = None


# key -> Doc(meaning, example as it sits under `config:`, default text when not the model's own)
MEANINGS: dict[str, Doc] = {key: Doc(**entry) for key, entry in yaml.safe_load(MEANINGS_FILE.read_text()).items()}
# Defaults the core computes: taken from it, so the page follows a change there.
MEANINGS["network.vpcCidr"] = MEANINGS["network.vpcCidr"]._replace(default=f"`{DEFAULT_VPC_CIDR}`")
MEANINGS["network.availabilityZoneCount"] = MEANINGS["network.availabilityZoneCount"]._replace(
    default=str(DEFAULT_ZONES)
)

# Where a dict of models or a list of models sits, the reference names its key like this.
DICT_KEYS = {
    "nodeGroups": "<group>",
    "namespaces": "<name>",
    "nodePools": "<pool>",
    "teams": "<team>",
    "quotas": "<group>",
}
FIELD_KEYS = {
    "low": "<tier>",
    "medium": "<tier>",
    "high": "<tier>",
    "critical": "<tier>",
    "min": "<bound>",
    "defaultRequest": "<bound>",
    "default": "<bound>",
    "max": "<bound>",
    "admin": "<level>",
    "edit": "<level>",
    "view": "<level>",
}  # access levels: only in the paths of their entries


@dataclass(frozen=True)
class Key:
    path: str  # e.g. nodeGroups.<group>.minSize
    field: FieldInfo
    annotation: Any
    section: bool  # holds settings of its own


def _models(annotation: Any) -> list[type[BaseModel]]:
    out = []
    for a in typing.get_args(annotation) or (annotation,):
        for b in typing.get_args(a) or (a,):
            if isinstance(b, type) and issubclass(b, BaseModel):
                out.append(b)
    return out


def _container(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _container(inner[0]) if len(inner) == 1 else None
    return origin


def _shown(prefix: str, key: str) -> str:
    """A field's name in a path: tiers and bounds that share one shape are named once (<tier>, <bound>)."""
    if prefix.lower().endswith(("priorityclasses.", "limits.")) and key in FIELD_KEYS:
        return FIELD_KEYS[key]
    if prefix.endswith(".quotas.<group>.") and key in ("gpu", "cpu", "memory"):
        return "<resource>"  # a team's gpu, cpu and memory quotas share one shape
    return key


def settings(model: type[BaseModel] = StackConfig, prefix: str = "", seen: set[str] | None = None) -> Iterator[Key]:
    """Every key, depth first, in the model's order; repeated shapes (three priority tiers, the access
    levels, an additional group's settings it shares with nodeGroups.<group>) once."""
    seen = set() if seen is None else seen
    inherited = set(NodeGroupSettings.model_fields) if prefix == "additionalNodeGroups[]." else set()
    for name, field in model.model_fields.items():
        if name in inherited:
            continue  # documented under nodeGroups.<group>
        key = field.alias or name
        path = f"{prefix}{_shown(prefix, key)}"
        nested = _models(field.annotation)
        if path not in seen:
            seen.add(path)
            yield Key(path, field, field.annotation, bool(nested))
        for sub in nested:
            container = _container(field.annotation)
            if container is dict:
                inner = f"{path}.{DICT_KEYS.get(key, '<key>')}."
            elif container is list:
                inner = f"{prefix}{FIELD_KEYS.get(key, key)}[]." if prefix == "access." else f"{path}[]."
            else:
                inner = f"{path}."
            if prefix.startswith("workloads.systemPriorityClasses.") or inner in seen:
                continue  # the same fields as a user class, or a shape already listed
            seen.add(inner)
            yield from settings(sub, inner, seen)


def _type(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type(args[0])
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if all(_type(a) in ("string", "integer", "number") for a in inner) and len(inner) > 1:
            return "quantity (string or number)"
        return " or ".join(_type(a) for a in inner)
    if origin is typing.Literal:
        return "string" if all(isinstance(a, str) for a in args) else "literal"
    if origin is list:
        return f"list of {_type(args[0])}s".replace("ys", "ies") if args else "list"
    if origin is dict:
        return f"mapping of {_type(args[1])}s" if args else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    names |= {datetime.datetime: "date-time", datetime.date: "date (ISO 8601)"}
    return names.get(annotation, str(annotation))


def _literals(annotation: Any) -> list[str]:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        return [v for a in typing.get_args(annotation) for v in _literals(a)]
    return []


def allowed(key: Key) -> str:
    parts = []
    choices = _literals(key.annotation)
    if choices:
        parts.append(", ".join(f"`{c}`" for c in choices))
    for m in key.field.metadata:
        for attr, text in (
            ("ge", ">= {}"),
            ("le", "<= {}"),
            ("min_length", "at least {} item"),
            ("max_length", "at most {} item"),
            ("pattern", "matches `{}`"),
        ):
            value = getattr(m, attr, None)
            if value is not None:
                parts.append(text.format(value) + ("s" if attr.endswith("length") and value != 1 else ""))
    return "; ".join(parts) or "-"


def minimal_stack(environment: str) -> dict[str, Any]:
    """The fewest settings a stack of the environment needs (prod must choose its upgrade policy)."""
    config: dict[str, Any] = {REGION_KEY: "us-east-1", f"{PROJECT}:environment": environment}
    if environment == "prod":
        config[f"{PROJECT}:upgradePolicy"] = {"supportType": "EXTENDED"}
    return config


def _minimal(environment: str) -> StackConfig:
    return parse(minimal_stack(environment))


def environment_defaults(path: str) -> dict[str, str] | None:
    """Defaults computed per environment from the core, where they differ by environment."""
    configs = {env: _minimal(env) for env in ENVIRONMENTS}
    if path == "protectResources":
        return {env: f"`{str(cfg.protected).lower()}`" for env, cfg in configs.items()}
    if path == "upgradePolicy.supportType":
        return {"dev": "`STANDARD`", "prod": "required (no default: choose)"}
    if path == "network.natGateways":
        return {env: "`perAz`" if nat_per_az(cfg.network, env) else "`single`" for env, cfg in configs.items()}
    if path == "kubernetesLayer":
        return {
            env: f"`{kubernetes_layer_of(cfg)}` (the endpoint is private; `inline` with a public one)"
            for env, cfg in configs.items()
        }
    return None


def default(key: Key) -> str:
    per_env = environment_defaults(key.path)
    if per_env:
        if len(set(per_env.values())) == 1:
            return next(iter(per_env.values()))
        return "; ".join(f"{env}: {text}" for env, text in per_env.items())
    doc = MEANINGS.get(key.path)
    if doc is not None and doc.default is not None:
        return doc.default
    value = key.field.default
    if value is PydanticUndefined:
        if key.field.is_required():
            return "required"
        factory = key.field.default_factory
        value = None if key.section or factory is None else factory()
        if value in (None, [], {}):
            return "-" if key.section else ("`[]`" if value == [] else "none")
    if value is None:
        return "none"
    return f"`{json.dumps(value) if not isinstance(value, str) else value}`"


def undocumented() -> list[str]:
    """Keys with neither a MEANINGS entry nor a field description (the docs test fails on any)."""
    return [k.path for k in settings() if k.path not in MEANINGS and not k.field.description]


def _groups_table() -> list[str]:
    out = [
        "| environment | group | enabled | capacity | instance types | min / desired / max | disk GiB | dedicated |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for env, groups in DEFAULTS.items():
        for name, d in groups.items():
            out.append(
                f"| {env} | `{name}` | {'yes' if d.enabled else 'no'} | {d.capacity_type} | "
                f"{', '.join(d.instance_types)} | {d.min_size} / {d.desired_size} / {d.max_size} | {d.disk_size_gib} | "
                f"{'yes' if d.dedicated else 'no'} |"
            )
    return out


def _namespaces_table() -> list[str]:
    out = ["| environment | namespace | for | defaultRequest | default (limit) | max |", "|---|---|---|---|---|---|"]
    for env, namespaces in DEFAULT_NAMESPACES.items():
        for name, (purpose, limits) in namespaces.items():
            cells = [
                " / ".join(v for v in limits[b].to_dict().values()) if b in limits else "-"
                for b in ("defaultRequest", "default", "max")
            ]
            out.append(f"| {env} | `{name}` | {purpose} | {' | '.join(cells)} |")
    return out


def _classes_table() -> list[str]:
    out = ["| setting | name | value | description |", "|---|---|---|---|"]
    for prefix, classes in (
        ("priorityClasses", WORKLOAD_CLASS_DEFAULTS),
        ("systemPriorityClasses", SYSTEM_CLASS_DEFAULTS),
    ):
        for tier, (name, value, text) in classes.items():
            out.append(f"| `workloads.{prefix}.{tier}` | `{name}` | {value:,} | {text} |")
    return out


def _anchor(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def reference() -> str:
    """The Markdown of the reference: every key, then the per-environment tables."""
    missing = undocumented()
    if missing:
        raise SystemExit(
            f"config_reference: describe these keys in scripts/docs/config_meanings.yaml: {', '.join(missing)}"
        )
    out = []
    for key in settings():
        meaning = key.field.description or MEANINGS[key.path].meaning
        example = MEANINGS[key.path].example
        shown = key.path if key.path == "region" else f"{PROJECT}:{key.path}"
        if key.path == "region":
            shown = REGION_KEY
        out += [
            f"### `{shown}` {{#{_anchor(key.path)}}}",
            "",
            meaning,
            "",
            f"- type: {_type(key.annotation)}",
            f"- allowed: {allowed(key)}",
            f"- default: {default(key)}",
            f"- example: `{example if key.path == 'region' else f'{PROJECT}:{example}'}`",
            "",
        ]
    out += [
        "### Built-in node groups",
        "",
        *_groups_table(),
        "",
        "### Namespace defaults",
        "",
        *_namespaces_table(),
        "",
        "A `max` the stack does not set is raised to the vCPUs and memory of the stack's largest GPU or EFA "
        "node when that is larger (e.g. 192 / 2048Gi with a p5.48xlarge group): one training pod takes such a "
        "node whole, and a lower maximum would refuse it. The plan says so in its placement notes; a `max` the "
        "stack sets is kept, and `check` fails (placement-invariants) when it refuses a pod that takes a GPU or "
        "EFA node whole in MLRun's namespace.",
        "",
        "### Priority classes",
        "",
        *_classes_table(),
    ]
    return "\n".join(out) + "\n"
