"""What a DRA group's nodes publish in ResourceSlices under the NVIDIA DRA driver, before any node exists.

Pure Python. The facts follow the driver's source at its release tag v25.12.0 (NVIDIA/k8s-dra-driver-gpu, now
kubernetes-sigs/dra-driver-nvidia-gpu):

- cmd/gpu-kubelet-plugin/nvlib.go GetPerGpuAllocatableDevices: a GPU without MIG is published as one device
  (`gpu-<minor>`); a GPU with static MIG as its MIG devices only (the parent is not published);
- cmd/gpu-kubelet-plugin/partitions.go PartDevAttributes and deviceinfo.go GetDevice: a GPU device's attributes
  in the driver's domain are type (`gpu`), uuid, productName, brand, architecture, cudaComputeCapability,
  driverVersion, cudaDriverVersion (the last three semantic versions), with `resource.kubernetes.io/pciBusID`
  beside them, and its capacity `memory`; a MIG device's are type (`mig`), uuid, parentUUID, profile,
  productName, brand, architecture and the versions of its parent, and capacities memory, multiprocessors,
  copyEngines, decoders, encoders, jpegEngines, ofaEngines and memorySlice<i>;
- deployments/helm/nvidia-dra-driver-gpu/templates/deviceclass-{gpu,mig}.yaml: the DeviceClasses the chart
  creates and their CEL selectors.

A template knows the device type and count (the instance type's GPUs; MIG devices per GPU from the group's
profile, model/mig.py) and the MIG profile exactly; memory only about (the EC2 catalog's figure per GPU and the
profile's GB; NVML reports a little more or less), so it is a range; every other attribute the driver reads
from the GPU through NVML on the node, so a selector that depends on one cannot be decided here (cel.py says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ..model import instances, mig
from ..model.layout import NodeGroupSpec
from ..model.nvidia_dra import DEVICE_CLASSES, DRIVER, GPU_TYPE, MIG_TYPE, published

__all__ = ["DEVICE_CLASSES", "DRIVER", "Device", "device_summary", "node_devices"]

STANDARD_DOMAIN = "resource.kubernetes.io"  # k8s.io/dynamic-resource-allocation/deviceattribute
DRA = "dra"
DEVICE_PLUGIN = "devicePlugin"
# What the template knows before any node exists: the device's type and (MIG) profile, and its memory about. Every
# other attribute or capacity the driver publishes (model/nvidia_dra.py, generated from its source) it reads from
# the GPU through NVML on the node.
KNOWN_ATTRIBUTES = frozenset({"type", "profile"})
NODE_ATTRIBUTES = published(GPU_TYPE)["attributes"] - KNOWN_ATTRIBUTES
MIG_NODE_ATTRIBUTES = published(MIG_TYPE)["attributes"] - KNOWN_ATTRIBUTES
STANDARD_NODE_ATTRIBUTES = published(GPU_TYPE)["standardAttributes"] | published(MIG_TYPE)["standardAttributes"]
MIG_NODE_CAPACITIES = frozenset(c for c in published(MIG_TYPE)["capacities"] if c != "memory" and "<" not in c)
# gpu.nvidia.com (model/nvidia_dra.py DEVICE_CLASSES) also names extendedResourceName nvidia.com/gpu, which the
# scheduler honours only with the DRAExtendedResource feature gate (alpha, off on EKS): nvidia.com/gpu requests
# are not served by DRA there.
# NVML's memory total differs from the EC2 catalog's GPU memory by a few percent either way (an H100 80GB HBM3
# reports 81559 MiB, EC2 81920 MiB); a MIG profile's memory is its GB name rounded (1g.10gb: about 9.75 GiB).
CATALOG_MEMORY_SPREAD = Fraction(5, 100)
MIG_MEMORY_LOW = Fraction(9, 10)


@dataclass(frozen=True)
class Device:
    """One device a node publishes: its known attributes and capacities, and the range its memory lies in."""

    name: str
    type: str  # gpu | mig
    attributes: Mapping[str, str]  # the driver's domain, known before the node runs
    node_attributes: frozenset[str]  # published, but known only on the node
    memory: tuple[int, int] | None  # bytes, lowest and highest NVML may report; None: unknown
    node_capacities: frozenset[str] = frozenset()
    driver: str = DRIVER


def node_devices(spec: NodeGroupSpec, info: instances.InstanceType | None) -> tuple[Device, ...]:
    """The devices a node of `spec` running `info` publishes: none unless the group runs the DRA driver."""
    if spec.gpu_allocation != DRA or info is None or not info.nvidia_gpu:
        return ()
    sharing = spec.sharing
    if sharing is not None and sharing.kind == "mig" and sharing.profile:
        return _mig_devices(info, sharing.profile)
    memory = None
    if info.gpu_memory_mib:
        mib = Fraction(info.gpu_memory_mib * 2**20)
        memory = (int(mib * (1 - CATALOG_MEMORY_SPREAD)), int(mib * (1 + CATALOG_MEMORY_SPREAD)))
    attrs = MappingProxyType({"type": GPU_TYPE})
    return tuple(Device(f"gpu-{i}", GPU_TYPE, attrs, NODE_ATTRIBUTES, memory) for i in range(info.gpus))


def _mig_devices(info: instances.InstanceType, profile: str) -> tuple[Device, ...]:
    model = mig.for_instance(info)
    per_gpu = model.count(profile) if model is not None else None
    if not per_gpu:
        return ()
    gb = int(mig.PROFILE.match(profile)[2])  # type: ignore[index]  # count() knows only well-formed names
    memory = (int(gb * 10**9 * MIG_MEMORY_LOW), gb * 2**30)
    attrs = MappingProxyType({"type": MIG_TYPE, "profile": profile})
    return tuple(
        Device(f"gpu-{g}-mig-{profile}-{k}", MIG_TYPE, attrs, MIG_NODE_ATTRIBUTES, memory, MIG_NODE_CAPACITIES)
        for g in range(info.gpus)
        for k in range(per_gpu)
    )


def device_summary(devices: tuple[Device, ...]) -> dict[str, Any]:
    """What a node publishes, for the plan's node templates: the count per device type (and MIG profile)."""
    counts: dict[str, int] = {}
    for d in devices:
        key = f"{d.type} {d.attributes['profile']}" if "profile" in d.attributes else d.type
        counts[key] = counts.get(key, 0) + 1
    return {"driver": DRIVER, "perNode": counts}
