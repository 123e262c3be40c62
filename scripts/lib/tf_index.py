"""terraform-provider-aws's resource schemas, read from a per-function index of its Go source.

Standard library only. The index (pinned in scripts/upstream.json as `tf-aws-index`) holds, for one provider
release, each Go function, method and variable of `internal/` verbatim in its own file:
`<dir>/func.<name>.goindex`, `method.<type>.<name>.goindex`, `var.<name>.goindex`, `type.<name>.goindex`, each
a `package`/`import` header and the declaration. A service's registry (`method.servicePackage.SDKResources` and
`FrameworkResources`, from its service_package_gen.go) names the factory of each Terraform resource type, so no
function name is typed here. `ResourceSchema` is what the generator needs of one resource type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import goschema
import goschema_framework

Reader = Callable[[str], str | None]  # a path under the index's `internal/` -> text, or None
# Package aliases the schemas use for shared helpers -> their folder under internal/.
PACKAGES = {
    "tftags": "tags",
    "sdkv2": "sdkv2",
    "verify": "verify",
    "framework": "framework",
    "fwtypes": "framework/types",
}


@dataclass
class ResourceSchema:
    tf_name: str
    factory: str
    files: list[str]  # the index files the schema was read from
    attributes: dict[str, goschema.Attribute]
    conditional: dict[str, str] = field(default_factory=dict)  # TF path -> the Go function that decides


def declaration(text: str) -> str:
    """A goindex file less its package and import header."""
    m = re.search(r"^import \($.*?^\)$", text, flags=re.M | re.S)
    return text[m.end() :] if m else text.split("\n", 1)[-1]


class Index:
    def __init__(self, read: Reader, table: dict[str, str] | None = None):
        self._read, self.table, self.read_files = read, table, []

    def text(self, path: str) -> str | None:
        got = self._read(path)
        if got is not None and path not in self.read_files:
            self.read_files.append(path)
        return None if got is None else declaration(got)

    def resolver(self, service: str) -> goschema.Resolver:
        def resolve(name: str, alias: str | None) -> str | None:
            if alias is not None and alias not in PACKAGES:
                return None
            # Unqualified names are the service's own, or (inside a shared helper) the helper's package's.
            folders = [PACKAGES[alias]] if alias else [f"service/{service}", *PACKAGES.values()]
            for folder in folders:
                for kind in ("func", "var"):
                    got = self.text(f"{folder}/{kind}.{name}.goindex")
                    if got is not None:
                        return got
            return None

        return resolve

    def registry(self, service: str) -> dict[str, tuple[str, str]]:
        """Terraform type -> (factory, "sdk" or "framework"), from the service's generated registry."""
        out = {}
        for method, kind in (("SDKResources", "sdk"), ("FrameworkResources", "framework")):
            text = self.text(f"service/{service}/method.servicePackage.{method}.goindex") or ""
            for factory, tf_name in re.findall(r"Factory:\s*(\w+),\s*TypeName:\s*\"(\w+)\"", text):
                out[tf_name] = (factory, kind)
        return out

    def schema(self, service: str, tf_name: str) -> ResourceSchema:
        registered = self.registry(service)
        if tf_name not in registered:
            raise SystemExit(f"{tf_name} is not registered in internal/service/{service} (service_package_gen.go)")
        factory, kind = registered[tf_name]
        resolve = self.resolver(service)
        start = len(self.read_files)
        if kind == "sdk":
            text = self.text(f"service/{service}/func.{factory}.goindex")
            if text is None:
                raise SystemExit(f"{tf_name}: no func {factory} in the index")
            attributes = goschema.resource_schema(text, factory, self.table, resolve)
            conditional = goschema.customize_diff_force_new(text, factory, self.table, resolve)
        else:
            attributes, conditional = self._framework(service, factory, resolve)
        return ResourceSchema(tf_name, factory, self.read_files[start:], attributes, conditional)

    def _framework(self, service: str, factory: str, resolve: goschema.Resolver):
        """A Plugin Framework resource: its factory's struct, that struct's (or an embedded one's) Schema."""
        source = self.text(f"service/{service}/func.{factory}.goindex") or ""
        m = re.search(r"&(\w+)\{", source)
        if m is None:
            raise SystemExit(f"{factory} builds no resource struct")
        struct = m.group(1)
        for candidate in (struct, *self._embedded(service, struct)):
            schema = self.text(f"service/{service}/method.{candidate}.Schema.goindex")
            if schema is not None:
                attributes = goschema_framework.framework_schema(schema, self.table, resolve)
                plan = self.text(f"service/{service}/method.{candidate}.ModifyPlan.goindex") or ""
                paths = goschema_framework.plan_replaces(plan, self.table) + self._plan_helpers(service, plan)
                return attributes, dict.fromkeys(paths, f"{candidate}.ModifyPlan")
        raise SystemExit(f"no Schema method for {struct} in internal/service/{service}")

    def _embedded(self, service: str, struct: str) -> list[str]:
        text = self.text(f"service/{service}/type.{struct}.goindex") or ""
        body = goschema.literal(text.replace("struct {", "struct{"), "struct") or ""
        return re.findall(r"^\s*\*?(\w+)\s*$", goschema.strip_comments(body), flags=re.M)

    def _plan_helpers(self, service: str, plan: str) -> list[str]:
        """Attributes a ModifyPlan replaces on through the model's helper methods (`RequiresReplace =
        []path.Path{path.Root(old), ...}` where `old := model.sourceAttributeName()`): the names they return."""
        if not re.search(r"RequiresReplace\s*=[^\n]*path\.Root\(\w+\)", plan):
            return []
        model = re.search(r"var \w+(?:, \w+)* (\w+Model)\b", plan)
        out: list[str] = []
        for method in sorted(set(re.findall(r"\.(\w+)\(\)", plan))) if model else []:
            helper = self.text(f"service/{service}/method.{model.group(1)}.{method}.goindex") or ""
            out += [goschema.key_name(v, self.table) for v in re.findall(r"return (\"\w+\"|names\.\w+)", helper)]
        return out
