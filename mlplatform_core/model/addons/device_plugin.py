"""The NVIDIA device plugin: on exactly the GPU groups that need it, tolerating every taint they carry.

Groups on AL2023 NVIDIA AMIs need it; Bottlerocket NVIDIA AMIs run NVIDIA's plugin as a host service
already (EKS user guide "Install Kubernetes device plugin for GPUs"), and two plugins on one node would
both register nvidia.com/gpu. The layout labels the groups that need it (layout.gpu.gpu_labels) and the
DaemonSet selects that label.

Chart values (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml @ v0.18.0):
`tolerations` replaces the chart's list, `nodeSelector` adds to its default node affinity, which
requires one of three labels, `nvidia.com/gpu.present=true` among them (the layout sets it).
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from ..layout import Layout, NodeGroupSpec
from ..layout.sharing import DEFAULT_DEVICE_PLUGIN_CONFIG
from ..scheduling import DEVICE_PLUGIN_LABEL, GPU_PRESENT_LABEL, GPU_RESOURCE, Toleration

# While NVIDIA's MIG manager repartitions a node's GPUs it labels the node so (the GPU operator's
# k8s-mig-manager `paused-for-mig-change`) to stop the device plugin: our DaemonSet steps aside the same way.
PAUSED_FOR_MIG = {
    "key": "nvidia.com/gpu.deploy.device-plugin",
    "operator": "NotIn",
    "values": ["paused-for-mig-change"],
}

# The chart's default node affinity (values.yaml `affinity`), which our values leave in place.
CHART_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}
                for key, value in (
                    ("feature.node.kubernetes.io/pci-10de.present", "true"),
                    ("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
                    (GPU_PRESENT_LABEL, "true"),
                )
            ]
        }
    }
}


def plugin_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """The GPU groups whose nodes need the device plugin DaemonSet."""
    return tuple(g for g in layout.gpu_groups if g.labels.get(DEVICE_PLUGIN_LABEL) == "true")


def device_plugin_values(layout: Layout) -> dict[str, Any] | None:
    """Values for the NVIDIA device plugin, or None when no group needs it (nothing to expose)."""
    groups = plugin_groups(layout)
    if not groups:
        return None
    tolerations = [Toleration(GPU_RESOURCE, "Exists", "", "NoSchedule")]
    # A GPU group may carry more taints (spot, dedicated role, user taints): the plugin must run there anyway.
    for g in groups:
        for taint in g.taints:
            if taint.repels and not any(t.tolerates(taint) for t in tolerations):
                tolerations.append(Toleration.for_taint(taint))
    values: dict[str, Any] = {
        "nodeSelector": {DEVICE_PLUGIN_LABEL: "true"},
        "tolerations": [t.to_dict() for t in tolerations],
    }
    if configs := sharing_configs(layout):
        # One named config per sharing group, selected by the node label nvidia.com/device-plugin.config; the
        # chart then runs its config-manager sidecar, which switches the plugin's config when the label says.
        values["config"] = {"map": configs, "default": DEFAULT_DEVICE_PLUGIN_CONFIG}
    if any(g.sharing is not None and g.sharing.kind == "mig" for g in groups):
        values["affinity"] = affinity(layout)
    return values


def sharing_configs(layout: Layout) -> dict[str, str]:
    """The device plugin's configs (config.map): `default` (no sharing) and one per sharing group."""
    shared = [g for g in plugin_groups(layout) if g.sharing is not None]
    if not shared:
        return {}
    configs = {DEFAULT_DEVICE_PLUGIN_CONFIG: _config({"migStrategy": "none"})}
    for g in shared:
        s = g.sharing
        assert s is not None
        if s.kind == "time-slicing":
            sharing = {"timeSlicing": {"resources": [{"name": GPU_RESOURCE, "replicas": s.per_gpu}]}}
            configs[s.config] = _config({"migStrategy": "none"}, sharing)
        else:
            configs[s.config] = _config({"migStrategy": s.strategy})
    return configs


def _config(flags: dict[str, Any], sharing: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {"version": "v1", "flags": flags}
    if sharing:
        doc["sharing"] = sharing
    return yaml.safe_dump(doc, sort_keys=False)


def affinity(layout: Layout) -> dict[str, Any]:
    """The chart's node affinity; with MIG groups, every term also steps aside while the MIG manager works."""
    out = copy.deepcopy(CHART_AFFINITY)
    if any(g.sharing is not None and g.sharing.kind == "mig" for g in layout.gpu_groups):
        for term in out["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]:
            term["matchExpressions"].append(dict(PAUSED_FOR_MIG))
    return out


def pod_placement(layout: Layout) -> dict[str, Any] | None:
    """The DaemonSet's pod placement as the chart renders it with our values, or None without the plugin."""
    values = device_plugin_values(layout)
    if values is None:
        return None
    return {
        "nodeSelector": values["nodeSelector"],
        "tolerations": values["tolerations"],
        "affinity": values.get("affinity", CHART_AFFINITY),
        "priorityClassName": "system-node-critical",
    }


def device_plugin_groups(layout: Layout) -> tuple[str, ...]:
    """The groups the device plugin runs on (the ones its values select): its deployment waits for these only."""
    return tuple(g.name for g in plugin_groups(layout))
