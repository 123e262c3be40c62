"""The NVIDIA device plugin: on exactly the GPU groups that need it, tolerating every taint they carry.

Groups on AL2023 NVIDIA AMIs need it; Bottlerocket NVIDIA AMIs run NVIDIA's plugin as a host service
already (EKS user guide "Install Kubernetes device plugin for GPUs"), and two plugins on one node would
both register nvidia.com/gpu. The layout labels the groups that need it (layout.gpu.gpu_labels) and the
DaemonSet selects that label.

Chart values (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml): `tolerations`
replaces the chart's list, `nodeSelector` adds to its default node affinity (which requires one of three
labels, `nvidia.com/gpu.present=true` among them: the layout sets it), `resources` and `securityContext`
apply to the plugin's container. Where the pods really go, and what they run as, is read from the chart as
it renders (mlplatform_core/data/charts, scripts/render_charts.py), not restated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import addon_versions as versions
from ..layout import Layout, NodeGroupSpec
from ..scheduling import DEVICE_PLUGIN_LABEL, GPU_RESOURCE, Toleration
from . import charts

DAEMONSET = "nvidia-device-plugin"
# Rendered by the chart alongside, for MPS GPU sharing: it selects nvidia.com/mps.capable=true, a label only
# GPU feature discovery sets once MPS sharing is configured; neither is, so it runs nowhere.
MPS_DAEMONSET = "nvidia-device-plugin-mps-control-daemon"
# Requests for the plugin's container (it only registers devices and answers the kubelet: small and steady).
RESOURCES = {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}
# The chart's default container securityContext (no privilege escalation, all capabilities dropped) plus a
# read-only root filesystem: the plugin writes only into its host-path mounts (its kubelet socket, CDI specs).
SECURITY_CONTEXT = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}
# The runtime's default seccomp profile for the pod (privileged containers, the MPS daemon's, run unconfined).
POD_SECURITY_CONTEXT = {"seccompProfile": {"type": "RuntimeDefault"}}
# What the plugin needs that the hardening baseline would forbid, stated instead of silently exempted.
HOST_NEEDS: Mapping[str, str] = {
    DAEMONSET: (
        "runs as root with host paths: it serves its gRPC socket from the kubelet's root-owned "
        "/var/lib/kubelet/device-plugins and writes CDI specs to /var/run/cdi on the node"
    ),
    MPS_DAEMONSET: (
        "privileged with the host's PID namespace (the MPS control daemon drives the node's GPUs); it runs on no "
        "node of this layout (no node carries nvidia.com/mps.capable=true)"
    ),
}


def plugin_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """The GPU groups whose nodes need the device plugin DaemonSet."""
    return tuple(g for g in layout.gpu_groups if g.labels.get(DEVICE_PLUGIN_LABEL) == "true")


def device_plugin_values(layout: Layout, image_registry: str | None = None) -> dict[str, Any] | None:
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
        "resources": RESOURCES,
        "securityContext": SECURITY_CONTEXT,
        "podSecurityContext": POD_SECURITY_CONTEXT,
    }
    if image_registry:
        values["image"] = {"repository": charts.image_repository(versions.NVIDIA_DEVICE_PLUGIN, image_registry)}
    return values


def daemonset_groups(layout: Layout) -> dict[str, tuple[tuple[str, ...], str]]:
    """Each DaemonSet the chart renders -> (the groups it must run on, and no others; why)."""
    return {
        DAEMONSET: (
            tuple(g.name for g in plugin_groups(layout)),
            "advertises nvidia.com/gpu on AL2023 GPU nodes (Bottlerocket runs its own)",
        ),
        MPS_DAEMONSET: ((), "MPS GPU sharing is not configured: no node is MPS-capable"),
    }


def device_plugin_groups(layout: Layout) -> tuple[str, ...]:
    """The groups the device plugin runs on (the ones its values select): its deployment waits for these only."""
    return tuple(g.name for g in plugin_groups(layout))
