"""How pulumi-aws (bridged from terraform-provider-aws) names and treats a Terraform resource's attributes.

Standard library only. The bridge's property names: camelCase, list/set attributes (MaxItems other than 1)
pluralised, one-item blocks flattened to objects, renames from pulumi-aws's provider/resource_overrides.go. What
the overrides say of a resource: `DeleteBeforeReplace`, properties auto-named with `tfbridge.AutoName...`, and
(provider/autonaming.go) `name` auto-named wherever the schema has it as an input and the overrides don't.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import goschema


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def plural(name: str) -> str:
    if name.endswith("ss") or name.endswith(("x", "ch", "sh")):
        return name + "es"
    if name.endswith("s"):
        return name
    if name.endswith("y") and name[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


def pulumi_name(attr: goschema.Attribute, renames: dict[str, str]) -> str:
    """The bridge's property name: renamed by pulumi-aws, else camelCase, list blocks of many items plural."""
    if attr.name in renames:
        return renames[attr.name]
    name = camel(attr.name)
    many = attr.type in ("schema.TypeList", "schema.TypeSet") and attr.max_items != 1
    return plural(name) if many else name


def force_new_paths(schema: dict[str, goschema.Attribute], renames: dict[str, str], prefix: str = "") -> list[str]:
    out = []
    for attr in schema.values():
        if attr.computed_only:
            continue
        path = prefix + pulumi_name(attr, renames if not prefix else {})
        if attr.force_new:
            out.append(path)  # the whole block: any change under it replaces
        elif attr.nested:
            out += force_new_paths(attr.nested, {}, path + ".")
    return out


def conditional_paths(schema: dict[str, goschema.Attribute], renames: dict[str, str], prefix: str = "") -> dict:
    """Plugin Framework attributes replaced under a condition (`RequiresReplaceIf...`): path -> the modifier."""
    out = {}
    for attr in schema.values():
        path = prefix + pulumi_name(attr, renames if not prefix else {})
        if attr.force_new_if and not attr.computed_only:
            out[path] = attr.force_new_if
        if attr.nested and not attr.force_new:
            out.update(conditional_paths(attr.nested, {}, path + "."))
    return out


def unresolved(schema: dict[str, goschema.Attribute], prefix: str = "") -> list[str]:
    """Attributes written as shared schemas the index did not resolve (their ForceNew is unknown)."""
    out = []
    for attr in schema.values():
        if "unresolved" in attr.extra:
            out.append(prefix + attr.name)
        out += unresolved(attr.nested or {}, prefix + attr.name + ".")
    return out


def pulumi_path(schema: dict[str, goschema.Attribute], tf_path: str, renames: dict[str, str]) -> str:
    """A Terraform path (`vpc_config.0.control_plane_egress_mode`) as a Pulumi property path."""
    out, level = [], schema
    for part in (p for p in tf_path.split(".") if not p.isdigit()):
        attr = (level or {}).get(part)
        if attr is None:
            raise SystemExit(f"{tf_path}: {part} is not in the schema")
        out.append(pulumi_name(attr, renames if not out else {}))
        level = attr.nested
    return ".".join(out)


def override_block(text: str, tf_name: str) -> str:
    m = re.search(rf'^\t\t"{re.escape(tf_name)}":\s*\{{', text, flags=re.M)
    if m is None:
        return ""
    start = m.end() - 1
    return text[start : goschema._close(text, start) + 1]


def overrides(text: str, tf_name: str) -> dict:
    block = override_block(text, tf_name)
    top = goschema.fields(block[1:-1]).get("Fields", "") if block else ""
    field_names = (
        [goschema.split_key(i)[0].strip('"') for i in goschema.items(top[top.find("{") + 1 : -1])] if top else []
    )
    auto = re.findall(r'"(\w+)":\s*tfbridge\.AutoName\w*\(\s*"(\w+)"', top)
    renames = dict(re.findall(r'^\t\t\t\t"(\w+)":\s*\{\s*Name:\s*"(\w+)"', top, flags=re.M))
    if re.search(r"ForceNew:\s*tfbridge\.True\(\)|ForceNew:\s*true", block):
        raise SystemExit(f"pulumi-aws overrides ForceNew on {tf_name}: teach the generator to read it")
    return {
        "found": bool(block),
        "deleteBeforeReplace": bool(re.search(r"DeleteBeforeReplace:\s*true", block)),
        "autoNamed": sorted(camel(tf) for tf, _ in auto),
        "fields": field_names,
        "renames": renames,
    }


def check_autonaming_rule(text: str) -> None:
    """provider/autonaming.go must still say: an input (Optional or Required) `name` not in the resource's Fields is
    auto-named. If it changes, so must auto_named."""
    for needle in (
        'const nameProperty = "name"',
        "if _, hasfield := res.Fields[nameProperty]; !hasfield {",
        "res.Fields[nameProperty] = tfbridge.AutoName(nameProperty, maxLength, separator)",
        "(sch.Optional() || sch.Required())",
    ):
        if needle not in text:
            raise SystemExit(f"pulumi-aws provider/autonaming.go no longer has {needle!r}: re-read its rule")


def auto_named(schema: dict[str, goschema.Attribute], o: dict) -> list[str]:
    names = set(o["autoNamed"])
    name = schema.get("name")
    if name is not None and not name.computed_only and "name" not in o["fields"]:
        names.add("name")
    return sorted(names)


def sdk_module(token: str) -> str:
    """aws:eks/nodeGroup:NodeGroup -> eks/node_group.py (the Python SDK's module of the resource)."""
    module, resource = token.split(":")[1].split("/")
    return f"{module}/{re.sub(r'(?<!^)(?=[A-Z])', '_', resource).lower()}.py"


def sdk_has(module_file: str, prop: str) -> bool:
    """Whether the installed pulumi_aws SDK's resource module declares the property (read as text)."""
    spec = importlib.util.find_spec("pulumi_aws")
    if spec is None or spec.origin is None:
        return True  # no SDK here: nothing to check against
    text = (Path(spec.origin).parent / module_file).read_text(encoding="utf-8")
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", prop).lower()
    return f'name="{prop}"' in text or f"def {snake}(self)" in text
