"""Reading terraform-provider-aws's Go resource schemas (terraform-plugin-sdk/v2) without a Go toolchain.

Standard library only. `resource_schema(text, function)` finds `func <function>() *schema.Resource` in a Go
file and returns its `map[string]*schema.Schema` literal as a tree of attributes: each with `force_new`,
its `type` (schema.TypeList, ...), `max_items` and, for blocks (`Elem: &schema.Resource{...}`), its nested
attributes. Keys written as constants (`names.AttrClusterName`) are named by `attr_name` or, when the
provider's `names/attr_consts_gen.go` is given, by its table. Braces inside strings and comments are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The provider's acronyms in constant names (names/attr_consts_gen.go): AttrVPCID -> vpc_id.
_ACRONYMS = ("ARNs", "ARN", "IDs", "ID", "VPC", "CIDR", "KMS", "IAM", "IPv6", "IPv4", "IP", "DNS", "SSH", "URL")
_WORD = re.compile("|".join(_ACRONYMS) + r"|[A-Z][a-z0-9]*")


@dataclass
class Attribute:
    name: str
    force_new: bool = False
    type: str | None = None
    max_items: int | None = None
    nested: dict[str, Attribute] | None = None  # a block (Elem: &schema.Resource{...})
    computed_only: bool = False
    extra: dict[str, str] = field(default_factory=dict)


def attr_name(constant: str, table: dict[str, str] | None = None) -> str:
    """`names.AttrSubnetIDs` -> `subnet_ids` (from the provider's table when given)."""
    ident = constant.split(".")[-1]
    if table is not None:
        if ident not in table:
            raise ValueError(f"{constant} is not in names/attr_consts_gen.go")
        return table[ident]
    return "_".join(w.lower() for w in _WORD.findall(ident.removeprefix("Attr")))


def attr_table(text: str) -> dict[str, str]:
    """names/attr_consts_gen.go: `AttrClusterName = "cluster_name"` lines."""
    return dict(re.findall(r"\b(Attr\w+)\s*=\s*\"([^\"]+)\"", text))


def _skip(text: str, i: int) -> int:
    """The index after a string or comment starting at i (or i when none starts there)."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        return text.index("*/", i) + 2
    if text[i] == '"':
        j = i + 1
        while text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return j + 1
    if text[i] == "`":
        return text.index("`", i + 1) + 1
    return i


def _close(text: str, i: int) -> int:
    """The index of the bracket closing the one at i."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = [pairs[text[i]]]
    j = i + 1
    while stack:
        k = _skip(text, j)
        if k != j:
            j = k
            continue
        c = text[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}" and c != stack.pop():
            raise ValueError(f"unbalanced {c!r} at offset {j}")
        j += 1
    return j - 1


def _items(body: str) -> list[str]:
    """A literal's body split at its top-level commas."""
    out, start, j = [], 0, 0
    while j < len(body):
        k = _skip(body, j)
        if k != j:
            j = k
            continue
        c = body[j]
        if c in "{([":
            j = _close(body, j) + 1
            continue
        if c == ",":
            out.append(body[start:j])
            start = j + 1
        j += 1
    out.append(body[start:])
    return [s.strip() for s in out if _strip_comments(s).strip()]


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def _split_key(item: str) -> tuple[str, str]:
    item = _strip_comments(item).strip()
    j = 0
    while j < len(item):
        k = _skip(item, j)
        if k != j:
            j = k
            continue
        if item[j] in "{([":
            j = _close(item, j) + 1
            continue
        if item[j] == ":":
            return item[:j].strip(), item[j + 1 :].strip()
        j += 1
    raise ValueError(f"no key in {item[:60]!r}")


def _schema_map(body: str, table: dict[str, str] | None) -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for item in _items(body):
        key, value = _split_key(item)
        name = key.strip('"') if key.startswith('"') else attr_name(key, table)
        attr = Attribute(name)
        if value.startswith("{"):
            _attribute(attr, value[1 : _close(value, 0)], table)
        else:  # a shared schema from a function (tags, policy documents): no ForceNew of its own here
            attr.extra["from"] = value
        out[name] = attr
    return out


def _attribute(attr: Attribute, body: str, table: dict[str, str] | None) -> None:
    fields = dict(_split_key(item) for item in _items(body))
    attr.force_new = fields.get("ForceNew") == "true"
    attr.type = fields.get("Type")
    if "MaxItems" in fields and fields["MaxItems"].isdigit():
        attr.max_items = int(fields["MaxItems"])
    attr.computed_only = fields.get("Computed") == "true" and "Optional" not in fields and "Required" not in fields
    elem = fields.get("Elem", "")
    if elem.startswith("&schema.Resource{"):
        inner = elem[len("&schema.Resource") :]
        inner_fields = dict(_split_key(item) for item in _items(inner[1 : _close(inner, 0)]))
        nested = inner_fields.get("Schema", "")
        if nested.startswith("map[string]*schema.Schema{"):
            lit = nested[len("map[string]*schema.Schema") :]
            attr.nested = _schema_map(lit[1 : _close(lit, 0)], table)


def resource_schema(text: str, function: str, table: dict[str, str] | None = None) -> dict[str, Attribute]:
    """The schema map of `func <function>() *schema.Resource` (inline `Schema:` or `SchemaFunc:`)."""
    m = re.search(rf"func {re.escape(function)}\(\) \*schema\.Resource \{{", text)
    if m is None:
        raise ValueError(f"no func {function}() *schema.Resource")
    start = text.index("map[string]*schema.Schema{", m.end()) + len("map[string]*schema.Schema")
    return _schema_map(text[start + 1 : _close(text, start)], table)
