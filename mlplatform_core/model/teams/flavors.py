"""The layout's groups as Kueue ResourceFlavors, whatever provisions them.

A flavor selects its group's nodes with a label every node of the group carries and no other group's does
(layout/build.py: `mlplatform.io/node-group` on node groups and on the NodePools made from groups; Auto Mode's
built-in pools carry only Auto Mode's `karpenter.sh/nodepool`). Taints split two ways:
- the group's own capability taints (its GPU taint, a dedicated role taint) become the flavor's `tolerations`,
  which Kueue adds to the pods it admits on the flavor: a team with quota there is meant to run there;
- every other repelling taint (spot, CriticalAddonsOnly, a user's) becomes `nodeTaints`: Kueue gives the flavor
  only to workloads that tolerate them (kueue apis/kueue/v1beta2/resourceflavor_types.go, NodeTaints: "Workloads'
  podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor"), so the spot
  taint still keeps MLRun's prevent-mode jobs off spot nodes.
Capacity at max size: allocatable of the largest type per node (karpenter/capacity.py, the devices as the
device plugin advertises them: layout/sharing.py) x the group's max size, capped by a pool's limits.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

from .. import instances
from ..karpenter.capacity import allocatable, capacity
from ..layout import Layout, NodeGroupSpec
from ..layout.sharing import node_devices
from ..provisioners import launcher
from ..quantity import parse_quantity
from ..scheduling import GPU_RESOURCE, GROUP_LABEL, ROLE_LABEL, Taint, Toleration
from .spec import CPU, MEMORY, Flavor

NODEPOOL_LABEL = "karpenter.sh/nodepool"


def _gpu_resource(g: NodeGroupSpec) -> str | None:
    if not g.gpu:
        return None
    return g.sharing.resource if g.sharing is not None else GPU_RESOURCE


def _capability_taint(g: NodeGroupSpec, t: Taint) -> bool:
    return (g.gpu and t.key == (_gpu_resource(g) or GPU_RESOURCE)) or (t.key == ROLE_LABEL and t.value == g.role)


def _per_node(g: NodeGroupSpec) -> dict[str, Fraction] | None:
    """The most one node of the group offers pods: per resource, the largest of its types."""
    best: dict[str, Fraction] = {}
    for name in g.instance_types:
        info = instances.lookup(name)
        if info is None:
            return None
        alloc = allocatable(info) or capacity(info)
        if alloc is None:
            return None
        devices = node_devices(g, info)
        gpu = _gpu_resource(g)
        offered = {CPU: Fraction(alloc[CPU], 1000), MEMORY: Fraction(alloc[MEMORY])}
        if gpu:
            offered[gpu] = Fraction(devices.get(gpu, info.gpus if gpu == GPU_RESOURCE else 0))
        for r, v in offered.items():
            best[r] = max(best.get(r, Fraction(0)), v)
    return best


def _capacity(layout: Layout, g: NodeGroupSpec) -> tuple[dict[str, Fraction] | None, int | None]:
    if g.builtin:
        return None, None  # Auto Mode's built-in pools have no node limit
    per_node = _per_node(g)
    if per_node is None:
        return None, g.max_size
    out = {r: v * g.max_size for r, v in per_node.items()}
    pool = next((p for p in layout.node_pools if p.name == g.name), None)
    if pool is not None:
        for r in out:
            key = r if r != _gpu_resource(g) else GPU_RESOURCE
            if key in pool.limits and not (g.sharing is not None and r == _gpu_resource(g)):
                out[r] = min(out[r], parse_quantity(pool.limits[key]))
    return out, g.max_size


def flavor_of(layout: Layout, g: NodeGroupSpec) -> Flavor:
    """The ResourceFlavor of one layout group."""
    if GROUP_LABEL in g.labels:
        labels = {GROUP_LABEL: g.labels[GROUP_LABEL]}
    else:  # an Auto Mode built-in pool: its nodes carry the pool's name only
        labels = {NODEPOOL_LABEL: g.node_pool or g.name}
    repelling = [t for t in g.taints if t.repels]
    cap, max_nodes = _capacity(layout, g)
    return Flavor(
        name=g.name,
        group=g.name,
        kind=launcher(g).group_kind,
        capacity_type=g.capacity_type,
        node_labels=MappingProxyType(labels),
        node_taints=tuple(t for t in repelling if not _capability_taint(g, t)),
        tolerations=tuple(Toleration.for_taint(t) for t in repelling if _capability_taint(g, t)),
        gpu_resource=_gpu_resource(g),
        capacity=MappingProxyType(cap) if cap is not None else None,
        max_nodes=max_nodes,
        environment_role=g.role,
        config_path=g.config_path,
    )
