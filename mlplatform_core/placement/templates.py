"""Node templates: what every node of a group looks like to the scheduler, before any node exists.

A node group becomes a template: the labels the toolkit sets plus those EKS and
the kubelet add, its taints, and the allocatable resources of each instance type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ..model import instances
from ..model.karpenter import capacity as karpenter_capacity
from ..model.karpenter.flavors import AUTO_MODE_LABEL
from ..model.karpenter.spec import CAPACITY_TYPE_LABEL, NODECLASS_LABEL, NODEPOOL_LABEL
from ..model.karpenter.training import capacity_type_of
from ..model.layout import Layout, NodeGroupSpec
from ..model.layout.sharing import node_devices
from ..model.layout.spec import MIG_RESOURCE_PREFIX
from ..model.provisioners import launcher
from ..model.quantity import format_bytes, format_cpu
from ..model.scheduling import CPU, EKS_CAPACITY_LABEL, EKS_NODEGROUP_LABEL, GPU_RESOURCE, MEMORY, Taint
from .dra_devices import DRA, Device, device_summary
from .dra_devices import node_devices as dra_devices

PODS = "pods"

OS_LABEL = "kubernetes.io/os"
ARCH_LABEL = "kubernetes.io/arch"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
EPHEMERAL_STORAGE = "ephemeral-storage"
# The EKS AL2023 AMI's kubelet keeps 1Gi of the node's filesystem for itself (kubeReserved ephemeral-storage)
# and evicts pods below 10% free (evictionHard nodefs.available): amazon-eks-ami
# nodeadm/internal/kubelet/config.go (withDefaultReservedResources, defaultKubeletSubConfig).
KUBE_RESERVED_EPHEMERAL_BYTES = 2**30
NODEFS_EVICTION_SHARE = Fraction(1, 10)
# The AMIs reserve no huge pages, so the kubelet advertises 0 of each size it supports.
HUGEPAGES = ("hugepages-2Mi", "hugepages-1Gi")
# Auto Mode marks its nodes (EKS user guide, automode/associate-workload.adoc: "EKS Auto Mode nodes have set the
# value of the label eks.amazonaws.com/compute-type to auto"); instance-* labels are eks.amazonaws.com ones.
COMPUTE_TYPE_LABEL = "eks.amazonaws.com/compute-type"
AUTO_MODE_COMPUTE_TYPE = "auto"
# Labels every node has but with a value of its own; a template cannot know them.
PER_NODE_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "topology.ebs.csi.aws.com/zone",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
    }
)


@dataclass(frozen=True)
class NodeVariant:
    """A node of the group running one of its instance types."""

    instance_type: str
    labels: Mapping[str, str]
    # cpu (millicores), memory and ephemeral-storage (bytes), pods, nvidia.com/gpu, hugepages-*; None: type unknown
    allocatable: Mapping[str, int] | None
    devices: tuple[Device, ...] = ()  # what it publishes in ResourceSlices (a DRA group's GPUs or MIG devices)


@dataclass(frozen=True)
class NodeTemplate:
    """What every node of a group looks like to the scheduler."""

    group: str
    labels: Mapping[str, str]  # common to all nodes (the instance-type label is per variant)
    taints: tuple[Taint, ...]
    variants: tuple[NodeVariant, ...]
    preemptible: bool
    gpu: bool
    initial: bool
    # What launches the nodes (nodeGroups, karpenter, autoMode) and the group or pool it launches them for (the
    # plan's nodeGroups / nodePools name): while a stack migrates, a kept group's template is named apart.
    provisioner: str = "nodeGroups"
    source: str = ""
    kept: bool = False
    gpu_allocation: str = ""  # a GPU group's: devicePlugin or dra (how pods ask for its GPUs); "" without GPUs

    @property
    def instance_types(self) -> tuple[str, ...]:
        return tuple(v.instance_type for v in self.variants)

    @property
    def unknown_instance_types(self) -> tuple[str, ...]:
        return tuple(v.instance_type for v in self.variants if v.allocatable is None)

    @property
    def largest(self) -> NodeVariant | None:
        """The known instance type with the most GPUs, then cpu, then memory."""
        known = [v for v in self.variants if v.allocatable is not None]
        return max(
            known,
            key=lambda v: (v.allocatable.get(GPU_RESOURCE, 0), v.allocatable[CPU], v.allocatable[MEMORY]),
            default=None,
        )

    @property
    def allocatable(self) -> Mapping[str, int] | None:
        """Allocatable resources of the largest known instance type."""
        big = self.largest
        return big.allocatable if big else None

    def to_dict(self) -> dict[str, Any]:
        alloc = self.allocatable
        return {
            "name": self.group,
            "provisioner": self.provisioner,
            "source": self.source or self.group,
            "kept": self.kept,
            "labels": dict(self.labels),
            "taints": [t.to_dict() for t in self.taints],
            "instanceTypes": list(self.instance_types),
            "largestInstanceType": self.largest.instance_type if self.largest else None,
            "allocatable": None
            if alloc is None
            else {
                CPU: format_cpu(alloc[CPU]),
                MEMORY: format_bytes(alloc[MEMORY]),
                GPU_RESOURCE: alloc[GPU_RESOURCE],
            },
            "unknownInstanceTypes": list(self.unknown_instance_types),
            **({"gpuAllocation": self.gpu_allocation} if self.gpu_allocation else {}),
            **({"devices": device_summary(self.largest.devices)} if self.largest and self.largest.devices else {}),
        }


def allocatable_ephemeral_storage(disk_size_gib: int) -> int:
    """Bytes of a node's root volume pods may request as ephemeral-storage: the volume less the kubelet's
    reservation and eviction threshold. The filesystem's own metadata (well under 1%) is not subtracted."""
    capacity = disk_size_gib * 2**30
    return capacity - KUBE_RESERVED_EPHEMERAL_BYTES - int(capacity * NODEFS_EVICTION_SHARE)


