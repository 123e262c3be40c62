"""IAM policy documents in resource properties: parsed, their statements, and IAM's action matching."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from typing import Any

from .props import plain


def policy_document(value: Any) -> dict | None:
    """An IAM policy document from a JSON string or a mapping; None when unknown or unparsable."""
    if isinstance(value, str):
        try:
            doc = json.loads(value)
        except json.JSONDecodeError:
            return None
        return doc if isinstance(doc, dict) else None
    if isinstance(value, Mapping):
        return plain(value)
    return None


def statements(doc: Mapping[str, Any]) -> list[dict]:
    st = doc.get("Statement", [])
    return [s for s in (st if isinstance(st, list) else [st]) if isinstance(s, dict)]


def as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def action_matches(pattern: str, action: str) -> bool:
    """IAM action matching: case-insensitive, '*' and '?' wildcards."""
    return fnmatch.fnmatchcase(action.lower(), pattern.lower())
