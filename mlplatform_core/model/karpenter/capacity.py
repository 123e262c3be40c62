"""EC2 instance types as Karpenter's scheduler sees them before it launches one.

Karpenter computes a type's capacity and allocatable resources itself, from EC2 data
(aws/karpenter-provider-aws pkg/providers/instancetype/types.go @ v1.14.1):
- cpu: the default vCPUs; memory: the type's MiB, minus 64 MiB on Graviton (CMA), minus
  VM_MEMORY_OVERHEAD of it (settings.vmMemoryOverheadPercent, default 0.075) - `memory()`;
- allocatable: capacity minus kube-reserved (cpu by the EKS AMI's table, memory 11 MiB per pod
  + 255 MiB with ENI-limited max pods) and the 100 Mi hard-eviction threshold - `kubeReservedResources`,
  `evictionThreshold`;
- labels: family and size split at the dot, category and generation from `(^[a-z]+)(\\-[0-9]+tb)?([0-9]+)`,
  cpu and memory as numbers, GPU name and maker lower-cased - `computeRequirements`.

NodePool limits count capacity, so a pool whose cpu limit is below the smallest type's vCPUs can never
launch a node (core pkg/controllers/provisioning/scheduling/scheduler.go: filterByRemainingResources).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from .. import instances
from ..instances import InstanceType
from ..scheduling import CPU, GPU_RESOURCE, MEMORY

VM_MEMORY_OVERHEAD = 0.075
GRAVITON_CMA_MIB = 64
EVICTION_HARD_MIB = 100

AWS_LABEL = "karpenter.k8s.aws"
INSTANCE_FAMILY_LABEL = f"{AWS_LABEL}/instance-family"
INSTANCE_SIZE_LABEL = f"{AWS_LABEL}/instance-size"
INSTANCE_CATEGORY_LABEL = f"{AWS_LABEL}/instance-category"
INSTANCE_GENERATION_LABEL = f"{AWS_LABEL}/instance-generation"
INSTANCE_CPU_LABEL = f"{AWS_LABEL}/instance-cpu"
INSTANCE_MEMORY_LABEL = f"{AWS_LABEL}/instance-memory"
INSTANCE_GPU_NAME_LABEL = f"{AWS_LABEL}/instance-gpu-name"
INSTANCE_GPU_MANUFACTURER_LABEL = f"{AWS_LABEL}/instance-gpu-manufacturer"
INSTANCE_GPU_COUNT_LABEL = f"{AWS_LABEL}/instance-gpu-count"
_SCHEME = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")


def capacity_memory_mib(t: InstanceType) -> int | None:
    if t.memory_mib is None:
        return None
    mib = t.memory_mib - (GRAVITON_CMA_MIB if t.arch == "arm64" else 0)
    return mib - math.ceil(mib * VM_MEMORY_OVERHEAD)


def capacity(t: InstanceType) -> Mapping[str, int] | None:
    """cpu (millicores), memory (bytes) and nvidia.com/gpu of a type as Karpenter counts it; None if unknown."""
    mem = capacity_memory_mib(t)
    if t.vcpu is None or mem is None:
        return None
    return MappingProxyType({CPU: t.vcpu * 1000, MEMORY: mem * 2**20, GPU_RESOURCE: t.gpus})


def allocatable(t: InstanceType) -> Mapping[str, int] | None:
    """What Karpenter expects a new node of the type to offer pods (every device it advertises included)."""
    cap = capacity(t)
    if cap is None or t.max_pods is None or t.allocatable_cpu_millis is None:
        return None
    memory = cap[MEMORY] - (255 + 11 * t.max_pods + EVICTION_HARD_MIB) * 2**20
    return MappingProxyType({**t.devices, CPU: t.allocatable_cpu_millis, MEMORY: memory, GPU_RESOURCE: t.gpus})


def instance_labels(t: InstanceType) -> dict[str, str]:
    """The karpenter.k8s.aws/instance-* labels a node of the type carries (those the catalog can tell)."""
    labels: dict[str, str] = {}
    family, _, size = t.name.partition(".")
    if size:
        labels[INSTANCE_FAMILY_LABEL] = family
        labels[INSTANCE_SIZE_LABEL] = size
    if m := _SCHEME.match(t.name):
        labels[INSTANCE_CATEGORY_LABEL] = m[1]
        labels[INSTANCE_GENERATION_LABEL] = m[3]
    if t.vcpu is not None:
        labels[INSTANCE_CPU_LABEL] = str(t.vcpu)
    if t.memory_mib is not None:
        labels[INSTANCE_MEMORY_LABEL] = str(t.memory_mib)
    if t.gpu_maker and t.gpu_name:
        labels[INSTANCE_GPU_MANUFACTURER_LABEL] = t.gpu_maker.lower()
        labels[INSTANCE_GPU_NAME_LABEL] = t.gpu_name.lower()
    if t.gpus:
        labels[INSTANCE_GPU_COUNT_LABEL] = str(t.gpus)
    return labels


def family_members(families: Iterable[str], sizes: Iterable[str] | None = None) -> dict[str, list[InstanceType]]:
    """Catalog types per family (only the given sizes, when given), smallest first."""
    wanted, size_set = set(families), set(sizes) if sizes else None
    out: dict[str, list[InstanceType]] = {f: [] for f in families}
    for t in instances.catalog().values():
        fam, _, size = t.name.partition(".")
        if fam in wanted and (size_set is None or size in size_set):
            out[fam].append(t)
    for members in out.values():
        members.sort(key=lambda t: (t.vcpu or 0, t.memory_mib or 0, t.name))
    return out


def known_sizes() -> frozenset[str]:
    return frozenset(t.name.partition(".")[2] for t in instances.catalog().values())


def known_families() -> frozenset[str]:
    return frozenset(t.family for t in instances.catalog().values())
