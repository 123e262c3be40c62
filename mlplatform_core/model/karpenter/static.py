"""Static capacity: nodes a group's NodePool keeps running whatever the pods ask (`staticNodes: N` on the group).

Pure Python. `static_pools` runs once in the layout build, after the provisioner has made its pools: each group
with `staticNodes` gets a static NodePool (`spec.replicas`). What each provisioner does with the setting is a
fact of the provisioner (`Provisioner.static_capacity`, model/provisioners/), from the constants here:
- karpenter: a NodePool with `replicas` is static (core pkg/apis/v1/nodepool.go, v1.14.1). The CRD's CEL rules
  (pkg/apis/crds/karpenter.sh_nodepools.yaml, on `spec`) allow only `limits.nodes` and no `weight` on it, and
  refuse switching an existing pool between static and dynamic. The controllers that keep the replicas run only
  with the StaticCapacity feature gate (core pkg/controllers/controllers.go: `FeatureGates.StaticCapacity`;
  the chart's `settings.featureGates.staticCapacity`, alpha, off by default), which the chart values turn on;
- autoMode: static-capacity node pools, the same field and the same constraints (EKS user guide, "Static
  Capacity Node Pools in EKS Auto Mode", 2025-11-19); AWS runs the controller, so there is no gate to set;
- nodeGroups: a managed node group keeps its minSize nodes running already, so the setting is refused there.
A static pool's `limits.nodes` stays the group's maxSize: the room drift and expiry replacements need above
the replicas (the user guide's advice: limits.nodes above replicas). The cost model counts the replicas as
always running (model/cost/capacity.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import StackConfig
from .spec import NodePoolSpec

Add = Callable[[tuple, str], None]
NODES_LIMIT = "nodes"  # the one limit a static NodePool may carry (CEL rule on the NodePool's spec)


@dataclass(frozen=True)
class StaticSupport:
    title: str  # for people
    feature_gate: str | None  # the controller chart's settings.featureGates key static pools need; None: none


# How each provisioner keeps a group's nodes warm, or (a string) why `staticNodes` does not apply there: the
# provisioners' `static_capacity` facts.
KARPENTER_STATIC = StaticSupport("Karpenter", "staticCapacity")
AUTO_MODE_STATIC = StaticSupport("EKS Auto Mode", None)
NODE_GROUPS_STATIC = (
    "a managed node group keeps its minSize nodes running already; set minSize (and desiredSize) to {n} "
    "instead, or use provisioner karpenter or autoMode for a static NodePool"
)


def _group_settings(cfg: StackConfig, name: str) -> tuple[Any, tuple]:
    for i, extra in enumerate(cfg.additional_node_groups):
        if extra.name == name:
            return extra, ("additionalNodeGroups", i)
    return cfg.node_groups.get(name), ("nodeGroups", name)


def _pool_problems(cfg: StackConfig, flavor: Any, g: Any, n: int, where: tuple, add: Add) -> None:
    if n > g.max_size:
        add(
            where,
            f"{n} is greater than the group's maxSize {g.max_size}: the pool's limits.nodes is maxSize, so it could "
            f"never run {n} nodes; raise maxSize to at least {n} (one more leaves room for replacements) or lower "
            "staticNodes",
        )
    ps = flavor.settings(cfg).node_pools.get(g.name) if flavor else None
    if ps is None:
        return
    ppath = (flavor.settings_key, "nodePools", g.name)
    for key in ps.limits:
        if key != NODES_LIMIT:
            add(
                ppath + ("limits", key),
                f"is set, but the group has staticNodes {n}: a static NodePool takes no limit but nodes (the "
                "NodePool CRD's CEL rule); remove it",
            )
    if ps.weight:
        add(
            ppath + ("weight",),
            f"{ps.weight}: the group has staticNodes {n}, and a static NodePool takes no weight (the NodePool "
            "CRD's CEL rule); remove it",
        )


def static_pools(
    cfg: StackConfig, provisioner: Any, groups: Sequence[Any], pools: Sequence[NodePoolSpec], add: Add
) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
    """The pools with `staticNodes` made static (replicas set, only the nodes limit). Problems go to `add`.
    `provisioner`: the stack's (model/provisioners), whose `static_capacity` and `flavor` say what applies."""
    support = provisioner.static_capacity
    by_name = {p.name: p for p in pools}
    for g in groups:
        o, path = _group_settings(cfg, g.name)
        n = getattr(o, "static_nodes", None)
        if n is None:
            continue
        where = path + ("staticNodes",)
        if not isinstance(support, StaticSupport):
            add(where, f"{n}: provisioner {cfg.provisioner} has no static NodePools: " + str(support).format(n=n))
        elif g.name not in by_name:
            add(
                where,
                f"{n}: group {g.name} gets no NodePool of the stack's with {support.title} (the initial group stays "
                "a managed node group, or becomes Auto Mode's built-in system pool), so it has no replicas to "
                f"set; a managed node group keeps its minSize nodes running already: set minSize (and "
                f"desiredSize) to {n} instead",
            )
        else:
            _pool_problems(cfg, provisioner.flavor, g, n, where, add)
            pool = by_name[g.name]
            limits = {k: v for k, v in pool.limits.items() if k == NODES_LIMIT}
            by_name[g.name] = dataclasses.replace(pool, replicas=n, limits=limits)
    return list(groups), tuple(by_name[p.name] for p in pools)


def feature_gates(support: StaticSupport | str, pools: Sequence[NodePoolSpec]) -> dict[str, bool]:
    """The controller chart's settings.featureGates the stack's static pools need (none without one)."""
    if isinstance(support, StaticSupport) and support.feature_gate and any(p.replicas for p in pools):
        return {support.feature_gate: True}
    return {}
