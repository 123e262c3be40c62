"""EFA, placement, zones, capacity reservations, GPU sharing and node repair of a group, mapped to its NodePool.

Pure Python, called by pools.py for every Karpenter pool. What Karpenter v1.14 offers (aws/karpenter-provider-aws
@ v1.14.1) and what each group setting becomes:
- efa: the pool narrows its types to EFA types and its EC2NodeClass adds the group's EFA security group; with
  efaInterfaces efaOnly (the default) the EC2NodeClass lists the interfaces (`networkInterfaces`: an ENA
  primary interface and `efa-only` ones, model/efa.py), which Karpenter attaches to every node and counts as its
  vpc.amazonaws.com/efa (instancetype/types.go `efas`); with `efa` Karpenter attaches every EFA interface a type
  supports, all `efa`, when a pending pod requests vpc.amazonaws.com/efa (instance/instance.go
  getEFACountForInstance, launchtemplate/launchtemplate.go generateNetworkInterfaces);
- placementGroup: the EC2NodeClass's `placementGroupSelector` (docs/concepts/nodeclasses.md) naming the
  cluster placement group the cluster program creates;
- availabilityZone / one AZ: a `topology.kubernetes.io/zone` requirement (Karpenter does not keep a cluster
  placement group's nodes in one zone by itself);
- capacityReservation: capacity type `reserved` and the EC2NodeClass's `capacityReservationSelectorTerms`
  (docs/tasks/odcrs.md; Capacity Blocks are reservations too, supported since v1.6; ReservedCapacity is a
  beta feature gate, on by default in v1.14);
- gpuSharing: refused. Karpenter plans nodes from the instance type's physical GPUs (types.go), so it would
  launch a node per shared GPU and never launch one for a MIG resource it does not know; teaching it needs its
  NodeOverlay API, alpha in v1.14 (feature gate nodeOverlay);
- nodeRepair on one group: refused. Karpenter's node repair is one controller-wide feature gate (NodeRepair,
  alpha in v1.14), set from the stack's `nodeRepair`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import efa as efa_model
from .. import instances
from ..config import show
from ..config.node_groups import NodeGroupSettings
from .spec import CAPACITY_TYPES, RESERVED, ZONE_LABEL, Requirement

Add = Callable[[tuple, str], None]


def capacity_type_of(group: Any) -> str:
    """The karpenter.sh/capacity-type of a group's nodes: reserved when it launches into a reservation."""
    return RESERVED if getattr(group, "reservation", None) is not None else CAPACITY_TYPES[group.capacity_type]


def pool_problems(g: Any, o: NodeGroupSettings, gpath: tuple, types: Sequence[str], add: Add) -> None:
    """The group settings a NodePool cannot honour, and EFA on families with types without it."""
    if o.gpu_sharing is not None:
        add(
            gpath + ("gpuSharing",),
            "is not supported with provisioner: karpenter: Karpenter 1.14 plans nodes from each type's physical GPUs, "
            "so it would launch a node per shared GPU and never one for a MIG device; its NodeOverlay API that "
            "could teach it is alpha. Use a managed node group for shared GPUs (provisioner: nodeGroups)",
        )
    if o.node_repair is not None:
        add(
            gpath + ("nodeRepair",),
            f"{show(o.node_repair)}: Karpenter's node repair is one controller-wide feature gate (NodeRepair, alpha "
            "in 1.14), not a pool setting; set the stack's nodeRepair instead",
        )
    efa_type_problems(g, o, gpath, types, add)


def efa_type_problems(g: Any, o: NodeGroupSettings, gpath: tuple, types: Sequence[str], add: Add) -> None:
    """An EFA pool that may launch types without EFA (either Karpenter)."""
    if o.efa:
        missing = [t for t in types if (info := instances.lookup(t)) is not None and info.known and not info.efa]
        if missing:
            add(
                gpath + ("efa",),
                f"true, but the pool may launch types without EFA ({', '.join(missing[:4])}"
                f"{'...' if len(missing) > 4 else ''}); choose EFA families and sizes (karpenter.nodePools."
                f"{g.name}.instanceFamilies/instanceSizes) or instance types",
            )


def zone_requirements(g: Any) -> list[Requirement]:
    """A single-zone pool's zone, when the stack names it (else the program adds the stack's first AZ)."""
    az = getattr(g, "availability_zone", None)
    return [Requirement(ZONE_LABEL, "In", (az,))] if az else []


def efa_interfaces(o: NodeGroupSettings, types: Sequence[str]) -> int:
    """The most EFA interfaces a node of the pool gets (the pool's types decide, not the group's instanceTypes)."""
    if not o.efa:
        return 0
    return max((t.efa_interfaces_per_node for t in map(instances.lookup, types) if t is not None), default=0)


def efa_only_problems(g: Any, o: NodeGroupSettings, gpath: tuple, types: Sequence[str], add: Add) -> None:
    """efaInterfaces efaOnly puts one list of interfaces in the EC2NodeClass (model/efa.py); Karpenter launches only
    the types that hold all of them (compatibility.go), so the pool's EFA types must have the same number."""
    if not o.efa or (o.efa_interfaces or efa_model.DEFAULT_LAYOUT) != efa_model.EFA_ONLY:
        return
    counts = {t: i.efa_interfaces_per_node for t in types if (i := instances.lookup(t)) is not None and i.efa}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{t} ({n})" for t, n in list(counts.items())[:6])
        add(
            gpath + ("efaInterfaces",),
            f"efaOnly (the default) gives every node of the pool the same EFA-only interfaces in its EC2NodeClass, "
            f"but its types have different numbers ({shown}{'...' if len(counts) > 6 else ''}) and Karpenter would "
            "never launch the types with fewer; narrow the pool to types with the same number of network cards, or "
            "set efaInterfaces: efa (Karpenter then attaches each type's own EFA interfaces, all of type efa)",
        )
