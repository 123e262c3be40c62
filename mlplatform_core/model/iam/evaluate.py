"""A small IAM evaluator for identity policies: does this set of policy documents allow this one request?

Follows the IAM user guide's policy evaluation logic for identity-based policies in one account
(reference_policies_evaluation-logic.html; the condition operators of reference_policies_elements_condition_operators
.html; multivalued keys, reference_policies_condition-single-vs-multi-valued-context-keys.html):

- an explicit Deny in any statement wins, then an Allow, else the request is implicitly denied;
- Action / NotAction: case-insensitive, `*` and `?` wildcards; Resource / NotResource: case-sensitive, the same
  wildcards, policy variables (`${aws:PrincipalTag/...}`, `${*}`, `${?}`, `${$}`) filled in from the request;
- Condition: every operator block and every key in it must hold (AND); a key's values are alternatives (OR).
  Operators: String(Not)Equals(IgnoreCase), String(Not)Like, Arn(Not)Equals, Arn(Not)Like, Bool and Null, each
  with `IfExists` and the set prefixes `ForAnyValue:` / `ForAllValues:`; condition key names are
  case-insensitive, their values case-sensitive (except the IgnoreCase operators and Bool).

Not modelled (say so rather than guess): service control and resource control policies, permissions boundaries,
session policies, resource-based policies (a KMS key policy, an SQS queue policy), Principal / NotPrincipal, the
Numeric, Date, IpAddress and Binary operators (a statement using one is treated as not applying to an Allow and as
applying to a Deny: never more permissive than IAM), and an API call authorised against several resources at once
(a request here names one resource: a requirement lists each resource it needs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

ALLOW, EXPLICIT_DENY, IMPLICIT_DENY = "allow", "explicit deny", "implicit deny"


@dataclass(frozen=True)
class Request:
    """One call: its action, the resource it is authorised on, and its context keys (name -> values; a single
    valued key has one value, aws:TagKeys many)."""

    action: str
    resource: str
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:  # condition key names are case-insensitive
        object.__setattr__(self, "context", {k.lower(): tuple(v) for k, v in self.context.items()})

    def value(self, key: str) -> tuple[str, ...] | None:
        return self.context.get(key.lower())


@dataclass(frozen=True)
class Decision:
    outcome: str  # ALLOW, EXPLICIT_DENY or IMPLICIT_DENY
    statement: Mapping[str, Any] | None = None  # the deciding statement (none for an implicit deny)

    @property
    def allowed(self) -> bool:
        return self.outcome == ALLOW


def request(action: str, resource: str, context: Mapping[str, Any] | None = None) -> Request:
    """A Request with every context value as a tuple of strings."""
    ctx = {}
    for key, value in (context or {}).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        ctx[key] = tuple(str(v) for v in values)
    return Request(action, resource, ctx)


def evaluate(documents: Iterable[Mapping[str, Any]], req: Request) -> Decision:
    """The decision of IAM on `req` given the identity policies `documents` (inline and attached)."""
    allowed = None
    for doc in documents:
        for st in statements(doc):
            effect = st.get("Effect")
            if effect not in ("Allow", "Deny") or not _applies(st, req, deny=effect == "Deny"):
                continue
            if effect == "Deny":
                return Decision(EXPLICIT_DENY, st)
            allowed = allowed or st
    return Decision(ALLOW, allowed) if allowed else Decision(IMPLICIT_DENY)


def statements(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    st = doc.get("Statement", [])
    return [s for s in (st if isinstance(st, list) else [st]) if isinstance(s, Mapping)]


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _applies(st: Mapping[str, Any], req: Request, deny: bool) -> bool:
    if "Action" in st:
        if not any(wildcard_match(a, req.action, ignore_case=True) for a in _as_list(st["Action"])):
            return False
    elif "NotAction" in st:
        if any(wildcard_match(a, req.action, ignore_case=True) for a in _as_list(st["NotAction"])):
            return False
    else:
        return False
    if "Resource" in st:
        if not any(_resource_match(r, req) for r in _as_list(st["Resource"])):
            return False
    elif "NotResource" in st:
        if any(_resource_match(r, req) for r in _as_list(st["NotResource"])):
            return False
    else:
        return False
    return conditions_hold(st.get("Condition") or {}, req, unknown=deny)


# --- matching ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _pattern(pattern: str, ignore_case: bool) -> re.Pattern:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(f"^{body}$", re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def wildcard_match(pattern: str, value: str, ignore_case: bool = False) -> bool:
    """IAM's `*` (any run of characters) and `?` (one character); nothing else is special."""
    return bool(_pattern(pattern, ignore_case).match(value))


