"""Checks of the workload layer: priority classes, namespace defaults and MLRun's view of spot nodes.

These read Kubernetes objects the program registers with pulumi_kubernetes
(PriorityClass, Namespace, LimitRange, ConfigMap). Stack rules report objects
that are missing, not only objects that are wrong.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from mlplatform_core.model.resource_types import K8S_CONFIG_MAP, K8S_LIMIT_RANGE, K8S_NAMESPACE, K8S_PRIORITY_CLASS

from .karpenter_pools import pools_in
from .layout import groups_in
from .props import entries, fmt, get, items, known, number, quantity, tolerates

TIERS = ("low", "medium", "high")
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
TOLERATIONS_KEY = "MLRUN_PREEMPTIBLE_NODES__TOLERATIONS"
NODE_SELECTOR_KEY = "MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR"


def object_name(resource: Any) -> Any:
    """metadata.name, or the Pulumi name when the object is auto-named."""
    name = get(resource.props, "metadata", "name")
    return name if known(name) and name else resource.name


def holds_kubernetes_layer(args: Any) -> bool:
    """Whether the stack deploys Kubernetes objects: not the cluster stack of a separate Kubernetes layer."""
    return any(r.resource_type.startswith("kubernetes:") for r in args.resources)


# --- priority classes ----------------------------------------------------------------------------


def _tier_of(name: str, names: Mapping[str, Any]) -> str | None:
    for tier in TIERS:
        configured = names.get(tier)
        if configured and name == configured:
            return tier
    if "system" in name:  # igz-system-* are platform classes, allowed to preempt
        return None
    for tier in TIERS:
        if not names.get(tier) and name.endswith(f"-{tier}"):
            return tier
    return None


def priority_classes(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    if not holds_kubernetes_layer(args):  # the classes live in the stack that holds the Kubernetes layer
        return
    names = cfg["classNames"] or {}
    found: dict[str, list[Any]] = {t: [] for t in TIERS}
    for r in args.resources:
        if r.resource_type == K8S_PRIORITY_CLASS:
            name = object_name(r)
            tier = _tier_of(name, names) if isinstance(name, str) else None
            if tier:
                found[tier].append(r)
    for tier in TIERS:
        if not found[tier]:
            want = names.get(tier) or f"<prefix>-{tier} (e.g. igz-workload-{tier})"
            yield (
                f"no PriorityClass for the {tier} tier: expected one named {want}; jobs cannot ask for {tier} priority",
                None,
            )
        for r in found[tier]:
            policy = get(r.props, "preemptionPolicy")
            if known(policy) and policy != "Never":
                shown = "unset (PreemptLowerPriority)" if policy is None else fmt(policy)
                yield (
                    f"PriorityClass {object_name(r)} has preemptionPolicy {shown}; user workload classes must "
                    "use Never so they go first in the queue without evicting running pods",
                    r.urn,
                )
    values = {t: number(get(found[t][0].props, "value")) for t in TIERS if found[t]}
    ranked = [(t, v) for t, v in values.items() if v is not None]
    for (lo_tier, lo), (hi_tier, hi) in itertools.pairwise(ranked):
        if lo >= hi:
            yield (
                f"PriorityClass values do not rank {lo_tier} < {hi_tier}: {fmt(lo)} >= {fmt(hi)}",
                found[hi_tier][0].urn,
            )


# --- namespaces and their defaults ----------------------------------------------------------------


def _limit_ranges_by_namespace(args: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in args.resources:
        if r.resource_type == K8S_LIMIT_RANGE:
            ns = get(r.props, "metadata", "namespace")
            out.setdefault(ns if isinstance(ns, str) else "default", []).append(r)
    return out


def namespace_limit_ranges(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    exempt = set(SYSTEM_NAMESPACES) | set(cfg["exemptNamespaces"])
    by_ns = _limit_ranges_by_namespace(args)
    for r in args.resources:
        if r.resource_type != K8S_NAMESPACE:
            continue
        name = object_name(r)
        if not isinstance(name, str) or name in exempt or name.startswith("kube-"):
            continue
        containers = [
            lr
            for lr in by_ns.get(name, [])
            if any(get(item, "type") == "Container" for item in items(get(lr.props, "spec", "limits", default=[])))
        ]
        if not containers:
            yield (
                f"namespace {name} has no LimitRange of type Container; pods that set no requests get none, "
                "and the autoscaler and scheduler cannot plan for them",
                r.urn,
            )


def guaranteed_qos_defaults(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    for ns, ranges in sorted(_limit_ranges_by_namespace(args).items()):
        for lr in ranges:
            for item in items(get(lr.props, "spec", "limits", default=[])):
                if get(item, "type") != "Container":
                    continue
                request = entries(get(item, "defaultRequest", default={}))
                limit = entries(get(item, "default", default={}))
                ceiling = entries(get(item, "max", default={}))
                for res in ("cpu", "memory"):
                    # Kubernetes' defaulting: a missing default takes max, a missing defaultRequest the default.
                    lim = limit.get(res) if limit.get(res) is not None else ceiling.get(res)
                    req = request.get(res) if request.get(res) is not None else lim
                    if not (known(req) and known(lim)):
                        continue
                    if lim is None or quantity(req) != quantity(lim):
                        yield (
                            f"LimitRange {object_name(lr)} in namespace {ns}: default {res} request "
                            f"{fmt(req) if req is not None else 'unset'} != limit "
                            f"{fmt(lim) if lim is not None else 'unset'}; prod pods that set nothing would "
                            "not be Guaranteed QoS",
                            lr.urn,
                        )


# --- MLRun's view of spot nodes ---------------------------------------------------------------------


def _b64json(text: Any, what: str) -> tuple[Any, str | None]:
    if not isinstance(text, str):
        return None, f"{what} is not a string"
    try:
        return json.loads(base64.b64decode(text, validate=True)), None
    except (binascii.Error, ValueError) as exc:
        return None, f"{what} is not base64-encoded JSON ({exc})"


def spot_settings(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    groups = [*groups_in(args), *pools_in(args)]  # Karpenter NodePools are groups of nodes too
    spot = [g for g in groups if g.spot]
    # Needs the node groups and the ConfigMap in one stack; with a separate Kubernetes layer they are in two,
    # and the offline placement proof (placement-invariants) checks the settings against the layout instead.
    if not spot or not holds_kubernetes_layer(args):
        return
    maps = [
        r
        for r in args.resources
        if r.resource_type == K8S_CONFIG_MAP and TOLERATIONS_KEY in entries(get(r.props, "data", default={}))
    ]
    if not maps:
        yield (
            f"the stack has spot node groups but no ConfigMap carries {TOLERATIONS_KEY}; MLRun's preemption "
            "modes do nothing without tolerations and a node selector for spot nodes",
            None,
        )
        return
    on_demand = [g for g in groups if not g.spot]
    for cm in maps:
        for message in _config_map_problems(cm, spot, on_demand):
            yield message, cm.urn


def _config_map_problems(cm: Any, spot: list, on_demand: list) -> Iterator[str]:
    """What is wrong with one ConfigMap of MLRun's preemptible-node settings against the stack's groups."""
    data = entries(get(cm.props, "data", default={}))
    where = f"ConfigMap {object_name(cm)}"
    if not (known(data.get(TOLERATIONS_KEY)) and known(data.get(NODE_SELECTOR_KEY, ""))):
        return  # computed during a preview; checked on the next run
    tolerations, err = _b64json(data.get(TOLERATIONS_KEY), TOLERATIONS_KEY)
    if err or not isinstance(tolerations, list) or not all(isinstance(t, dict) for t in tolerations):
        yield f"{where}: {err or TOLERATIONS_KEY + ' is not a JSON list of tolerations'}"
        return
    selector, err = _b64json(data.get(NODE_SELECTOR_KEY), NODE_SELECTOR_KEY)
    if err or not isinstance(selector, dict):
        yield f"{where}: {err or NODE_SELECTOR_KEY + ' is not a JSON object of node labels'}"
        return
    yield from _toleration_problems(where, tolerations, spot, on_demand)
    yield from _selector_problems(where, selector, spot, on_demand)


def _toleration_problems(where: str, tolerations: list, spot: list, on_demand: list) -> Iterator[str]:
    """MLRun's tolerations must reach every spot group's spot taints and no on-demand group's."""
    if not tolerations:
        yield f"{where}: {TOLERATIONS_KEY} is empty; allow and constrain modes could not reach spot nodes"
    od_taints = {t for g in on_demand for t in g.taints if t.repels}
    for g in spot:
        # The taints that mark spot capacity: repelling and on no on-demand group (a GPU taint is not one).
        for taint in (t for t in g.taints if t.repels and t not in od_taints):
            if tolerations and not any(tolerates(tol, taint) for tol in tolerations):
                yield (
                    f"{where}: no MLRun toleration tolerates taint {taint} of spot group "
                    f"{g.name}; allow/constrain-mode functions cannot be scheduled there"
                )
    for taint in sorted(od_taints):
        opened = [tol for tol in tolerations if tolerates(tol, taint)]
        if opened:
            yield (
                f"{where}: MLRun tolerations {json.dumps(opened)} also tolerate {taint} of an "
                "on-demand group, opening those nodes to every preemptible job"
            )


def _selector_problems(where: str, selector: dict, spot: list, on_demand: list) -> Iterator[str]:
    """MLRun's node selector must match every spot group and no on-demand group."""
    if not selector:
        yield f"{where}: {NODE_SELECTOR_KEY} is empty; constrain mode would not keep functions on spot nodes"
    for key, value in sorted(selector.items()):
        lacking = [g.name for g in spot if g.labels.get(key) != value]
        if lacking:
            yield f"{where}: node selector {key}={value} is not a label of spot group(s) {', '.join(lacking)}"
        shared = [g.name for g in on_demand if g.labels.get(key) == value]
        if shared:
            yield (
                f"{where}: node selector {key}={value} also matches on-demand group(s) "
                f"{', '.join(shared)}; constrain mode would not keep functions on spot nodes"
            )
