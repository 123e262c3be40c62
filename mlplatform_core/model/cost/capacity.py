"""What the estimate prices: node capacity described the same way whatever provisions it.

A managed node group hands the estimate its instance types and min / desired / max size. Anything else
that starts nodes (a Karpenter NodePool: its instance-type candidates and its node limit) can hand the
same `Capacity`, so the cost model does not need to know the provisioner.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from ..karpenter.spec import NodePoolSpec
from ..layout import Layout, NodeGroupSpec

# How the price per node is chosen among several instance types:
#   first    the provisioner launches the types in the listed order (managed node groups, on-demand:
#            the `prioritized` allocation strategy) -> the first type's price, the others as a range;
#   highest  the provisioner picks among the types by price and capacity at launch time (managed node
#            groups, spot: `price-capacity-optimized`) -> the highest price is an upper bound per node.
# EKS user guide, latest/ug/nodes/managed-node-groups.adoc ("The allocation strategy to provision On-Demand
# capacity is set to `prioritized`"; spot: "price-capacity-optimized" on Kubernetes 1.28 and later).
PricedBy = Literal["first", "highest"]


@dataclass(frozen=True)
class Capacity:
    name: str
    kind: str  # what provisions it, for people: "node group", "node pool"
    capacity_type: str  # ON_DEMAND or SPOT
    instance_types: tuple[str, ...]
    min_nodes: int  # running with no user workloads (the idle floor)
    desired_nodes: int  # running right after creation
    max_nodes: int  # the most it can grow to (the ceiling)
    priced_by: PricedBy
    root_volume_gib: int | None = None  # EBS per node, None when the provisioner does not say
    gpu: bool = False
    # A capacity reservation the nodes launch into (on-demand or capacity-block): its instances are paid whether
    # they run or not, so every size counts all of them; `reservation_end` says when a block ends.
    reservation: str | None = None
    reservation_id: str | None = None
    reservation_end: str | None = None

    @property
    def spot(self) -> bool:
        return self.capacity_type == "SPOT"


def _reserved(group: NodeGroupSpec, capacity: Capacity) -> Capacity:
    """Reserved capacity is paid whether used or not: all of the reservation's instances at every size (its
    instanceCount, else the group's maxSize, which the layout caps at the count)."""
    r = group.reservation
    if r is None:
        return capacity
    n = r.instance_count or group.max_size
    return dataclasses.replace(
        capacity,
        capacity_type="ON_DEMAND",
        min_nodes=n,
        desired_nodes=n,
        max_nodes=n,
        priced_by="first",
        reservation=r.type,
        reservation_id=r.id,
        reservation_end=r.end,
    )


def node_group_capacity(group: NodeGroupSpec) -> Capacity:
    """A managed node group as the estimate sees it."""
    return _reserved(
        group,
        Capacity(
            name=group.name,
            kind="node group",
            capacity_type=group.capacity_type,
            instance_types=group.instance_types,
            min_nodes=group.min_size,
            desired_nodes=group.desired_size,
            max_nodes=group.max_size,
            priced_by="highest" if group.preemptible else "first",
            root_volume_gib=group.disk_size_gib,
            gpu=group.gpu,
        ),
    )


def node_pool_capacity(pool: NodePoolSpec, group: NodeGroupSpec) -> Capacity:
    """A Karpenter NodePool: no node until a pod is pending (a static one: its replicas, always), at most its node
    limit, and the instance type chosen per launch from every type the pool allows (on-demand: the cheapest that
    fits; spot: price and capacity), so the dearest type bounds the price per node."""
    return _reserved(
        group,
        Capacity(
            name=pool.name,
            kind="node pool",
            capacity_type=group.capacity_type,
            instance_types=pool.instance_types,
            min_nodes=pool.replicas or 0,  # a static pool's replicas always run (karpenter/static.py)
            desired_nodes=pool.replicas or 0,
            max_nodes=pool.max_nodes,
            priced_by="highest",
            root_volume_gib=group.disk_size_gib,
            gpu=group.gpu,
        ),
    )


def stack_capacity(layout: Layout) -> list[Capacity]:
    """Everything that starts nodes: the managed node groups, then the NodePools (while migrating both: the
    retained groups, or Karpenter's pools next to Auto Mode's, run until they are drained)."""
    kept = [
        dataclasses.replace(node_pool_capacity(pool, layout.group(pool.name)), kind="Karpenter pool (kept)")
        for pool in layout.retained_pools
    ]
    retained = {id(g) for g in layout.retained_groups}

    def group(g: NodeGroupSpec) -> Capacity:
        # No autoscaler runs next to the pools: a kept group holds the nodes it had (between its min and max)
        # until it is drained and removed.
        capacity = node_group_capacity(g)
        kept = id(g) in retained
        return dataclasses.replace(capacity, kind="node group (kept, not autoscaled)") if kept else capacity

    return (
        [group(g) for g in layout.managed_groups]
        + [node_pool_capacity(pool, layout.group(pool.name)) for pool in layout.node_pools]
        + kept
    )
