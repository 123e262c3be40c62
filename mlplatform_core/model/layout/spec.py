"""What the layout produces: one NodeGroupSpec per node group, gathered in a Layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..config.karpenter_settings import NODE_GROUPS
from ..config.stack import DEFAULT_KUBERNETES_VERSION
from ..karpenter.spec import NodePoolSpec
from ..scheduling import Taint

INITIAL = "initial"
# While a stack migrates, the managed node groups and Karpenter pools it keeps run next to the new pools, often
# under the same group names: the placement proof names their nodes apart.
KEPT_NODE_GROUP = "{} (kept node group)"
KEPT_KARPENTER_POOL = "{} (kept Karpenter pool)"
CAPACITY_BLOCK = "CAPACITY_BLOCK"  # the EKS capacity type of a group launched into an EC2 Capacity Block for ML
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"  # the device plugin's resource per MIG profile with the mixed strategy


@dataclass(frozen=True)
class Reservation:
    """An EC2 capacity reservation the group launches into (launch template target / EC2NodeClass selector)."""

    id: str
    type: str  # on-demand (an On-Demand Capacity Reservation) or capacity-block (a Capacity Block for ML)
    instance_count: int | None  # None: not given; the group's maxSize is taken for it
    end: str | None = None  # ISO 8601 day or moment the reservation ends, when given
    placement_group: str | None = None  # the existing cluster placement group the reservation was created in

    @property
    def capacity_block(self) -> bool:
        return self.type == "capacity-block"


@dataclass(frozen=True)
class Sharing:
    """How the NVIDIA device plugin shares a group's GPUs: time-slicing, or MIG with one profile."""

    kind: str  # time-slicing | mig
    per_gpu: int  # devices per physical GPU: time-slicing replicas, or MIG instances of the profile
    strategy: str | None = None  # mig: single (advertised as nvidia.com/gpu) or mixed (nvidia.com/mig-<profile>)
    profile: str | None = None  # mig: e.g. 1g.10gb
    config: str = ""  # the device plugin config (and label value) of the group

    @property
    def resource(self) -> str:
        """The extended resource pods request on the group's nodes."""
        if self.kind == "mig" and self.strategy == "mixed":
            return f"{MIG_RESOURCE_PREFIX}{self.profile}"
        return "nvidia.com/gpu"

    @property
    def mig_config(self) -> str | None:
        """The mig-parted config the MIG manager applies (`nvidia.com/mig.config` label): every GPU in one profile."""
        return f"all-{self.profile}" if self.kind == "mig" else None


@dataclass(frozen=True)
class NodeGroupSpec:
    name: str
    role: str
    capacity_type: str  # ON_DEMAND or SPOT (EKS spelling)
    instance_types: tuple[str, ...]
    ami_type: str
    min_size: int
    max_size: int
    desired_size: int
    disk_size_gib: int
    max_unavailable: int
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    gpu: bool
    config_path: str  # where the group is configured, for messages
    karpenter: bool = False  # launched by a Karpenter NodePool (model/karpenter) instead of a managed node group
    auto_mode: bool = False  # ... of EKS Auto Mode's Karpenter (model/automode)
    # One of Auto Mode's built-in NodePools (system, general-purpose): AWS owns its template, so its nodes carry
    # none of the toolkit's labels and it has no pool or NodeClass of the stack's.
    builtin: bool = False
    node_pool: str = ""  # the NodePool's name when it is not the group's (model/automode/pools.py)
    # Multi-node training, reservations, sharing, health (model/layout/training.py, sharing.py):
    efa_interfaces: int = 0  # EFA interfaces per node, one per network card (0: no EFA)
    efa_layout: str = "efaOnly"  # efaOnly or efa: the interfaces' types and devices (model/efa.py)
    placement_group: bool = False  # in a cluster placement group: its own, or its reservation's (by name)
    availability_zone: str | None = None  # the one AZ of a single-zone group; None: the stack's first AZ
    reservation: Reservation | None = None
    sharing: Sharing | None = None
    node_repair: bool = False  # EKS node auto repair (managed node groups)
    gpu_allocation: str = "devicePlugin"

    @property
    def autoscaled(self) -> bool:
        return self.min_size != self.max_size

    @property
    def preemptible(self) -> bool:
        return self.capacity_type == "SPOT"

    @property
    def efa(self) -> bool:
        return self.efa_interfaces > 0

    @property
    def single_zone(self) -> bool:
        """Nodes in one AZ (one subnet): EFA, a placement group, a capacity reservation or an explicit AZ."""
        return self.efa or self.placement_group or self.reservation is not None or self.availability_zone is not None

    @property
    def is_initial(self) -> bool:
        """A group for core services: the built-in initial group, or any group with role initial."""
        return self.role == INITIAL


