"""What the layout produces: one NodeGroupSpec per node group, gathered in a Layout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..config.stack import DEFAULT_KUBERNETES_VERSION
from ..karpenter.spec import NodePoolSpec
from ..scheduling import Taint

INITIAL = "initial"


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

    @property
    def autoscaled(self) -> bool:
        return self.min_size != self.max_size

    @property
    def preemptible(self) -> bool:
        return self.capacity_type == "SPOT"

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
    provisioner: str = "nodeGroups"  # or "karpenter": every group but the initial one is a NodePool
    node_pools: tuple[NodePoolSpec, ...] = ()  # one per Karpenter-provisioned group, in layout order
    # Migrating to Karpenter: the pools' groups as managed node groups, kept until their nodes are drained.
    retained_groups: tuple[NodeGroupSpec, ...] = ()
    # The cluster's Kubernetes minor: the add-on charts (and the images they run) follow it.
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    names: Mapping[str, NodeGroupSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", MappingProxyType({g.name: g for g in self.groups}))

    def group(self, name: str) -> NodeGroupSpec:
        return self.names[name]

    @property
    def spot_groups(self) -> tuple[NodeGroupSpec, ...]:
        return tuple(g for g in self.groups if g.preemptible)

    @property
    def gpu_groups(self) -> tuple[NodeGroupSpec, ...]:
        return tuple(g for g in self.groups if g.gpu)

    @property
    def managed_groups(self) -> tuple[NodeGroupSpec, ...]:
        """The EKS managed node groups: every group, unless Karpenter provisions all but the initial one
        (then that one, and while migrating the retained groups too)."""
        retained = {g.name: g for g in self.retained_groups}
        return tuple(retained.get(g.name, g) for g in self.groups if not g.karpenter or g.name in retained)


def root_device(ami_type: str) -> str:
    """The device the launch template must map to size and encrypt a node's container storage.

    Bottlerocket boots from a small OS volume; containers and images live on the second one.
    """
    return "/dev/xvdb" if ami_type.startswith("BOTTLEROCKET") else "/dev/xvda"
