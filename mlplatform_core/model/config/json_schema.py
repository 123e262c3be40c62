"""The JSON Schema of a whole stack file (stacks/Pulumi.<stack>.yaml), generated from the settings model.

Editors complete and check a stack file with it (yaml-language-server's `# yaml-language-server: $schema=`
hint, which `mlplatform init` writes). It says what `parse` says about the shape: `config:` holds aws:region and
the ml-platform-eks:<key> settings, strict (an unknown ml-platform-eks key is refused, as `split_keys` and the
model refuse it); other namespaces (aws:profile, kubernetes:..., pulumi:tags) belong to their providers and
pass. Checks the schema cannot say (cross-setting checks, the EKS calendar, regions) stay with `mlplatform plan`.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import PROJECT, REGION_KEY
from .pulumi_format import _PULUMI_BOOLS, _PULUMI_INT
from .stack import _TOP_LEVEL_KINDS, StackConfig

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# The top-level keys of a Pulumi stack file besides `config:` (stack_file.read_stack_document allows the same).
_PULUMI_KEYS: dict[str, Any] = {
    "encryptionsalt": {"type": "string"},
    "secretsprovider": {"type": "string"},
    "encryptedkey": {"type": "string"},
    # Pulumi ESC environments the stack imports: a list of names.
    "environment": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
}


def _without_titles(node: Any) -> Any:
    """pydantic titles every field from its Python name ("Clustername"); editors show the key itself better."""
    if isinstance(node, dict):
        return {k: _without_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_without_titles(v) for v in node]
    return node


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A top-level setting may not be YAML null (split_keys refuses it: the engine would hand over "None")."""
    options = schema.get("anyOf")
    if options is None:
        return schema
    rest = [o for o in options if o != {"type": "null"}]
    out = {k: v for k, v in schema.items() if k not in ("anyOf", "default") or (k == "default" and v is not None)}
    return {**out, **rest[0]} if len(rest) == 1 else {**out, "anyOf": rest}


def _as_pulumi_writes(schema: dict[str, Any], kind: type | None) -> dict[str, Any]:
    """A top-level bool or int may also be the text `pulumi config set` writes for it (pulumi_format.py)."""
    if kind is bool:
        return {"anyOf": [schema, {"enum": sorted(_PULUMI_BOOLS)}]}
    if kind is int:
        return {"anyOf": [schema, {"type": "string", "pattern": _PULUMI_INT.pattern}]}
    return schema


def stack_file_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a stack file, from StackConfig and its settings models."""
    model = _without_titles(StackConfig.model_json_schema(by_alias=True))
    defs = model.pop("$defs", {})
    settings: dict[str, Any] = {}
    region: dict[str, Any] = {"type": "string"}
    for name, schema in model["properties"].items():
        if name == "region":
            region = {**schema, "description": "The AWS region of the cluster, e.g. us-west-2"}
            continue
        settings[f"{PROJECT}:{name}"] = _as_pulumi_writes(_not_null(schema), _TOP_LEVEL_KINDS.get(name))
    required = [REGION_KEY] + [f"{PROJECT}:{name}" for name in model.get("required", []) if name != "region"]
    config = {
        "type": "object",
        "description": f"aws:region and the {PROJECT}:<key> settings; keys of other namespaces go to their providers",
        "properties": {REGION_KEY: region, **settings},
        "required": required,
        # Every key has a namespace; in this project's namespace only the settings above.
        "propertyNames": {
            "anyOf": [
                {"enum": [REGION_KEY, *settings]},
                {"pattern": f"^(?!{re.escape(PROJECT)}:)[^:]+:.+$"},
            ]
        },
    }
    return {
        "$schema": DIALECT,
        "title": f"{PROJECT} stack file (stacks/Pulumi.<stack>.yaml)",
        "type": "object",
        "properties": {"config": config, **_PULUMI_KEYS},
        "required": ["config"],
        "additionalProperties": False,
        "$defs": defs,
    }
