"""What a Karpenter-provisioned group becomes: one NodePoolSpec (NodePool + its EC2NodeClass), plain data.

Everything a reader of the pool needs is a field: the cost model reads `instance_types` (every
catalog type the pool may launch) and `max_nodes`; the placement proof reads the group's labels and
taints plus `instance_types`; the manifests renderer reads the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..scheduling import Taint

NODE_POOL_API = "karpenter.sh/v1"
NODE_CLASS_API = "karpenter.k8s.aws/v1"
NODE_CLASS_GROUP, NODE_CLASS_KIND = "karpenter.k8s.aws", "EC2NodeClass"

# Labels Karpenter puts on every node it launches (core pkg/apis/v1/labels.go).
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
NODECLASS_LABEL = "karpenter.k8s.aws/ec2nodeclass"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ARCH_LABEL = "kubernetes.io/arch"
OS_LABEL = "kubernetes.io/os"
ZONE_LABEL = "topology.kubernetes.io/zone"
# The tag EC2NodeClasses select the cluster's subnets and security group by (upstream convention).
DISCOVERY_TAG = "karpenter.sh/discovery"

SPOT, ON_DEMAND, RESERVED = "spot", "on-demand", "reserved"  # karpenter.sh/capacity-type values
CAPACITY_TYPES = {"SPOT": SPOT, "ON_DEMAND": ON_DEMAND}  # EKS spelling -> Karpenter spelling


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte
    values: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out

    def __str__(self) -> str:
        return (
            f"{self.key} {self.operator} [{', '.join(self.values)}]" if self.values else f"{self.key} {self.operator}"
        )


@dataclass(frozen=True)
class Budget:
    """A disruption budget: at most `nodes` (count or percentage) disrupted at once, for `reasons` (all if empty)."""

    nodes: str
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodes": self.nodes}
        if self.reasons:
            out["reasons"] = list(self.reasons)
        return out


@dataclass(frozen=True)
class BlockDevice:
    device_name: str
    size_gib: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "deviceName": self.device_name,
            "ebs": {
                "volumeSize": f"{self.size_gib}Gi",
                "volumeType": "gp3",
                "encrypted": True,
                "deleteOnTermination": True,
            },
        }


@dataclass(frozen=True)
class NodePoolSpec:
    name: str  # the group's name: NodePool and EC2NodeClass names, the karpenter.sh/nodepool label
    role: str
    capacity_type: str  # on-demand or spot (Karpenter spelling)
    arch: str  # amd64 or arm64
    instance_types: tuple[str, ...]  # every catalog type the pool may launch, smallest first
    instance_families: tuple[str, ...] | None  # when the pool selects by family (and size) instead of by type
    instance_sizes: tuple[str, ...] | None
    gpu: bool
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    max_nodes: int  # the group's maxSize
    limits: Mapping[str, str]  # cpu, memory, nvidia.com/gpu (GPU pools), nodes: Kubernetes quantities
    consolidation_policy: str  # WhenEmpty or WhenEmptyOrUnderutilized
    consolidate_after: str
    budgets: tuple[Budget, ...]
    expire_after: str
    weight: int
    ami_family: str  # AL2023 or Bottlerocket (the EC2NodeClass amiFamily the alias implies)
    ami_alias: str  # e.g. al2023@latest: Karpenter picks the NVIDIA variant for GPU types itself; "" on Auto Mode
    block_devices: tuple[BlockDevice, ...]  # EC2NodeClass only; Auto Mode sizes ephemeral storage instead
    imds_hop_limit: int
    config_path: str  # where the group is configured, for messages
    requirements: tuple[Requirement, ...] = field(default=())
    # The node class kind the pool points at: karpenter.k8s.aws/v1 EC2NodeClass, or Auto Mode's
    # eks.amazonaws.com/v1 NodeClass (model/karpenter/flavors.py).
    node_class_api: str = NODE_CLASS_API
    node_class_kind: str = NODE_CLASS_KIND
    ephemeral_storage_gib: int | None = None  # Auto Mode: the NodeClass's ephemeralStorage.size
    # The NodePool's and node class's name when it is not the group's (autoMode.nodePoolSuffix).
    object_name: str | None = None

    # Multi-node training and reserved capacity (karpenter/training.py): the EC2NodeClass selects the group's
    # placement group, EFA security group and capacity reservation; a single-zone pool without a zone of its own
    # gets the stack's first AZ from the program.
    efa: bool = False
    placement_group: bool = False
    single_zone: bool = False
    reservation_id: str | None = None
    # With efaInterfaces efaOnly, the EC2NodeClass's networkInterfaces for this many EFA interfaces (model/efa.py);
    # 0: none (Karpenter attaches its own all-`efa` layout when a pod asks for EFA).
    efa_only_interfaces: int = 0
    # A static NodePool (the group's staticNodes, karpenter/static.py): this many nodes always run; None: dynamic.
    replicas: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "limits", MappingProxyType(dict(self.limits)))

    @property
    def node_class_group(self) -> str:
        return self.node_class_api.split("/", 1)[0]

    @property
    def k8s_name(self) -> str:
        """The NodePool's name in the cluster (the karpenter.sh/nodepool label of its nodes)."""
        return self.object_name or self.name

    @property
    def node_class(self) -> str:
        return self.k8s_name

    @property
    def preemptible(self) -> bool:
        return self.capacity_type == SPOT
