"""Multi-node training and reserved capacity: EFA, placement groups, one AZ and capacity reservations of a group.

Pure Python, called by the layout build for every group. What each setting becomes (components/node_group.py
and the Karpenter pools apply it):
- `efa: true`: every EFA interface the type supports, one per network card (instance catalog: EC2
  MaximumEfaInterfaces and the network cards), in a launch template laid out as `efaInterfaces` says (model/efa.py:
  `efaOnly`, the default, an ENA primary interface and EFA-only interfaces; `efa`, every interface EFA); the
  nodes in one AZ and a cluster placement group (`placementGroup: none` opts out), a security group letting EFA
  traffic flow between them;
- `availabilityZone`: the group's one AZ (one subnet); unset on a single-zone group: the stack's first AZ;
- `capacityReservation`: the launch template targets the reservation (EKS user guide capacity-blocks-mng.adoc:
  a Capacity Block needs `instanceMarketOptions.marketType: capacity-block`, the reservation target and the
  instance type in the launch template, capacity type CAPACITY_BLOCK, only the reservation's AZ), so the
  group has exactly one instance type, sits in the reservation's AZ and holds at most its instances; a
  Capacity Block group scales to zero outside the block (EKS scales it down 40 minutes before the end);
- a reservation and a placement group: the group never gets a new placement group (see _placement).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from .. import efa as efa_model
from .. import eks_versions, instances
from ..config import StackConfig, show
from ..config.node_groups import NodeGroupSettings
from ..provisioners import provisioner_of
from .spec import CAPACITY_BLOCK, INITIAL, Reservation

Add = Callable[[tuple, str], None]


def efa_examples(n: int = 4) -> list[str]:
    """NVIDIA GPU types with the most EFA interfaces, for messages."""
    found = [t for t in instances.catalog().values() if t.nvidia_gpu and t.efa]
    return [t.name for t in sorted(found, key=lambda t: (-t.efa_interfaces, t.name))[:n]]


def _efa_interfaces(o: NodeGroupSettings, name: str, role: str, types: tuple[str, ...], path: tuple, add: Add) -> int:
    if not o.efa and o.efa_interfaces is not None:
        add(
            path + ("efaInterfaces",),
            f"{show(o.efa_interfaces)}: lays out the interfaces of an EFA group, but efa is not true; remove it "
            "(or set efa: true)",
        )
    if not o.efa:
        if o.placement_group == "none":
            add(
                path + ("placementGroup",),
                "none: only opts out of the cluster placement group efa: true implies; without efa the group has "
                "no placement group, so remove it",
            )
        return 0
    if role == INITIAL:
        add(path + ("efa",), "true: the initial group runs core services in every AZ; put EFA on a training group")
        return 0
    counts: dict[str, int] = {}
    for i, itype in enumerate(types):
        info = instances.lookup(itype)
        if info is None:
            continue  # the catalog check names it
        if not info.efa:
            where = path + ("instanceTypes", i) if o.instance_types else path + ("instanceTypes",)
            add(
                where,
                f"{show(itype)} has no EFA (EC2 lists no EFA interfaces for it), but efa is true; EFA types "
                f"include {', '.join(efa_examples())}",
            )
            continue
        counts[itype] = info.efa_interfaces_per_node
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{t} ({n})" for t, n in counts.items())
        add(
            path + ("instanceTypes",),
            f"EFA interfaces per node differ ({shown}); one launch template gives every node the same "
            "interfaces, so use types with the same number of network cards",
        )
    return max(counts.values(), default=0)


def _zone(o: NodeGroupSettings, cfg: StackConfig, path: tuple, add: Add) -> str | None:
    az = o.availability_zone
    if az is not None and not (az.startswith(cfg.region) and len(az) == len(cfg.region) + 1):
        add(
            path + ("availabilityZone",),
            f"{show(az)} is not an Availability Zone of {cfg.region} (its zones are {cfg.region}a, "
            f"{cfg.region}b, ...: the region's name and a letter)",
        )
        return None
    return az


def _reservation_problems(
    o: NodeGroupSettings,
    r: Any,
    wanted: str,
    role: str,
    types: tuple[str, ...],
    sizes: tuple[int, int],
    path: tuple,
    add: Add,
) -> None:
    """What a group launching into reservation `r` (of capacity type `wanted`) must match."""
    rpath = path + ("capacityReservation",)
    block = r.type == "capacity-block"
    if o.capacity_type is not None and o.capacity_type != wanted:
        add(
            path + ("capacityType",),
            f"{show(o.capacity_type)}, but a capacityReservation of type {r.type} launches {wanted} capacity; "
            f"remove capacityType (or set {wanted})",
        )
    if o.availability_zone is None:
        add(
            path + ("availabilityZone",),
            f"missing: capacityReservation {r.id} holds instances in one AZ; set availabilityZone to it (aws ec2 "
            f"describe-capacity-reservations --capacity-reservation-ids {r.id} --query "
            "'CapacityReservations[0].AvailabilityZone')",
        )
    if len(types) != 1:
        add(
            path + ("instanceTypes",),
            f"{show(list(types))}: a capacity reservation is for one instance type, which the launch template "
            "names; list only the reservation's type",
        )
    # Capacity Blocks sell accelerated instances only (EC2 API reference, CapacityBlock: "Reserve powerful GPU
    # instances ... for your short duration machine learning (ML) workloads"; P and Trainium types).
    plain = [t for t in types if (i := instances.lookup(t)) is not None and i.known and not i.accelerated]
    if block and plain:
        add(
            path + ("instanceTypes",),
            f"{', '.join(plain)}: capacity-block, but Capacity Blocks for ML are sold for GPU and Trainium "
            "types only (e.g. p5.48xlarge, p4d.24xlarge, trn1.32xlarge); for other types use an On-Demand "
            "Capacity Reservation (type: on-demand)",
        )
    min_size, max_size = sizes
    if block and role == INITIAL:
        add(rpath + ("type",), "capacity-block: the initial group must always run, and a Capacity Block ends")
    elif block and min_size:
        add(
            path + ("minSize",),
            f"{min_size}: a Capacity Block group scales to zero outside its block (EKS scales it down 40 minutes "
            "before the block ends), so minSize must be 0",
        )
    if r.instance_count is not None and max_size > r.instance_count:
        add(
            path + ("maxSize",),
            f"{max_size} is more than the {r.instance_count} instances capacityReservation {r.id} holds; "
            "a targeted launch beyond them fails, so maxSize must be <= instanceCount",
        )


def _reservation(
    o: NodeGroupSettings,
    role: str,
    capacity: str,
    types: tuple[str, ...],
    sizes: tuple[int, int],
    path: tuple,
    add: Add,
) -> tuple[Reservation | None, str]:
    """The reservation and the group's EKS capacity type."""
    r = o.capacity_reservation
    if r is None:
        if capacity == CAPACITY_BLOCK:
            add(
                path + ("capacityType",),
                "CAPACITY_BLOCK needs capacityReservation: {id: cr-..., type: capacity-block} naming the block",
            )
        return None, capacity
    rpath = path + ("capacityReservation",)
    wanted = CAPACITY_BLOCK if r.type == "capacity-block" else "ON_DEMAND"
    _reservation_problems(o, r, wanted, role, types, sizes, path, add)
    end = None
    if r.end_date is not None:
        day = r.end_date.date() if isinstance(r.end_date, datetime.datetime) else r.end_date
        if day < eks_versions.today():
            add(rpath + ("endDate",), f"{r.end_date.isoformat()} is past: the reservation has ended")
        end = r.end_date.isoformat()
    return Reservation(r.id, r.type, r.instance_count, end, r.placement_group), wanted