@dataclass(frozen=True)
class Layout:
    environment: str
    cluster_name: str
    groups: tuple[NodeGroupSpec, ...]
    spot_taint: Taint
    imds_hop_limit: int = 1
    provisioner: str = "nodeGroups"  # or "karpenter", "autoMode": every group but the initial one is a NodePool
    node_pools: tuple[NodePoolSpec, ...] = ()  # one per Karpenter-provisioned group, in layout order
    # Migrating to Karpenter: the pools' groups as managed node groups, kept until their nodes are drained.
    retained_groups: tuple[NodeGroupSpec, ...] = ()
    # Migrating from Karpenter to Auto Mode: Karpenter's pools, kept until their nodes are drained.
    retained_pools: tuple[NodePoolSpec, ...] = ()
    # ... and their groups as Karpenter launches them (labels, taints, the types it may launch): the proof's view.
    retained_pool_groups: tuple[NodeGroupSpec, ...] = ()
    # The cluster's Kubernetes minor: the add-on charts (and the images they run) follow it.
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    # Stack-wide add-on choices the node agents depend on (config: nodeRepair, gpuMetrics, podIdentity).
    node_repair: bool = True
    gpu_metrics: bool = False
    pod_identity: bool = False
    names: Mapping[str, NodeGroupSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", MappingProxyType({g.name: g for g in self.groups}))

    def group(self, name: str) -> NodeGroupSpec:
        return self.names[name]

    @property
    def node_sources(self) -> tuple[tuple[str, NodeGroupSpec], ...]:
        """Every kind of node the cluster has, by the name the placement proof gives it: the layout's groups, and
        while a stack migrates the managed node groups (keepNodeGroups) and Karpenter pools (keepKarpenter) it
        keeps. Those run until drained, so pods may land on them; their names say they are the kept ones."""
        return (
            tuple((g.name, g) for g in self.groups)
            + tuple((KEPT_NODE_GROUP.format(g.name), g) for g in self.retained_groups)
            + tuple((KEPT_KARPENTER_POOL.format(g.name), g) for g in self.retained_pool_groups)
        )

    def source_name(self, spec: object) -> str:
        """The proof's name of a group, kept group or kept pool (a NodeGroupSpec or a kept NodePoolSpec)."""
        for name, g in self.node_sources:
            if g is spec:
                return name
        if any(p is spec for p in self.retained_pools):
            return KEPT_KARPENTER_POOL.format(spec.name)  # type: ignore[attr-defined]
        return spec.name  # type: ignore[attr-defined]

    @property
    def runs_cluster_autoscaler(self) -> bool:
        """Only node-group stacks run the Cluster Autoscaler: next to Karpenter or Auto Mode two autoscalers would
        launch nodes for the same pending pods (addons/releases.addons_of). So the managed node groups a migrating
        stack keeps scale no more: they hold the nodes they have until drained and removed."""
        return self.provisioner == NODE_GROUPS

    @property
    def spot_groups(self) -> tuple[NodeGroupSpec, ...]:
        return tuple(g for g in self.groups if g.preemptible)

    @property
    def gpu_groups(self) -> tuple[NodeGroupSpec, ...]:
        return tuple(g for g in self.groups if g.gpu)

    @property
    def managed_groups(self) -> tuple[NodeGroupSpec, ...]:
        """The EKS managed node groups: every group, unless NodePools provision all but the initial one
        (then that one, and while migrating the retained groups too: with Auto Mode's system pool in the
        initial group's place, the initial group as well)."""
        retained = {g.name: g for g in self.retained_groups}
        kept = tuple(retained.pop(g.name, g) for g in self.groups if not g.karpenter or g.name in retained)
        return tuple(retained.values()) + kept  # left over: groups whose place a built-in pool took


def root_device(ami_type: str) -> str:
    """The device the launch template must map to size and encrypt a node's container storage.

    Bottlerocket boots from a small OS volume; containers and images live on the second one.
    """
    return "/dev/xvdb" if ami_type.startswith("BOTTLEROCKET") else "/dev/xvda"
