"""A release's workloads as its chart renders them: the recorded facts with the release's values applied.

Helm merges the release's values over the chart's defaults (helm_values.coalesce); every value the facts
bind lands at its field. A value that changes the rendering in a way the facts do not record (or that was
never probed) makes the rendering unproven: it is reported, never guessed.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .facts import ChartFacts
from .helm_values import MISSING, coalesce, empty, leaf_paths


@dataclass(frozen=True)
class Rendering:
    facts: ChartFacts
    workloads: tuple[dict[str, Any], ...]  # the facts' workload shape, values applied
    config_maps: tuple[dict[str, Any], ...]  # {kind: ConfigMap, name, data}, values applied
    unproven: tuple[str, ...]  # values the facts cannot account for


def _set(doc: dict[str, Any], pointer: str, value: Any) -> None:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.strip("/").split("/")]
    node: Any = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif empty(value):
        node.pop(last, None)
    else:
        node[last] = value


def _set_inside(doc: dict[str, Any], pointer: str, tail: int | None, value: Any) -> None:
    """Set a value below a recorded field: at `pointer`, or as the list there from index `tail` on."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.strip("/").split("/")]
    node: Any = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
    value = [] if value is MISSING or value is None else copy.deepcopy(value)
    if tail is None:
        node[last] = value
    else:
        node[last] = [*node[last][:tail], *value]


def _fill(template: str, values: Mapping[str, Any]) -> str:
    return re.sub(r"\{([^{}]+)\}", lambda m: str(values[m[1]]), template)


def unproven_values(facts: ChartFacts, leaves: Mapping[str, Any]) -> list[str]:
    """The release's values (and the facts' base values it leaves out) that the facts cannot account for."""
    out = []
    for path in sorted(set(leaves) | set(facts.base)):
        ours, base = leaves.get(path, MISSING), facts.base.get(path, MISSING)
        if path in facts.presence and ours is MISSING:
            out.append(f"{path} unset changes {', '.join(facts.presence[path])}, which the facts recorded set")
        elif path in facts.affects:  # checked first: a bound value may change more than its field
            if ours != base:
                changes = ", ".join(facts.affects[path])
                out.append(f"{path}={ours!r} changes {changes}, which the facts recorded only for {base!r}")
        elif path in leaves and path not in facts.bound and path not in facts.inert:
            out.append(f"{path} was never probed when {facts.chart} {facts.version} was rendered")
    return out


def render(facts: ChartFacts, values: Mapping[str, Any]) -> Rendering:
    """The release's workloads: the recorded ones (of the first variant that accounts for every value) with every
    bound value's field set from `values`. With none that does, the first variant's, and what it cannot prove."""
    first = _render(facts, values)
    if not first.unproven:
        return first
    for variant in facts.variants:
        rendering = _render(variant, values)
        if not rendering.unproven:
            return rendering
    return first


def _render(facts: ChartFacts, values: Mapping[str, Any]) -> Rendering:
    leaves = leaf_paths(values)
    effective = {
        b.value: coalesce(facts.defaults.get(b.value, MISSING), leaves.get(b.value, MISSING)) for b in facts.bindings
    }
    objects = (*facts.workloads, *facts.config_maps)
    by_name = {f"{w['kind']}/{w['name']}": copy.deepcopy(dict(w)) for w in objects}
    # Whole fields first, then values that sit inside a field (bound below it).
    for b in sorted(facts.bindings, key=lambda b: bool(b.path) or b.tail is not None):
        if b.path or b.tail is not None:
            _set_inside(by_name[b.workload], b.field + b.path, b.tail, effective[b.value])
            continue
        value = effective[b.value]
        if b.template is not None:
            value = _fill(b.template, {p: effective.get(p, facts.defaults.get(p, "")) for p in _names(b.template)})
        _set(by_name[b.workload], b.field, None if value is MISSING else copy.deepcopy(value))
    rendered = tuple(by_name.values())
    return Rendering(
        facts,
        tuple(w for w in rendered if w["kind"] != "ConfigMap"),
        tuple(w for w in rendered if w["kind"] == "ConfigMap"),
        tuple(unproven_values(facts, leaves)),
    )


def _names(template: str) -> list[str]:
    return re.findall(r"\{([^{}]+)\}", template)
