"""IAM policy documents as AWS accepts them: the grammar, then every action and condition key.

Pure Python. The grammar is IAM's (IAM user guide, "Grammar of the IAM JSON policy language" and "IAM JSON
policy elements reference"), as moto's emulator enforces it (moto/iam/policy_validation.py @ 5.2.5: the
top-level and statement elements, versions, effects and condition operators below are its lists; a test keeps
them equal): a document IAM would answer MalformedPolicyDocument for is refused here, and so is one whose
action or condition key does not exist (actions.py), which IAM would accept and never match.

Three kinds: an identity policy (a role's inline or a customer managed policy: Resource, no Principal), a
trust policy (a role's assumeRolePolicy: Principal, no Resource) and a resource policy (a KMS key's, a queue's:
Principal and Resource).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from .actions import action_problem, condition_key_problem

Kind = Literal["identity", "trust", "resource"]
TOP_ELEMENTS = ("Version", "Id", "Statement")
VERSIONS = ("2008-10-17", "2012-10-17")
STATEMENT_ELEMENTS = ("Sid", "Action", "NotAction", "Resource", "NotResource", "Effect", "Principal", "NotPrincipal",
                      "Condition")  # fmt: skip
EFFECTS = ("Allow", "Deny")
CONDITION_OPERATORS = (
    "StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "StringLike",
    "StringNotLike", "NumericEquals", "NumericNotEquals", "NumericLessThan", "NumericLessThanEquals",
    "NumericGreaterThan", "NumericGreaterThanEquals", "DateEquals", "DateNotEquals", "DateLessThan",
    "DateLessThanEquals", "DateGreaterThan", "DateGreaterThanEquals", "Bool", "BinaryEquals", "IpAddress",
    "NotIpAddress", "ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike", "Null",
)  # fmt: skip
OPERATOR_PREFIXES = ("ForAnyValue:", "ForAllValues:")
OPERATOR_SUFFIX = "IfExists"
PRINCIPAL_KINDS = ("AWS", "Service", "Federated", "CanonicalUser")
_SID = re.compile(r"^[A-Za-z0-9]*$")  # IAM's identity and trust policies: alphanumerics only
# "*" or arn:partition:service:region:account:resource (six parts at least; the resource may hold more colons)
_RESOURCE = re.compile(r"^(\*|arn:[^:]+:[^:]*:[^:]*:[^:]*:.+)$")
# per kind: (required one of, forbidden)
_RULES: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    "identity": ((("Action", "NotAction"), ("Resource", "NotResource")), ("Principal", "NotPrincipal")),
    "trust": ((("Action", "NotAction"), ("Principal", "NotPrincipal")), ("Resource", "NotResource")),
    "resource": ((("Action", "NotAction"), ("Principal", "NotPrincipal"), ("Resource", "NotResource")), ()),
}


def parsed(value: Any) -> tuple[dict | None, str | None]:
    """A document from a JSON string or a mapping, or why it is none."""
    if isinstance(value, Mapping):
        return dict(value), None
    if not isinstance(value, str):
        return None, f"a policy document is JSON text or a mapping, not {type(value).__name__}"
    try:
        doc = json.loads(value)
    except json.JSONDecodeError as err:
        return None, f"the policy document is not JSON ({err.msg} at character {err.pos})"
    if not isinstance(doc, dict):
        return None, "a policy document is a JSON object"
    return doc, None


def document_problems(value: Any, kind: Kind) -> list[str]:
    """Every reason AWS would refuse the document, or let it grant nothing it says (unknown action or key)."""
    doc, why = parsed(value)
    if doc is None:
        return [str(why)]
    problems = [f"unknown top-level element {k!r} (IAM allows {', '.join(TOP_ELEMENTS)})" for k in doc
                if k not in TOP_ELEMENTS]  # fmt: skip
    if "Version" in doc and doc["Version"] not in VERSIONS:
        problems.append(f"Version {doc['Version']!r} is not one of {', '.join(VERSIONS)}")
    raw = doc.get("Statement")
    statements = raw if isinstance(raw, list) else [raw]
    if raw is None or raw == [] or not all(isinstance(s, Mapping) for s in statements):
        return problems + ["Statement must be an object or a non-empty list of objects"]
    sids = [s["Sid"] for s in statements if "Sid" in s]
    problems += [f"Sid {sid!r} is used twice" for sid in dict.fromkeys(s for s in sids if sids.count(s) > 1)]
    for i, st in enumerate(statements):
        label = f"Statement[{i}]" + (f" ({st['Sid']})" if "Sid" in st else "")
        problems += [f"{label}: {p}" for p in _statement_problems(st, kind)]
    return problems


def _statement_problems(st: Mapping[str, Any], kind: Kind) -> Iterator[str]:
    yield from _element_problems(st, kind)
    for key in ("Action", "NotAction"):
        for action in _values(st.get(key)):
            if problem := action_problem(action):
                yield problem
    for key in ("Resource", "NotResource"):
        for resource in _values(st.get(key)):
            if not (isinstance(resource, str) and _RESOURCE.match(resource)):
                yield f"{key} {resource!r} is neither * nor an ARN (arn:partition:service:region:account:resource)"
    for key in ("Principal", "NotPrincipal"):
        if key in st:
            yield from _principal_problems(key, st[key])
    if "Condition" in st:
        yield from _condition_problems(st["Condition"])


def _element_problems(st: Mapping[str, Any], kind: Kind) -> Iterator[str]:
    """The statement's elements: known ones, an Effect, the pairs of which it needs exactly one, none that its
    kind of policy has not, and a Sid of letters and digits."""
    for key in st:
        if key not in STATEMENT_ELEMENTS:
            yield f"unknown element {key!r}"
    if st.get("Effect") not in EFFECTS:
        yield f"Effect must be Allow or Deny, not {st.get('Effect')!r}"
    required, forbidden = _RULES[kind]
    for one, other in required:
        if (one in st) == (other in st):
            yield f"needs exactly one of {one} and {other}"
    for key in forbidden:
        if key in st:
            yield f"{'an' if kind == 'identity' else 'a'} {kind} policy has no {key}"
    if kind != "resource" and "Sid" in st and not (isinstance(st["Sid"], str) and _SID.match(st["Sid"])):
        yield f"Sid {st['Sid']!r} may hold letters and digits only"


def _values(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _principal_problems(key: str, principal: Any) -> Iterator[str]:
    if principal == "*":
        return
    if not isinstance(principal, Mapping) or not principal:
        yield f"{key} must be * or an object of {', '.join(PRINCIPAL_KINDS)}"
        return
    for kind in principal:
        if kind not in PRINCIPAL_KINDS:
            yield f"{key} has the unknown kind {kind!r} (one of {', '.join(PRINCIPAL_KINDS)})"


def _condition_problems(condition: Any) -> Iterator[str]:
    if not isinstance(condition, Mapping):
        yield "Condition must be an object of operators"
        return
    for operator, block in condition.items():
        if not _operator_known(operator):
            yield f"unknown condition operator {operator!r}"
        if not isinstance(block, Mapping):
            yield f"Condition {operator}: must be an object of condition keys"
            continue
        for key in block:
            if problem := condition_key_problem(key):
                yield problem


def _operator_known(operator: Any) -> bool:
    if not isinstance(operator, str):
        return False
    for prefix in OPERATOR_PREFIXES:
        operator = operator.removeprefix(prefix)
    if operator.endswith(OPERATOR_SUFFIX) and operator != "Null":
        operator = operator[: -len(OPERATOR_SUFFIX)]
    return operator in CONDITION_OPERATORS