_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_ESCAPES = {"*": "\0STAR\0", "?": "\0QMARK\0", "$": "$"}


def _substitute(text: str, req: Request) -> str | None:
    """Policy variables filled in from the request; None when one names a key the request does not have (IAM:
    the element then matches nothing). `${*}` and `${?}` stand for literal characters, kept apart from wildcards."""

    missing = False

    def one(m: re.Match) -> str:
        nonlocal missing
        name = m[1]
        if name in _ESCAPES:
            return _ESCAPES[name]
        default = None
        if "," in name:  # ${key, 'default'}
            name, _, default = (p.strip() for p in name.partition(","))
            default = default.strip("'")
        values = req.value(name)
        if values and len(values) == 1:
            return values[0]
        if default is not None:
            return default
        missing = True
        return ""

    out = _VARIABLE.sub(one, text)
    return None if missing else out


def _literal_pattern_match(pattern: str, value: str, ignore_case: bool) -> bool:
    """Match after substitution: the escaped `${*}` / `${?}` are literal characters."""
    parts = re.split("(\0STAR\0|\0QMARK\0)", pattern)
    body = ""
    for p in parts:
        if p == "\0STAR\0":
            body += re.escape("*")
        elif p == "\0QMARK\0":
            body += re.escape("?")
        else:
            body += "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in p)
    return bool(re.match(f"^{body}$", value, re.DOTALL | (re.IGNORECASE if ignore_case else 0)))


def _resource_match(pattern: str, req: Request) -> bool:
    filled = _substitute(pattern, req)
    return filled is not None and _literal_pattern_match(filled, req.resource, ignore_case=False)


# --- conditions ----------------------------------------------------------------------------------------------

_NEGATED = {"StringNotEquals", "StringNotEqualsIgnoreCase", "StringNotLike", "ArnNotEquals", "ArnNotLike"}
_POSITIVE = {"StringEquals", "StringEqualsIgnoreCase", "StringLike", "ArnEquals", "ArnLike", "Bool"}


def _value_match(base: str, policy_value: str, value: str) -> bool:
    if base in ("StringEquals", "StringNotEquals"):
        return policy_value == value
    if base in ("StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "Bool"):
        return policy_value.lower() == value.lower()
    # StringLike and the Arn operators: wildcards (an ARN's six fields match field by field, which for the
    # patterns IAM allows is the same as matching the whole string).
    return _literal_pattern_match(policy_value, value, ignore_case=False)


def _split_operator(operator: str) -> tuple[str | None, str, bool]:
    prefix = None
    for p in ("ForAnyValue:", "ForAllValues:"):
        if operator.startswith(p):
            prefix, operator = p[:-1], operator[len(p) :]
    if_exists = operator.endswith("IfExists") and operator != "IfExists"
    return prefix, operator.removesuffix("IfExists") if if_exists else operator, if_exists


def conditions_hold(condition: Mapping[str, Any], req: Request, unknown: bool = False) -> bool:
    """Whether a statement's Condition block holds for `req`. `unknown`: the answer for an operator not modelled."""
    for operator, keys in condition.items():
        prefix, base, if_exists = _split_operator(operator)
        if base not in _NEGATED | _POSITIVE | {"Null"} or not isinstance(keys, Mapping):
            if not unknown:
                return False
            continue
        for key, policy_values in keys.items():
            if not _key_holds(prefix, base, if_exists, key, [str(v) for v in _as_list(policy_values)], req):
                return False
    return True


def _key_holds(prefix: str | None, base: str, if_exists: bool, key: str, raw: Sequence[str], req: Request) -> bool:
    values = req.value(key)
    if base == "Null":  # "true": the key is absent (or empty); "false": present
        present = bool(values)
        return any((v.lower() == "true") != present for v in raw)
    policy_values = [s for s in (_substitute(v, req) for v in raw) if s is not None]
    negated = base in _NEGATED

    def matches(v: str) -> bool:
        return any(_value_match(base, p, v) for p in policy_values)

    if prefix == "ForAllValues":  # every value in the request is among the policy's: true for none at all
        if not values:
            return True
        return all((not matches(v)) if negated else matches(v) for v in values)
    if prefix == "ForAnyValue":  # at least one value in the request is among the policy's: false for none
        if not values:
            return False
        return any((not matches(v)) if negated else matches(v) for v in values)
    if not values:  # a single-valued key that is absent
        return if_exists or negated
    if negated:
        return not any(matches(v) for v in values)
    return any(matches(v) for v in values)
