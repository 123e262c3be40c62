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

from typing import Any

from ..layout import Layout, NodeGroupSpec
from ..scheduling import DEVICE_PLUGIN_LABEL, GPU_PRESENT_LABEL, GPU_RESOURCE, Toleration

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
    """The GPU groups whose nodes need the device plugin DaemonSet: while a stack migrates, the managed GPU groups
    and Karpenter GPU pools it keeps too (an Auto Mode pool's nodes bring their own plugin, the kept ones' not)."""
    found: dict[str, NodeGroupSpec] = {}
    for g in (*layout.gpu_groups, *layout.retained_groups, *layout.retained_pools):
        if g.gpu and g.labels.get(DEVICE_PLUGIN_LABEL) == "true":
            found.setdefault(g.name, g)
    return tuple(found.values())


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
    return {
        "nodeSelector": {DEVICE_PLUGIN_LABEL: "true"},
        "tolerations": [t.to_dict() for t in tolerations],
    }


def pod_placement(layout: Layout) -> dict[str, Any] | None:
    """The DaemonSet's pod placement as the chart renders it with our values, or None without the plugin."""
    values = device_plugin_values(layout)
    if values is None:
        return None
    return {**values, "affinity": CHART_AFFINITY, "priorityClassName": "system-node-critical"}


def device_plugin_groups(layout: Layout) -> tuple[str, ...]:
    """The groups the device plugin runs on (the ones its values select): its deployment waits for these only."""
    return tuple(g.name for g in plugin_groups(layout))
