"""GPU sharing: time-slicing and MIG on a group, checked against its GPUs, and what a node then advertises.

Pure Python. The NVIDIA device plugin serves each group the config its node label names
(`nvidia.com/device-plugin.config`, NVIDIA/k8s-device-plugin README "Updating Per-Node Configuration With a
Node Label" @ v0.18.0): time-slicing advertises every GPU `replicas` times as nvidia.com/gpu
(`renameByDefault: false`); MIG advertises every MIG device as nvidia.com/gpu (strategy single) or as
nvidia.com/mig-<profile> (mixed). NVIDIA's MIG manager splits the GPUs into the profile its label names
(`nvidia.com/mig.config: all-<profile>`, the GPU operator's mig-parted configs; model/mig.py has the profiles
per GPU model and memory).

A node of a group advertises (`node_devices`) its type's devices, with the EFA interfaces only where the group
has them (the EFA device plugin runs on EFA groups only) and the GPUs as the sharing multiplies or splits them:
the placement proof, `place` and the autoscaler's scale-from-zero tags all read it.

Mixed MIG devices are not nvidia.com/gpu, so the ExtendedResourceToleration admission plugin tolerates only
their own name on pods that request them: a mixed group is tainted with that name instead of nvidia.com/gpu.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType

from .. import instances, mig
from ..config import show
from ..config.node_groups import NodeGroupSettings
from ..instances import InstanceType
from ..scheduling import GPU_RESOURCE, GPU_TAINT, Taint
from .spec import NodeGroupSpec, Sharing

Add = Callable[[tuple, str], None]
EFA_RESOURCE = "vpc.amazonaws.com/efa"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
# The GPU operator deploys nothing on a node labelled so (its state manager, commonOperandsLabelKey): the
# GPU groups without MIG keep our device plugin alone (gpu-operator controllers/state_manager.go @ v26.7.0).
GPU_OPERATOR_OPERANDS_LABEL = "nvidia.com/gpu.deploy.operands"
DEFAULT_DEVICE_PLUGIN_CONFIG = "default"


def _mig_problem(itype: str, info: InstanceType, profile: str) -> str | None:
    gpu = mig.for_instance(info)
    if gpu is None:
        models = "; ".join(f"{gpu} ({', '.join(types[:2])})" for gpu, types in mig.catalog_examples().items())
        return f"{show(itype)}: its GPU ({info.gpu_name or 'none'}) has no MIG; GPUs with MIG: {models}"
    if gpu.count(profile) is None:
        offered = ", ".join(sorted(gpu.profiles, key=lambda p: (int(p.split("g")[0]), p)))
        return (
            f"{show(profile)} is not a MIG profile of {itype}'s {gpu.name} (profile names follow the GPU's "
            f"memory); its profiles: {offered}"
        )
    return None


def sharing_of(
    name: str, o: NodeGroupSettings, gpu: bool, ami_type: str, types: tuple[str, ...], path: tuple, add: Add
) -> Sharing | None:
    """The group's sharing (None without gpuSharing or when it cannot work; problems go to `add`)."""
    s = o.gpu_sharing
    if s is None:
        return None
    spath = path + ("gpuSharing",)
    if not gpu:
        add(spath, "is set on a group without GPUs; gpuSharing belongs on a GPU group (gpu: true)")
        return None
    if ami_type.startswith("BOTTLEROCKET"):
        add(
            spath,
            f"cannot be applied on {ami_type}: Bottlerocket runs NVIDIA's device plugin as a host service set by its "
            "own settings (settings.kubelet-device-plugins.nvidia), not by the chart's per-node config; use an "
            "AL2023 NVIDIA AMI",
        )
        return None
    if s.time_slicing is not None:
        return Sharing("time-slicing", s.time_slicing.replicas, config=name)
    m = s.mig
    assert m is not None  # the settings model requires one of the two
    counts = set()
    for i, itype in enumerate(types):
        info = instances.lookup(itype)
        if info is None or not info.known:
            continue
        if problem := _mig_problem(itype, info, m.profile):
            add(spath + ("mig", "profile") if mig.for_instance(info) else path + ("instanceTypes", i), problem)
            return None
        counts.add(mig.for_instance(info).count(m.profile))  # type: ignore[union-attr]
    if not counts:
        return None
    return Sharing("mig", min(counts), m.strategy, m.profile, config=name)


def sharing_labels(sharing: Sharing | None) -> dict[str, str]:
    """The node labels the device plugin and the MIG manager read."""
    if sharing is None:
        return {}
    labels = {DEVICE_PLUGIN_CONFIG_LABEL: sharing.config}
    if sharing.mig_config:
        labels[MIG_CONFIG_LABEL] = sharing.mig_config
    return labels


def gpu_taint(sharing: Sharing | None) -> Taint:
    """The taint that keeps CPU pods off a GPU group and that the pods requesting its devices tolerate."""
    if sharing is not None and sharing.resource != GPU_RESOURCE:
        return Taint(sharing.resource, "true", "NoSchedule")
    return GPU_TAINT


def node_devices(spec: NodeGroupSpec, info: InstanceType) -> Mapping[str, int]:
    """The extended resources a node of the group advertises on `info`'s hardware."""
    devices = dict(info.devices)
    if EFA_RESOURCE in devices or spec.efa:
        # One EFA interface per network card (a managed group's launch template gives every node the same number;
        # Karpenter attaches every interface of the type it launches).
        devices[EFA_RESOURCE] = info.efa_interfaces_per_node if spec.efa else 0
    if info.gpus and getattr(spec, "gpu_allocation", "devicePlugin") == "dra":
        # DRA publishes the GPUs (and MIG devices) as devices in ResourceSlices, never as extended resources: a pod
        # asking nvidia.com/gpu does not fit (layout/allocation.py).
        devices[GPU_RESOURCE] = 0
        return devices
    sharing = spec.sharing
    if info.gpus and sharing is not None:
        if sharing.resource == GPU_RESOURCE:
            devices[GPU_RESOURCE] = info.gpus * sharing.per_gpu
        else:
            devices[GPU_RESOURCE] = 0
            devices[sharing.resource] = info.gpus * sharing.per_gpu
    return devices


def mark_operands(groups: list[NodeGroupSpec]) -> list[NodeGroupSpec]:
    """With MIG somewhere, the GPU operator (which brings the MIG manager) must stay off the other GPU groups."""
    if not any(g.sharing is not None and g.sharing.kind == "mig" for g in groups):
        return groups
    out = []
    for g in groups:
        if g.gpu and (g.sharing is None or g.sharing.kind != "mig"):
            g = dataclasses.replace(g, labels=MappingProxyType({**g.labels, GPU_OPERATOR_OPERANDS_LABEL: "false"}))
        out.append(g)
    return out
