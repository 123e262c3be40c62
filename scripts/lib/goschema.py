"""Reading terraform-provider-aws's Go resource schemas (terraform-plugin-sdk/v2) without a Go toolchain.

Standard library only. `resource_schema(text, function, resolve=...)` finds `func <function>() *schema.Resource`
and returns its schema (`Schema:` or `SchemaFunc:`, inline or a shared variable) as a tree of attributes: each
with `force_new`, its `type` (schema.TypeList, ...), `max_items` and, for blocks, its nested attributes.
`customize_diff_force_new` lists the attributes the resource's CustomizeDiff replaces on (a condition decides).
Values written as shared schemas (`tftags.TagsSchema()`, `securityGroupRuleSetNestedBlock`) are followed through
`resolve`, which returns the Go source of a named function or variable (or None). Keys written as constants
(`names.AttrClusterName`) are named by `attr_name` or, when the provider's `names/attr_consts_gen.go` is given,
by its table. Braces inside strings and comments are skipped. The Plugin Framework's schemas: goschema_framework.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# The provider's acronyms in constant names (names/attr_consts_gen.go): AttrVPCID -> vpc_id.
_ACRONYMS = ("ARNs", "ARN", "IDs", "ID", "VPC", "CIDR", "KMS", "IAM", "IPv6", "IPv4", "IP", "DNS", "SSH", "URL")
_WORD = re.compile("|".join(_ACRONYMS) + r"|[A-Z][a-z0-9]*")
_IDENT = re.compile(r"\b(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\b")

Resolver = Callable[[str, str | None], str | None]  # (name, package alias or None) -> Go source, or None


@dataclass
class Attribute:
    name: str
    force_new: bool = False
    type: str | None = None
    max_items: int | None = None
    nested: dict[str, Attribute] | None = None  # a block (Elem: &schema.Resource{...})
    computed_only: bool = False
    force_new_if: str | None = None  # replaced only when a condition (a Go function) says so
    default: str | None = None  # the schema's `Default:` as written in Go (`true`, `"ipv4"`, a constant)
    optional_computed: bool = False  # unset in the configuration: the provider keeps what the API computed
    extra: dict[str, str] = field(default_factory=dict)


def attr_name(constant: str, table: dict[str, str] | None = None) -> str:
    """`names.AttrSubnetIDs` -> `subnet_ids` (from the provider's table when given)."""
    ident = constant.split(".")[-1]
    if table is not None:
        if ident not in table:
            raise ValueError(f"{constant} is not in names/attr_consts_gen.go")
        return table[ident]
    return "_".join(w.lower() for w in _WORD.findall(ident.removeprefix("Attr")))


def key_name(key: str, table: dict[str, str] | None) -> str:
    return key.strip('"') if key.startswith('"') else attr_name(key, table)


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
    if text[i] == "'":  # a rune literal: '{' is no brace
        return text.index("'", i + 2 if text[i + 1] == "\\" else i + 1) + 1
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


def literal(text: str, opener: str, start: int = 0) -> str | None:
    """The body (between the braces) of the first `opener{...}` at or after start, or None."""
    i = text.find(opener + "{", start)
    if i < 0:
        return None
    brace = i + len(opener)
    return text[brace + 1 : _close(text, brace)]


def items(body: str) -> list[str]:
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
    return [s.strip() for s in out if strip_comments(s).strip()]


def strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def split_key(item: str) -> tuple[str, str]:
    item = strip_comments(item).strip()
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


def fields(body: str) -> dict[str, str]:
    return dict(split_key(item) for item in items(body))


def follow(value: str, resolve: Resolver | None, opener: str, depth: int = 3, seen: frozenset = frozenset()):
    """The body of the `opener{...}` literal a shared value names: a variable, or what a function returns (through
    helpers that build it, e.g. `sync.OnceValue(jsonDocumentSchemaRequiredFunc(...))`)."""
    if resolve is None or depth == 0:
        return None
    for alias, name in _IDENT.findall(strip_comments(value)):
        source = None if name in seen else resolve(name, alias or None)
        if source is None:
            continue
        found = literal(source, opener)
        if found is None:  # the source builds it with another helper
            found = follow(source, resolve, opener, depth - 1, seen | {name})
        if found is not None:
            return found
    return None


def _schema_map(body: str, table: dict[str, str] | None, resolve: Resolver | None) -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for item in items(body):
        key, value = split_key(item)
        attr = Attribute(key_name(key, table))
        if value.startswith("{"):
            _attribute(attr, value[1 : _close(value, 0)], table, resolve)
        else:  # a shared schema (tags, policy documents, rule blocks): follow it
            shared = follow(value, resolve, "&schema.Schema")
            if shared is None:
                attr.extra["unresolved"] = value
            else:
                _attribute(attr, shared, table, resolve)
            attr.extra["from"] = value
        out[attr.name] = attr
    return out


def _attribute(attr: Attribute, body: str, table: dict[str, str] | None, resolve: Resolver | None) -> None:
    f = fields(body)
    attr.force_new = f.get("ForceNew") == "true"
    attr.type = f.get("Type")
    if "MaxItems" in f and f["MaxItems"].isdigit():
        attr.max_items = int(f["MaxItems"])
    attr.computed_only = f.get("Computed") == "true" and "Optional" not in f and "Required" not in f
    attr.default = f.get("Default")
    attr.optional_computed = f.get("Computed") == "true" and f.get("Optional") == "true"
    elem = f.get("Elem", "")
    if elem.startswith("&schema.Resource{"):
        resource = elem[len("&schema.Resource") + 1 : _close(elem, len("&schema.Resource"))]
    elif elem and not elem.startswith("&schema.Schema"):  # a shared block (a variable)
        resource = follow(elem, resolve, "&schema.Resource")
    else:
        return
    if resource is not None:
        attr.nested = _resource_schema_map(fields(resource), table, resolve)


def _resource_schema_map(f: dict[str, str], table: dict[str, str] | None, resolve: Resolver | None) -> dict:
    """The attributes of a `&schema.Resource{...}` literal's fields (`Schema:` or `SchemaFunc:`)."""
    value = f.get("Schema") or f.get("SchemaFunc")
    if value is None:
        raise ValueError("a schema.Resource without Schema or SchemaFunc")
    opener = "map[string]*schema.Schema"
    body = literal(value, opener)
    if body is None:  # Schema: maps.Clone(queueSchema), SchemaFunc: someFunc
        body = follow(value, resolve, opener)
    if body is None:
        raise ValueError(f"cannot follow the schema {value[:80]!r}")
    return _schema_map(body, table, resolve)


def _resource_fields(text: str, function: str) -> dict[str, str]:
    m = re.search(rf"func {re.escape(function)}\(\) \*schema\.Resource \{{", text)
    if m is None:
        raise ValueError(f"no func {function}() *schema.Resource")
    body = literal(text, "&schema.Resource", m.end())
    if body is None:
        raise ValueError(f"{function} returns no &schema.Resource literal")
    return fields(body)


def resource_schema(
    text: str, function: str, table: dict[str, str] | None = None, resolve: Resolver | None = None
) -> dict[str, Attribute]:
    """The schema of `func <function>() *schema.Resource` (inline `Schema:`/`SchemaFunc:` or a shared map)."""
    return _resource_schema_map(_resource_fields(text, function), table, resolve)


def _force_new_args(source: str, table: dict[str, str] | None) -> list[str]:
    args = re.findall(r"\.ForceNew\(\s*([^)\s]+)\s*\)", source)
    return [key_name(a, table) for a in args if a.startswith('"') or a.startswith("names.")]


def customize_diff_force_new(
    text: str, function: str, table: dict[str, str] | None = None, resolve: Resolver | None = None
) -> dict[str, str]:
    """Terraform paths (`vpc_config.0.x`) the resource's CustomizeDiff may force new, each with the function that
    decides: `customdiff.ForceNewIfChange("path", ...)` inline, or `diff.ForceNew(path)` in a named function."""
    value = _resource_fields(text, function).get("CustomizeDiff", "")
    out: dict[str, str] = {}
    for path in re.findall(r"customdiff\.ForceNewIf(?:Change)?\(\s*(\"[^\"]+\"|names\.\w+)", value):
        out[key_name(path, table)] = f"{function} CustomizeDiff (customdiff.ForceNewIfChange)"
    for alias, name in _IDENT.findall(strip_comments(value)):
        source = resolve(name, alias or None) if resolve is not None and not alias else None
        if source is not None and f"func {name}(" in source:
            for path in _force_new_args(source, table):
                out[path] = name
    return out
