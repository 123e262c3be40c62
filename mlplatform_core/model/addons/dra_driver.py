"""The NVIDIA DRA driver for GPUs: on exactly the `gpuAllocation: dra` groups, tolerating every taint they carry.

Chart `nvidia-dra-driver-gpu` (NVIDIA/k8s-dra-driver-gpu deployments/helm/nvidia-dra-driver-gpu, pinned per
Kubernetes minor in data/addon_versions.json, its workloads, RBAC and DeviceClasses recorded as a real helm renders
them: data/charts, scripts/generators/render_charts.py). What the values below rely on, from the chart at its tag:
- `resources.gpus.enabled` renders the kubelet plugin's `gpus` container and the DeviceClasses gpu.nvidia.com and
  mig.nvidia.com (templates/deviceclass-gpu.yaml, deviceclass-mig.yaml); the chart refuses it unless
  `gpuResourcesEnabledOverride` says the device plugin is kept off those nodes (templates/validation.yaml): the
  layout drops the device plugin's label from `dra` groups (layout/allocation.py), so it is;
- `resources.computeDomains.enabled` renders the ComputeDomain controller (a Deployment) and the plugin's
  compute-domains container: ComputeDomains (IMEX) serve multi-node NVLink (GB200 UltraServers), which the
  toolkit's instance data does not describe, so they are off (and no controller runs);
- `resourceApiVersion` pins the DeviceClasses' API (auto-detected from the cluster otherwise): resource.k8s.io/v1,
  which every minor `dra` is allowed on serves;
- `kubeletPlugin.affinity` replaces the chart's (NFD's PCI label, or nvidia.com/gpu.present): here the groups'
  own label, so it lands on the `dra` groups and no other GPU node, and never on a node that still carries the
  device plugin's label (a node of the group from before it moved to DRA); `kubeletPlugin.tolerations` as given.

Auto Mode pools install nothing: from 1.36 Auto Mode's node runtime brings the NVIDIA DRA driver (EKS user guide
"Manage hardware devices on Amazon EKS": "nothing for you to install or manage"), so neither the chart nor its
DeviceClasses are the stack's there (its provisioner's `installs_dra_driver`, model/provisioners).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import addon_versions as versions
from ..layout import Layout, NodeGroupSpec
from ..layout.allocation import DRA
from ..provisioners import launcher
from ..scheduling import DEVICE_PLUGIN_LABEL, GPU_PRESENT_LABEL, GROUP_LABEL
from . import charts
from .affinity import expression, required
from .gpu_agents import tolerations_for

KUBELET_PLUGIN = "nvidia-dra-driver-gpu-kubelet-plugin"
RESOURCE_API = "resource.k8s.io/v1"
GPU_DEVICE_CLASS = "gpu.nvidia.com"
MIG_DEVICE_CLASS = "mig.nvidia.com"
# The plugin's `gpus` container publishes ResourceSlices and prepares claims (CDI specs): small and steady; its
# init container only checks the driver root.
RESOURCES = {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}}
# The chart gives its init container no resources value (templates/kubeletplugin.yaml): a LimitRange in the
# release's namespace gives it requests, limits equal to them (as prod's LimitRanges do).
CONTAINER_DEFAULTS = {
    "defaultRequest": {"cpu": "10m", "memory": "32Mi"},
    "default": {"cpu": "10m", "memory": "32Mi"},
}
POD_SECURITY_CONTEXT = {"seccompProfile": {"type": "RuntimeDefault"}}
HOST_NEEDS: Mapping[str, str] = {
    KUBELET_PLUGIN: (
        "runs privileged as root with host paths (the chart's default, templates/kubeletplugin.yaml): it registers "
        "with the kubelet's /var/lib/kubelet/plugins_registry, serves from /var/lib/kubelet/plugins with "
        "bidirectional mount propagation, writes CDI specs to /var/run/cdi and reads the NVIDIA driver from the "
        "host root to publish and prepare the node's GPUs and MIG devices"
    ),
}


def namespace_objects() -> list[dict[str, Any]]:
    """The release's namespace and its LimitRange, created before the release."""
    return charts.namespace_with_limits(charts.NAMESPACES[versions.NVIDIA_DRA_DRIVER], CONTAINER_DEFAULTS)


