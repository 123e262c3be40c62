"""Plain YAML scalars that YAML parsers read differently: kept as written, never silently given a meaning.

PyYAML reads YAML 1.1: `yes`/`on`/`off` are booleans, `010` is the octal 8, `1:30` the base-60 number 90,
`1_000` is 1000 and `2026-01-01` a date. YAML 1.2 reads the first, third and fourth as text and `010` as 10,
and the Go parser of the Pulumi CLI (gopkg.in/yaml.v3, resolve.go: yes/on are text, 010 is 8, 1_000 is 1000,
1:30 is text) agrees with neither. A stack file means one thing only, so such a scalar is kept as an
`AsWritten` (its text and both readings): the settings model refuses it wherever it appears, naming the
value as written and the two readings, and asking for the unambiguous spelling.

Scalars written the same way by all three (true, 3, 2.5, m5.xlarge, 0x1F, null) load as usual, and so do dates
(2027-01-15): every reading that reaches a program is their text (plain_tag says why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# The YAML 1.2 core schema (yaml.org/spec/1.2.2, 10.3.2 Tag Resolution).
_CORE_NULL = re.compile(r"^(?:null|Null|NULL|~|)$")
_CORE_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
# YAML 1.1's booleans as PyYAML reads them (yaml.org/type/bool.html lists y and n too, which PyYAML and
# go-yaml v3 both read as text: those stay text).
_YAML11_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "off", "Off", "OFF"), False),
}
_LEADING_ZERO = re.compile(r"^[-+]?0[0-9_]")
TAG = "tag:ml-platform-eks:as-written"
_YAML = "tag:yaml.org,2002:"


@dataclass(frozen=True)
class AsWritten:
    """A plain scalar whose meaning depends on the YAML version: its text and what each version makes of it."""

    text: str
    yaml11: Any  # YAML 1.1 (PyYAML and other 1.1 tools)
    yaml12: Any  # YAML 1.2 core schema

    def __str__(self) -> str:
        # Where the text is all there is (the Pulumi engine's string config of other namespaces), it is what
        # the file says.
        return self.text

    def readings(self) -> str:
        """`YAML 1.1 reads it as true, YAML 1.2 as the text "yes"`."""
        yaml11, yaml12 = _reading(self.yaml11, self.text, octal=True), _reading(self.yaml12, self.text)
        return f"YAML 1.1 reads it as {yaml11}, YAML 1.2 as {yaml12}"


def _reading(value: Any, text: str, octal: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'the text "{value}"'
    if isinstance(value, int) and ":" in text:
        return f"the base-60 number {value}"
    if octal and isinstance(value, int) and _LEADING_ZERO.match(text) and "_" not in text:
        return f"the octal number {value}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return f"the {type(value).__name__} {value}"  # dates


def core_value(text: str) -> tuple[str, Any]:
    """The YAML 1.2 core schema's tag and value of a plain scalar."""
    if _CORE_NULL.match(text):
        return _YAML + "null", None
    if _CORE_BOOL.match(text):
        return _YAML + "bool", text.lower() == "true"
    if _CORE_INT.match(text):
        return _YAML + "int", int(text, 8 if text.startswith("0o") else 16 if text.startswith("0x") else 10)
    if _CORE_FLOAT.match(text):
        lowered = text.lower().lstrip("+")
        return _YAML + "float", float(lowered.replace(".inf", "inf").replace(".nan", "nan"))
    return _YAML + "str", text


def plain_tag(text: str, yaml11_tag: str) -> str:
    """The tag of a plain scalar: YAML 1.1's (what PyYAML resolved) when YAML 1.2 agrees, else TAG."""
    if yaml11_tag in (_YAML + "merge", _YAML + "value"):  # `<<` merges in both; a bare `=` is text
        return yaml11_tag if yaml11_tag.endswith("merge") else _YAML + "str"
    if yaml11_tag == _YAML + "timestamp":
        # A date or a moment (2027-01-15, 2026-12-01T11:30:00Z): PyYAML reads a date object, YAML 1.2 the text, and
        # so does the Pulumi CLI: go-yaml v3 resolves it as a timestamp but decodes it into interface{}, as Pulumi
        # reads a stack's config, as its text ("for backward compatibility reasons we set it as a string",
        # gopkg.in/yaml.v3 decode.go, d.scalar). So the text is what a program gets, and what the user wrote:
        # it loads as text, quoted or not, and every date setting parses it (node_capacity.EndDate).
        return _YAML + "str"
    tag12, _ = core_value(text)
    if text in _YAML11_BOOL:
        return TAG
    if tag12 != yaml11_tag:
        return TAG
    if tag12 == _YAML + "int" and _LEADING_ZERO.match(text):  # 010: octal 8 in YAML 1.1, 10 in YAML 1.2
        return TAG
    return yaml11_tag


def as_written(text: str, yaml11: Any) -> AsWritten:
    return AsWritten(text, _YAML11_BOOL.get(text, yaml11), core_value(text)[1])


def contains_as_written(value: Any) -> AsWritten | None:
    """The first AsWritten scalar in a value (a mapping's keys and values, a list's items), or None."""
    stack, seen = [value], set()
    while stack:
        node = stack.pop()
        if isinstance(node, AsWritten):
            return node
        if id(node) in seen:  # shared through a YAML alias: looked at once
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None
