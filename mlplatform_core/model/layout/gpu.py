"""What GPU groups (and autoscaled groups with several types) need so that they scale and get their GPUs.

- The Cluster Autoscaler builds the node of an empty group (scale from zero) from the FIRST instance
  type of its Auto Scaling group (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_wrapper.go
  getInstanceTypesForAsgs, README "Using Mixed Instances Policies" @ 55c37cd5; EKS keeps the API order of
  instance_types). Every type of such a group must therefore look like the first: one size class.
- It waits for a new GPU node's device plugin only if the node carries `k8s.amazonaws.com/accelerator`
  (aws_cloud_provider.go GPULabel; README "Special note on GPU instances"), else it scales again.
- AL2023 NVIDIA AMIs need the NVIDIA device plugin DaemonSet; Bottlerocket NVIDIA AMIs run their own as
  a host service (EKS user guide "Install Kubernetes device plugin for GPUs", ml-eks-k8s-device-plugin.adoc;
  bottlerocket-os/bottlerocket-core-kit packages/nvidia-k8s-device-plugin), so ours must stay off them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import instances
from ..config import show
from ..scheduling import ACCELERATOR_LABEL, DEVICE_PLUGIN_LABEL

BOTTLEROCKET_PREFIX = "BOTTLEROCKET_"


def needs_device_plugin(ami_type: str) -> bool:
    """Whether nodes of this GPU AMI need the NVIDIA device plugin DaemonSet (Bottlerocket ships its own)."""
    return not ami_type.startswith(BOTTLEROCKET_PREFIX)


def _known(types: tuple[str, ...]) -> list[instances.InstanceType]:
    return [t for t in map(instances.lookup, types) if t is not None and t.known]


def size_class_problem(types: tuple[str, ...]) -> str | None:
    """Why the types are not one size class (vCPU, memory, GPUs), or None."""
    known = _known(types)
    classes = {t.size_class for t in known}
    if len(classes) <= 1:
        return None
    shapes = ", ".join(f"{t.name} ({t.vcpu} vCPU, {t.memory_mib // 1024} GiB, {t.gpus} GPU)" for t in known)
    return (
        f"{show(list(types))} are not one size class: {shapes}. The Cluster Autoscaler builds a new node of "
        f"the group from the first type only ({types[0]}), so every type must have its vCPUs, memory and GPUs; "
        "split the group into one group per size (additionalNodeGroups)"
    )


def gpu_model_problem(types: tuple[str, ...], pool: bool = False, described: str | None = None) -> str | None:
    """Why a GPU group's types cannot share one accelerator label (several GPU models), or None."""
    models = sorted({t.gpu_name for t in _known(types) if t.gpu_name})
    if len(models) <= 1:
        return None
    if pool:  # a NodePool's template labels are one value for every node it launches
        why = f"the node label {ACCELERATOR_LABEL} that the NodePool's template puts on every node it launches"
        fix = "use one GPU model per group (one NodePool per model)"
    else:
        why = f"the node label {ACCELERATOR_LABEL}, which the Cluster Autoscaler reads from the group,"
        fix = "use one GPU model per group"
    return (
        f"{described or show(list(types))} mix GPU models ({', '.join(models)}); {why} has one value per group; {fix}"
    )


def accelerator_label(types: tuple[str, ...]) -> dict[str, str]:
    """The accelerator label of nodes of these types (one GPU model: see gpu_model_problem), or none."""
    models = sorted({t.gpu_name for t in _known(types) if t.gpu_name})
    return {ACCELERATOR_LABEL: f"nvidia-{models[0]}"} if models else {}


def gpu_labels(types: tuple[str, ...], ami_type: str) -> dict[str, str]:
    """Labels every node of a GPU group carries besides the toolkit's own: the accelerator, the plugin marker."""
    labels = accelerator_label(types)
    if needs_device_plugin(ami_type):
        labels[DEVICE_PLUGIN_LABEL] = "true"
    return labels


def whole_nodes(sources: Iterable[tuple[str, Any]]) -> list[tuple[str, instances.InstanceType]]:
    """The (group, instance type) of every GPU or EFA group's known types: nodes one training pod takes whole (all
    their GPUs, or one pod per EFA node), so the namespaces' container maximum must let one container use them."""
    out = []
    for name, g in sources:
        if (g.gpu or g.efa) and not g.is_initial:
            out += [(name, info) for t in g.instance_types if (info := instances.lookup(t)) and info.known]
    return out