def _placement(o: NodeGroupSettings, only_when_asked: bool, path: tuple, add: Add) -> bool:
    """Whether the group gets a cluster placement group of its own (efa implies one; placementGroup decides).

    Not with a capacity reservation, whose instances can only launch where the reservation was made:
    - Capacity Block: EC2 already places a block's instances close together and says a cluster placement group
      is not needed (EC2 user guide capacity-blocks-using: "there is no need to use a cluster placement group
      with a Capacity Block"; API reference CapacityBlock: "automatically placed close together inside Amazon
      EC2 UltraClusters"), and the block was not created in a group this stack makes; so efa implies none;
    - On-Demand Capacity Reservation: capacity in a cluster placement group is reserved only by creating the
      reservation in that group, and an existing reservation cannot be moved into one (EC2 user guide cr-cpg,
      "Limitations"); a group the stack creates never holds the reservation, so a targeted launch into it would
      fail. Refused unless capacityReservation.placementGroup names the existing cluster placement group the
      reservation was created in (the nodes launch into that one), or placementGroup: none.
    Auto Mode pools get a placement group only when asked for (`placementGroup: cluster`, or the reservation's
    `placementGroup`): their NodeClass selects it (`placementGroupSelector`, EKS user guide "Manage EFA devices");
    efa alone implies none there (karpenter/pools.py drops it), so an Auto Mode EFA pool planned before keeps its
    nodes and an on-demand reservation (`only_when_asked`, the provisioner's placement_group_only_when_asked). While
    a migration keeps the node groups, the same group is also a managed node group that gets efa's placement group,
    so the on-demand refusal holds for it.
    """
    wanted = (bool(o.efa) and o.placement_group != "none") or o.placement_group == "cluster"
    r = o.capacity_reservation
    if r is not None and r.placement_group is not None:
        rpath = path + ("capacityReservation", "placementGroup")
        if r.type == "capacity-block":
            add(rpath, f"{show(r.placement_group)}: a Capacity Block is in no placement group; remove it")
        elif o.placement_group == "none":
            add(
                path + ("placementGroup",),
                f"none, but capacityReservation.placementGroup says reservation {r.id} was created in placement "
                f"group {r.placement_group}, so its instances launch there; remove one of the two",
            )
        else:  # Auto Mode too: its NodeClass selects the group by name (placementGroupSelector)
            return True  # the reservation's own group, by name (components/training_network.py)
        return False
    if r is None or not wanted or (only_when_asked and o.placement_group is None):
        return wanted
    why = "cluster" if o.placement_group == "cluster" else "cluster (implied by efa: true)"
    if r.type == "capacity-block":
        if o.placement_group == "cluster":
            add(
                path + ("placementGroup",),
                f"cluster, but capacityReservation {r.id} is a Capacity Block: EC2 already places a block's "
                "instances close together (no cluster placement group needed) and the block is not in a placement "
                "group this stack creates (its capacity was not reserved there); remove placementGroup",
            )
        return False
    add(
        path + ("placementGroup",),
        f"{why}, but capacityReservation {r.id} (on-demand) cannot be used from a placement group this stack "
        "creates: EC2 reserves capacity in a cluster placement group only for a reservation created in that group, "
        "and an existing reservation cannot be moved into one, so every targeted launch would fail; if the "
        "reservation was created in a cluster placement group, name it (capacityReservation.placementGroup: "
        "NAME), else set placementGroup: none (the nodes launch into the reservation without a placement group)",
    )
    return False