def _k8s_arch(arch: str) -> str:
    return {"x86_64": "amd64", "arm64": "arm64"}.get(arch, arch)


def _instance_labels(info: instances.InstanceType, auto_mode: bool) -> dict[str, str]:
    labels = karpenter_capacity.instance_labels(info)
    if not auto_mode:
        return labels
    prefix = karpenter_capacity.AWS_LABEL + "/"
    return {AUTO_MODE_LABEL + "/" + k.removeprefix(prefix): v for k, v in labels.items()}


def _pool_labels(spec: NodeGroupSpec) -> dict[str, str]:
    """The labels the provisioner puts on the group's nodes."""
    if spec.auto_mode:
        return {
            CAPACITY_TYPE_LABEL: capacity_type_of(spec),
            NODEPOOL_LABEL: spec.node_pool or spec.name,
            COMPUTE_TYPE_LABEL: AUTO_MODE_COMPUTE_TYPE,
        }
    if spec.karpenter:
        return {CAPACITY_TYPE_LABEL: capacity_type_of(spec), NODEPOOL_LABEL: spec.name, NODECLASS_LABEL: spec.name}
    return {EKS_CAPACITY_LABEL: spec.capacity_type, EKS_NODEGROUP_LABEL: spec.name}


def _without_device_plugin(alloc: Mapping[str, int]) -> dict[str, int]:
    """A DRA group's allocatable: the NVIDIA device plugin does not run there, so no GPU is an extended resource
    (its devices are published in ResourceSlices instead, dra_devices.py)."""
    return {k: 0 if k == GPU_RESOURCE or k.startswith(MIG_RESOURCE_PREFIX) else v for k, v in alloc.items()}


def _allocatable(spec: NodeGroupSpec, info: instances.InstanceType | None) -> Mapping[str, int] | None:
    """What a node of the group on `info` allocates to pods; None when the type is not known well enough."""
    alloc: Mapping[str, int] | None = None
    if spec.karpenter and info is not None:
        alloc = karpenter_capacity.allocatable(info)
        if alloc is not None:
            alloc = {**alloc, **node_devices(spec, info)}
    elif info is not None and info.known and info.allocatable_memory_mib is not None:
        # Every device the node advertises (GPUs, Neuron cores, EFA) counts for resource fit, as the group's
        # EFA and GPU sharing make them (layout/sharing.py node_devices).
        alloc = {
            **dict.fromkeys(HUGEPAGES, 0),
            GPU_RESOURCE: info.gpus,
            **node_devices(spec, info),
            CPU: info.allocatable_cpu_millis,
            MEMORY: info.allocatable_memory_mib * 2**20,
            EPHEMERAL_STORAGE: allocatable_ephemeral_storage(spec.disk_size_gib),
            PODS: info.max_pods,
        }
    if alloc is not None and spec.gpu_allocation == DRA:
        alloc = _without_device_plugin(alloc)
    return None if alloc is None else MappingProxyType(dict(alloc))


def _variant(spec: NodeGroupSpec, name: str, labels: Mapping[str, str]) -> NodeVariant:
    info = instances.lookup(name)
    vlabels = {**labels, INSTANCE_TYPE_LABEL: name}
    if spec.karpenter and info is not None:
        vlabels.update(_instance_labels(info, spec.auto_mode))
    if info is not None and info.arch:
        vlabels[ARCH_LABEL] = _k8s_arch(info.arch)
    return NodeVariant(name, MappingProxyType(vlabels), _allocatable(spec, info), dra_devices(spec, info))


def node_template(spec: NodeGroupSpec) -> NodeTemplate:
    """The node template of one group. The EKS node group label carries the toolkit's group name.

    A Karpenter pool's nodes carry Karpenter's labels instead (capacity type, pool and node class names, the
    instance-* labels of their type) and offer what Karpenter expects of each type it may launch. An Auto
    Mode pool's nodes (Karpenter run by AWS) carry Auto Mode's compute-type and its eks.amazonaws.com
    instance-* labels; a built-in pool's carry no label of the toolkit's (its template is AWS's). A group with
    gpuAllocation dra advertises no GPU as an extended resource; its nodes publish devices for claims instead.
    """
    ami_arch = "arm64" if "ARM" in spec.ami_type else "amd64"
    labels = {**spec.labels, **_pool_labels(spec), OS_LABEL: "linux", ARCH_LABEL: ami_arch}
    return NodeTemplate(
        group=spec.name,
        labels=MappingProxyType(labels),
        taints=tuple(spec.taints),
        variants=tuple(_variant(spec, name, labels) for name in spec.instance_types),
        preemptible=spec.preemptible,
        gpu=spec.gpu,
        initial=spec.is_initial,
        provisioner=launcher(spec).name,
        source=spec.name,
        gpu_allocation=spec.gpu_allocation if spec.gpu else "",
    )


def node_templates(layout: Layout) -> tuple[NodeTemplate, ...]:
    """Every kind of node of the stack (layout.node_sources): while it migrates, the managed node groups and
    Karpenter pools it keeps too, since pods land on them until they are drained."""
    kept = {id(g) for g in (*layout.retained_groups, *layout.retained_pool_groups)}
    return tuple(
        dataclasses.replace(node_template(g), group=name, kept=True) if id(g) in kept else node_template(g)
        for name, g in layout.node_sources
    )
