"""A stack's settings as the Pulumi engine hands them to a program: strings, JSON text for objects."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

# How Pulumi writes a top-level bool or int: `pulumi config set` stores every top-level value as text ("Top
# level entries are always treated as strings", pulumi_config_set docs) and the SDK reads it back with
# Config.get_bool ("true"/"True"/"false"/"False") and get_int (decimal digits).
_PULUMI_BOOLS = {"true": True, "True": True, "false": False, "False": False}
_PULUMI_INT = re.compile(r"^-?(?:0|[1-9][0-9]*)$")


def from_pulumi_text(value: Any, kind: type | None) -> Any:
    """A top-level setting of type `kind` (bool or int) read as the Pulumi SDK reads it from its text form;
    any other value, or text Pulumi would not write for that type, is left for the model to judge."""
    if not isinstance(value, str):
        return value
    if kind is bool and value in _PULUMI_BOOLS:
        return _PULUMI_BOOLS[value]
    if kind is int and _PULUMI_INT.match(value):
        return int(value)
    return value


def _json_plain(value: Any) -> Any:
    """YAML's extra types (dates, sets, binary, non-string keys) as JSON has them: strings and lists."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(k, default=str): _json_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def to_pulumi_config(raw: Mapping[str, Any]) -> dict[str, str]:
    """Render a stack's config mapping the way the Pulumi engine hands it to a program: strings, JSON for objects."""
    out = {}
    for key, value in raw.items():
        if isinstance(value, (dict, list, set)):
            out[key] = json.dumps(_json_plain(value))
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        else:
            out[key] = str(value)
    return out
