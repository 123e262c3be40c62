"""What an unset ForceNew input means to terraform-provider-aws: its schema default, or the value the API computed.

Standard library only. Terraform plans no change between an absent attribute and its `Default:` (the SDK fills
the default into the configuration), nor for an Optional+Computed attribute left unset (the prior state's value,
which the API computed, is kept): so `mlplatform diff` must not read such a pair as a replacement. For an
Optional+Computed attribute the API's own default is what a cluster created without it has; the provider's
documentation states it ("Valid values are `ipv4` (default) and `ipv6`" for aws_eks_cluster's ip_family), and the
installed pulumi_aws SDK carries that text in its docstrings (bridged from terraform-provider-aws's
website/docs): read there, as text, never imported.

`unset_facts(attributes, token)` returns, for every ForceNew attribute (and every attribute under a ForceNew
block) with a default or Optional+Computed: {"defaults": {path: value}, "defaultFrom": {path: source},
"computed": [paths]} by Pulumi property path (camelCase, as pulumi_names.force_new_paths names them).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path

import goschema
import pulumi_names

_DEFAULT_IN_DOCS = re.compile(r"`([^`]+)` \(default\)")


def go_literal(text: str) -> object | None:
    """A Go literal default (`true`, `10`, `"ipv4"`) as JSON; None for a constant or an expression."""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r'"[^"\\]*"', text):
        return json.loads(text)
    return None


def _sdk_dir() -> Path | None:
    spec = importlib.util.find_spec("pulumi_aws")
    return None if spec is None or spec.origin is None else Path(spec.origin).parent


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def documented_default(token: str, path: str) -> tuple[object, str] | None:
    """The default the SDK's docstring of `path` states ("`x` (default)"), and where it was read."""
    sdk = _sdk_dir()
    if sdk is None:
        return None
    module, resource = token.split(":")[1].split("/")
    parts = path.split(".")
    resource = resource[:1].upper() + resource[1:]
    if len(parts) == 1:
        file, cls = pulumi_names.sdk_module(token), f"{resource}Args"
    else:  # a nested block's input type: <Resource><Block...>Args in the module's _inputs.py
        file, cls = f"{module}/_inputs.py", resource + "".join(p[:1].upper() + p[1:] for p in parts[:-1]) + "Args"
    text = (sdk / file).read_text(encoding="utf-8")
    start = text.find(f"\nclass {cls}:")
    if start < 0:
        return None
    end = text.find("\nclass ", start + 1)
    body = text[start : end if end > 0 else len(text)]
    doc = re.search(rf":param [^\n]*?\b{_snake(parts[-1])}: ([^\n]*)", body)
    found = _DEFAULT_IN_DOCS.search(doc.group(1)) if doc else None
    if found is None:
        return None
    version = importlib.metadata.version("pulumi_aws")
    return found.group(1), f"pulumi_aws {version} {file} {cls} ({found.group(0)}: the provider's documentation)"


def _walk(schema: dict[str, goschema.Attribute], prefix: str, under_force_new: bool):
    for attr in schema.values():
        if attr.computed_only:
            continue
        path = prefix + pulumi_names.pulumi_name(attr, {})
        force_new = under_force_new or attr.force_new
        if force_new and (attr.default is not None or attr.optional_computed) and not attr.nested:
            yield path, attr
        if attr.nested:
            yield from _walk(attr.nested, path + ".", force_new)


def unset_facts(schema: dict[str, goschema.Attribute], token: str) -> dict:
    defaults: dict[str, object] = {}
    sources: dict[str, str] = {}
    computed: list[str] = []
    for path, attr in _walk(schema, "", False):
        if attr.default is not None:
            value = go_literal(attr.default)
            if value is not None:
                defaults[path], sources[path] = value, f"schema Default: {attr.default}"
            continue
        computed.append(path)
        documented = documented_default(token, path)
        if documented is not None:
            defaults[path], sources[path] = documented
    out: dict = {}
    if defaults:
        out["defaults"], out["defaultFrom"] = dict(sorted(defaults.items())), dict(sorted(sources.items()))
    if computed:
        out["computed"] = sorted(computed)
    return out
