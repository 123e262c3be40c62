"""A stack's settings as the Pulumi engine hands them to a program: strings, JSON text for objects."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


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
