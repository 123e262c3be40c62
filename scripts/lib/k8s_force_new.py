"""Reading pulumi-kubernetes's own list of the inputs that replace an object (provider/pkg/provider/diff.go).

Standard library only. diff.go declares `var forceNew = _groups{"apps": _versions{"v1": _kinds{"Deployment":
deployment, ...}}}`, each kind's `properties{".spec.selector", ...}` (also built with `append(...)` and helpers
such as `labelSelectorForceNewProperties(".spec.selector")`), and `forceNewProperties`, which adds
`metadataForceNewProperties(".metadata")` to every object and special-cases Secrets and ConfigMaps (their data
replaces them unless the provider's enableSecretMutable / enableConfigMapMutable is set; both default to false).
`force_new(text)` evaluates those declarations into Pulumi type tokens and property paths.
"""

from __future__ import annotations

import re

from goschema import _close, items, split_key, strip_comments


def _top_level_vars(text: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"^var (\w+) = ", text, flags=re.M):
        start = m.end()
        j = start
        while j < len(text) and text[j] not in "{(\n":
            j += 1
        end = _close(text, j) + 1 if text[j] in "{(" else j
        out[m.group(1)] = text[start:end]
    return out


def _funcs(text: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"^func (\w+)\(([^)]*)\) properties \{", text, flags=re.M):
        out[m.group(1)] = text[m.end() - 1 : _close(text, m.end() - 1) + 1]
    return out


class _Evaluator:
    def __init__(self, text: str):
        self.vars = _top_level_vars(text)
        self.funcs = _funcs(text)

    def props(self, expr: str) -> list[str]:
        expr = strip_comments(expr).strip().removesuffix("...")
        if expr.startswith("properties{"):
            return [s.strip('"') for s in items(expr[len("properties{") : _close(expr, expr.index("{"))])]
        if expr.startswith("append("):
            return [p for part in items(expr[len("append(") : _close(expr, len("append"))]) for p in self.props(part)]
        m = re.match(r"(\w+)\((.*)\)$", expr, flags=re.S)
        if m and m.group(1) in self.funcs:  # e.g. labelSelectorForceNewProperties(".spec.selector")
            suffixes = re.findall(r'prefix \+ "([^"]+)"', self.funcs[m.group(1)])
            return [a.strip('"') + s for a in items(m.group(2)) for s in suffixes]
        if re.fullmatch(r"\w+", expr) and expr in self.vars:
            return self.props(self.vars[expr])
        raise ValueError(f"cannot evaluate {expr[:80]!r} in diff.go")

    def mapping(self, expr: str, opener: str) -> dict[str, str]:
        expr = expr.strip()
        if re.fullmatch(r"\w+", expr):
            expr = self.vars[expr].strip()
        if not expr.startswith(opener + "{"):
            raise ValueError(f"expected {opener}{{...}}, got {expr[:60]!r}")
        body = expr[len(opener) + 1 : _close(expr, len(opener))]
        return {k.strip('"'): v for k, v in (split_key(i) for i in items(body))}


def _path(prop: str) -> str:
    return prop.removeprefix(".").replace("[*]", "")


def _branch(text: str, condition: str) -> list[str]:
    """The properties forceNewProperties adds in the branch whose condition mentions `condition`."""
    m = re.search(rf"{re.escape(condition)}[^\n]*\{{\s*props = append\(props, properties\{{([^}}]*)\}}", text)
    if m is None:
        raise ValueError(f"forceNewProperties has no {condition} branch")
    return [_path(s.strip().strip('"')) for s in m.group(1).split(",") if s.strip()]


def force_new(text: str) -> dict[str, list[str]]:
    """Pulumi type token -> the property paths whose change replaces the object, under the default provider
    configuration. The key "*" holds what every other kind gets (its identity: metadata.name and namespace)."""
    ev = _Evaluator(text)
    body = text[text.index("func (k *kubeProvider) forceNewProperties(") :]
    body = body[: _close(body, body.index("{")) + 1]
    metadata = [_path(p) for p in ev.props(re.search(r"props := (\w+\([^)]*\))", body).group(1))]
    out: dict[str, list[str]] = {"*": metadata}
    for group, versions in ev.mapping("forceNew", "_groups").items():
        for version, kinds in ev.mapping(versions, "_versions").items():
            for kind, props in ev.mapping(kinds, "_kinds").items():
                token = f"kubernetes:{group or 'core'}/{version}:{kind}"
                out[token] = sorted({*metadata, *(_path(p) for p in ev.props(props))})
    # Secrets and ConfigMaps: their data is immutable to the provider unless the *Mutable options are set.
    out["kubernetes:core/v1:Secret"] = sorted({*metadata, *_branch(body, "clients.IsSecret(obj)")})
    out["kubernetes:core/v1:ConfigMap"] = sorted({*metadata, *_branch(body, "clients.IsConfigMap(obj)")})
    return out


def helm_release_force_new(text: str) -> list[str]:
    """helm_release.go's Diff: `forceNewFields := []string{".name", ".namespace"}`."""
    m = re.search(r"forceNewFields := \[\]string\{([^}]*)\}", text)
    if m is None:
        raise ValueError("helm_release.go has no forceNewFields")
    return [_path(s.strip().strip('"')) for s in m.group(1).split(",") if s.strip()]


def validation_immutable(text: str, function: str) -> list[str]:
    """The fields an update validator forbids changing: `field.NewPath("value")` next to a refusal."""
    m = re.search(rf"func {function}\(", text)
    if m is None:
        raise SystemExit(f"no func {function} in the Kubernetes validation source")
    body = text[m.end() : _close(text, text.index("{", m.end()))]
    paths = re.findall(r'(?:Forbidden|ValidateImmutableField)\([^\n]*?field\.NewPath\("(\w+)"\)', body)
    return sorted(set(paths))
