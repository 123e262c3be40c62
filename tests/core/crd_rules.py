"""A CRD's schema as the API server applies it, for the tests of the custom resources the core writes (Karpenter
NodePools and EC2NodeClasses, Kueue's objects): its OpenAPI schema as JSON schema, and its CEL rules
(x-kubernetes-validations) evaluated with a real CEL library (cel-python).

The API server evaluates each rule with `self` bound to the value at the rule's place in the object (and, for a
transition rule, `oldSelf` to the stored value: such rules run on updates only, never on create). Kubernetes adds
CEL extension functions; the CRDs of the pinned Karpenter use two of the strings library, `find` (the first match
of a regular expression, "" when none) and `split` (k8s.io/apiserver pkg/cel/library, cel-go ext/strings.go),
which are given to the evaluator here. A rule that does not compile or evaluate is an error, never a pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import celpy
from celpy import celtypes

_ENV = celpy.Environment()


def _find(text: Any, pattern: Any) -> celtypes.StringType:
    m = re.search(str(pattern), str(text))
    return celtypes.StringType(m.group(0) if m else "")


def _split(text: Any, sep: Any) -> celtypes.ListType:
    return celtypes.ListType([celtypes.StringType(p) for p in str(text).split(str(sep))])


FUNCTIONS = {"find": _find, "split": _split}


@cache
def _program(rule: str) -> Any:
    return _ENV.program(_ENV.compile(rule), functions=FUNCTIONS)


def _places(schema: dict, value: Any, old: Any, path: str) -> Iterator[tuple[str, dict, Any, Any]]:
    """(path, schema, value, old value) for every place of `value` its schema describes."""
    yield path, schema, value, old
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                yield from _places(sub, value[key], old.get(key) if isinstance(old, dict) else None, f"{path}.{key}")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key, v in value.items():
                o = old.get(key) if isinstance(old, dict) else None
                yield from _places(extra, v, o, f"{path}[{key}]")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            # Transition rules on list items need a list-type key to match old items; the CRDs here have none.
            yield from _places(schema["items"], v, None, f"{path}[{i}]")


def violations(schema: dict, obj: dict, old: dict | None = None) -> list[str]:
    """The messages of every rule `obj` breaks (create; an update of `old` when given)."""
    return evaluate(schema, obj, old)[0]


def evaluate(schema: dict, obj: dict, old: dict | None = None) -> tuple[list[str], int]:
    """(the messages of every rule `obj` breaks, how many rules were evaluated): create, or an update of `old`."""
    out, evaluated = [], 0
    for path, node, value, old_value in _places(schema, obj, old, obj.get("kind", "")):
        for rule in node.get("x-kubernetes-validations", ()):
            text = rule["rule"]
            uses_old = "oldSelf" in text
            if uses_old and old_value is None:
                continue  # a transition rule: not evaluated on create (or when the old object lacks the place)
            activation = {"self": celpy.json_to_cel(value)}
            if uses_old:
                activation["oldSelf"] = celpy.json_to_cel(old_value)
            result = _program(text).evaluate(activation)
            evaluated += 1
            if isinstance(result, celpy.CELEvalError) or not isinstance(result, celtypes.BoolType):
                raise AssertionError(f"{path}: CEL rule {text!r} did not evaluate to a bool: {result!r}")
            if not result:
                out.append(f"{path}: {rule.get('message', text)}")
    return out, evaluated


def rule_count(schema: dict) -> int:
    """How many CEL rules the schema holds (the tests check they evaluate some)."""
    if isinstance(schema, dict):
        own = len(schema.get("x-kubernetes-validations", ()))
        return own + sum(rule_count(v) for v in schema.values() if isinstance(v, dict | list))
    if isinstance(schema, list):
        return sum(rule_count(v) for v in schema)
    return 0


def openapi_jsonschema(node: Any) -> Any:
    """An OpenAPI v3 schema as JSON schema: Kubernetes extensions dropped, int-or-string left untyped."""
    if isinstance(node, dict):
        out = {k: openapi_jsonschema(v) for k, v in node.items() if not k.startswith("x-kubernetes-")}
        if node.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
        return out
    if isinstance(node, list):
        return [openapi_jsonschema(v) for v in node]
    return node