def driver_group_names(layout: Layout) -> tuple[str, ...]:
    """The groups the driver runs on: its deployment waits for these only."""
    return tuple(dict.fromkeys(g.name for g in driver_groups(layout)))


def driver_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """The `dra` GPU groups whose nodes need the driver installed: the layout's, and while a stack migrates the
    groups and pools it keeps (Auto Mode's own nodes bring the driver: nothing installed there)."""
    found: dict[int, NodeGroupSpec] = {}
    for g in (*layout.gpu_groups, *layout.retained_groups, *layout.retained_pool_groups):
        if g.gpu and g.gpu_allocation == DRA and launcher(g).installs_dra_driver:
            found.setdefault(id(g), g)
    return tuple(found.values())


def driver_values(layout: Layout, image_registry: str | None = None) -> dict[str, Any] | None:
    """Values for the NVIDIA DRA driver, or None when no group needs it installed."""
    groups = driver_groups(layout)
    if not groups:
        return None
    names = sorted({g.name for g in groups})
    values: dict[str, Any] = {
        "resourceApiVersion": RESOURCE_API,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        # The device plugin is kept off these nodes (their labels do not carry its selector): never both.
        "gpuResourcesEnabledOverride": True,
        "kubeletPlugin": {
            "affinity": required(
                [
                    expression(GPU_PRESENT_LABEL, "In", "true"),
                    expression(GROUP_LABEL, "In", *names),
                    # A node launched before the group moved to DRA may still carry the device plugin's label (and
                    # run the plugin) until it is replaced: the driver waits for a node without it. Never both.
                    expression(DEVICE_PLUGIN_LABEL, "DoesNotExist"),
                ]
            ),
            "tolerations": tolerations_for(groups),
            "podSecurityContext": POD_SECURITY_CONTEXT,
            "containers": {"gpus": {"resources": RESOURCES}},
        },
    }
    if image_registry:
        values["image"] = {"repository": charts.image_repository(versions.NVIDIA_DRA_DRIVER, image_registry)}
    return values


def device_classes(layout: Layout) -> tuple[str, ...]:
    """The DeviceClasses pods of the `dra` groups ask for: gpu.nvidia.com, and mig.nvidia.com with MIG."""
    groups = driver_groups(layout)
    if not groups:
        return ()
    mig = any(g.sharing is not None and g.sharing.kind == "mig" for g in groups)
    return (GPU_DEVICE_CLASS, MIG_DEVICE_CLASS) if mig else (GPU_DEVICE_CLASS,)


def device_class_problems(layout: Layout, rendered: Any) -> list[str]:
    """The DeviceClasses the groups need that the rendered chart does not create (rendering: charts.render)."""
    wanted = device_classes(layout)
    if not wanted or rendered is None:
        return []
    have = {d["name"]: d for d in rendered.facts.device_classes}
    where = f"{versions.NVIDIA_DRA_DRIVER} {rendered.facts.version}"
    out = [f"{where}: the chart renders no DeviceClass {name}" for name in wanted if name not in have]
    out += [
        f"{where}: DeviceClass {name} is {have[name].get('apiVersion')}, not {RESOURCE_API}"
        for name in wanted
        if name in have and have[name].get("apiVersion") != RESOURCE_API
    ]
    return out


def daemonset_groups(layout: Layout) -> dict[str, tuple[tuple[str, ...], str]]:
    """Each DaemonSet the chart renders -> (the groups it must run on, and no others; why)."""
    if not driver_groups(layout):
        return {}
    return {
        KUBELET_PLUGIN: (
            tuple(layout.source_name(g) for g in driver_groups(layout)),
            "publishes the GPUs of gpuAllocation: dra groups as DRA devices (ResourceSlices)",
        )
    }
