"""Reading terraform-provider-aws's Plugin Framework resource schemas (the newer resources) without Go.

Standard library only. `framework_schema(text)` reads a resource's `Schema` method: `Attributes:` (and nested
`Blocks:`) as goschema.Attribute trees. An attribute whose `PlanModifiers` hold `...planmodifier.RequiresReplace()`
forces a replacement; `RequiresReplaceIf...(...)` does so under a condition (force_new_if). `plan_replaces(text)`
reads a `ModifyPlan` method for the paths it adds to `RequiresReplace`.
"""

from __future__ import annotations

import re

from goschema import Attribute, Resolver, _close, fields, items, key_name, literal, split_key

_REPLACE = re.compile(r"planmodifier\.RequiresReplace(\w*)\(")


def _attributes(body: str, table: dict[str, str] | None, resolve: Resolver | None) -> dict[str, Attribute]:
    out: dict[str, Attribute] = {}
    for item in items(body):
        key, value = split_key(item)
        attr = Attribute(key_name(key, table))
        m = re.match(r"schema\.(\w+)\{", value)
        if m is None:  # a shared attribute (framework.IDAttribute(), tftags.TagsAttribute()): follow it
            attr.extra["from"] = value
            shared = _shared(value, resolve)
            if shared is None:
                attr.extra["unresolved"] = value
                out[attr.name] = attr
                continue
            value = shared
            m = re.match(r"schema\.(\w+)\{", value)
        kind = m.group(1)
        body_start = value.index("{")
        _framework_attribute(attr, kind, value[body_start + 1 : _close(value, body_start)], table, resolve)
        out[attr.name] = attr
    return out


def _shared(value: str, resolve: Resolver | None) -> str | None:
    """The `schema.XAttribute{...}` literal a helper function returns."""
    if resolve is None:
        return None
    for alias, name in re.findall(r"\b(?:(\w+)\.)?(\w+)\(", value):
        source = resolve(name, alias or None)
        if source is None:
            continue
        m = re.search(r"return \w*schema\.(\w+)\{", source)
        if m is not None:
            start = source.index("{", m.start())
            return f"schema.{m.group(1)}" + source[start : _close(source, start) + 1]
    return None


def _framework_attribute(
    attr: Attribute, kind: str, body: str, table: dict[str, str] | None, resolve: Resolver | None
) -> None:
    f = fields(body)
    modifiers = f.get("PlanModifiers", "")
    for m in _REPLACE.finditer(modifiers):
        if m.group(1):
            attr.force_new_if = f"{m.group(0)}...)"
        else:
            attr.force_new = True
    attr.computed_only = f.get("Computed") == "true" and "Optional" not in f and "Required" not in f
    attr.type = kind
    if re.search(r"SizeAtMost\(1\)", f.get("Validators", "")):
        attr.max_items = 1
    nested = f.get("NestedObject")
    if nested:
        inner = fields(nested[nested.index("{") + 1 : _close(nested, nested.index("{"))])
        attr.nested = {}
        if "Attributes" in inner:
            attr.nested.update(_attributes(_map_body(inner["Attributes"]), table, resolve))
        if "Blocks" in inner:
            attr.nested.update(_attributes(_map_body(inner["Blocks"]), table, resolve))


def _map_body(value: str) -> str:
    start = value.index("{")
    return value[start + 1 : _close(value, start)]


def framework_schema(text: str, table: dict[str, str] | None = None, resolve: Resolver | None = None):
    """The attributes (and blocks) of a resource's `Schema(...)` method."""
    body = literal(text, "schema.Schema")
    if body is None:
        raise ValueError("no schema.Schema{...} literal")
    f = fields(body)
    out = _attributes(_map_body(f["Attributes"]), table, resolve) if "Attributes" in f else {}
    if "Blocks" in f:
        out.update(_attributes(_map_body(f["Blocks"]), table, resolve))
    return out


def plan_replaces(text: str, table: dict[str, str] | None = None) -> list[str]:
    """Attribute names a `ModifyPlan` method adds to the response's RequiresReplace (a condition decides)."""
    out = []
    for m in re.finditer(r"RequiresReplace\s*=\s*append\([^\n]*?path\.Root\((\"\w+\"|names\.\w+)\)", text):
        out.append(key_name(m.group(1), table))
    return out