def default_max_size(o: NodeGroupSettings, base_max: int) -> int:
    """A reservation's group grows to the reservation's size unless maxSize says otherwise."""
    r = o.capacity_reservation
    if o.max_size is None and r is not None and r.instance_count is not None:
        return r.instance_count
    return base_max


def training_fields(
    name: str,
    role: str,
    o: NodeGroupSettings,
    cfg: StackConfig,
    capacity: str,
    types: tuple[str, ...],
    sizes: tuple[int, int],
    path: tuple,
    add: Add,
) -> dict:
    """The NodeGroupSpec fields of a group's EFA, placement, zone and reservation (problems go to `add`)."""
    efa = _efa_interfaces(o, name, role, types, path, add)
    reservation, capacity_type = _reservation(o, role, capacity, types, sizes, path, add)
    if reservation is not None and capacity == "SPOT" and o.capacity_type is None:
        add(path + ("capacityType",), "SPOT: a capacity reservation holds on-demand capacity, never spot")
    return {
        "efa_interfaces": efa,
        "efa_layout": o.efa_interfaces or efa_model.DEFAULT_LAYOUT,
        "placement_group": _placement(o, provisioner_of(cfg).placement_group_only_when_asked(cfg), path, add),
        "availability_zone": _zone(o, cfg, path, add),
        "reservation": reservation,
        "capacity_type": capacity_type,
        "node_repair": cfg.node_repair if o.node_repair is None else o.node_repair,
    }
