"""The CEL rules of a CRD's schema (x-kubernetes-validations), evaluated with a real CEL library (cel-python).

The API server evaluates each rule with `self` bound to the value at the rule's place in the object (and, for a
transition rule, `oldSelf` to the stored value: such rules run on updates only, never on create). The Kueue CRDs
at the pinned tag use standard CEL only (has, all, size, in). A rule that does not compile or evaluate is an
error, never a pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import celpy
from celpy import celtypes

_ENV = celpy.Environment()


@cache
def _program(rule: str) -> Any:
    return _ENV.program(_ENV.compile(rule))


def _places(schema: dict, value: Any, path: str) -> Iterator[tuple[str, dict, Any]]:
    yield path, schema, value
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                yield from _places(sub, value[key], f"{path}.{key}")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key, v in value.items():
                yield from _places(extra, v, f"{path}[{key}]")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            yield from _places(schema["items"], v, f"{path}[{i}]")


def violations(schema: dict, obj: dict) -> tuple[list[str], int]:
    """(the messages of every rule `obj` breaks on create, how many rules were evaluated)."""
    out, evaluated = [], 0
    for path, node, value in _places(schema, obj, obj.get("kind", "")):
        for rule in node.get("x-kubernetes-validations", ()):
            text = rule["rule"]
            if "oldSelf" in text:
                continue  # a transition rule: updates only
            result = _program(text).evaluate({"self": celpy.json_to_cel(value)})
            evaluated += 1
            if isinstance(result, celpy.CELEvalError) or not isinstance(result, celtypes.BoolType):
                raise AssertionError(f"{path}: CEL rule {text!r} did not evaluate to a bool: {result!r}")
            if not result:
                out.append(f"{path}: {rule.get('message', text)}")
    return out, evaluated
