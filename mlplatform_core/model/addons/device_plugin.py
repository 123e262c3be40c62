"""The NVIDIA device plugin: on exactly the GPU groups that need it, tolerating every taint they carry.

Groups on AL2023 NVIDIA AMIs need it; Bottlerocket NVIDIA AMIs run NVIDIA's plugin as a host service
already (EKS user guide "Install Kubernetes device plugin for GPUs"), and two plugins on one node would
both register nvidia.com/gpu. The layout labels the groups that need it (layout.gpu.gpu_labels) and the
DaemonSet selects that label.

Chart values (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml): `tolerations`
replaces the chart's list, `nodeSelector` adds to its default node affinity (which requires one of three
labels, `nvidia.com/gpu.present=true` among them: the layout sets it), `resources` and `securityContext`
apply to the plugin's container, `config` (GPU sharing) adds the chart's config-manager containers. Where
the pods really go, and what they run as, is read from the chart as it renders (mlplatform_core/data/charts,
scripts/generators/render_charts.py), not restated here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import yaml

from .. import addon_versions as versions
from ..charts import facts as chart_facts
from ..layout import Layout, NodeGroupSpec
from ..layout.sharing import DEFAULT_DEVICE_PLUGIN_CONFIG
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
        "/var/lib/kubelet/device-plugins and writes CDI specs to /var/run/cdi on the node; with GPU sharing the "
        "chart's config-manager init container has no securityContext value (templates/daemonset-device-plugin.yml)"
    ),
    MPS_DAEMONSET: (
        "privileged with the host's PID namespace (the MPS control daemon drives the node's GPUs); it runs on no "
        "node of this layout (no node carries nvidia.com/mps.capable=true)"
    ),
}
# Requests and limits for the chart's containers that no value gives resources (the config manager's init and
# sidecar containers, v0.18-v0.20, with GPU sharing): a LimitRange in the release's namespace. Limits equal to the
# requests, as prod's LimitRanges are (Guaranteed QoS: policy prod-guaranteed-qos-defaults).
CONTAINER_DEFAULTS = {
    "defaultRequest": {"cpu": "50m", "memory": "64Mi"},
    "default": {"cpu": "50m", "memory": "64Mi"},
}
# While NVIDIA's MIG manager repartitions a node's GPUs it labels the node so (the GPU operator's
# k8s-mig-manager `paused-for-mig-change`) to stop the device plugin: our DaemonSet steps aside the same way.
PAUSED_FOR_MIG = {
    "key": "nvidia.com/gpu.deploy.device-plugin",
    "operator": "NotIn",
    "values": ["paused-for-mig-change"],
}


def namespace_objects() -> list[dict[str, Any]]:
    """The release's namespace and its LimitRange, created before the release."""
    return charts.namespace_with_limits(charts.DEVICE_PLUGIN_NAMESPACE, CONTAINER_DEFAULTS)


def plugin_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """The GPU groups whose nodes need the device plugin DaemonSet: while a stack migrates, the managed GPU groups
    and Karpenter GPU pools it keeps too (an Auto Mode pool's nodes bring their own plugin, the kept ones' not)."""
    found: dict[int, NodeGroupSpec] = {}  # by identity: a kept group and a pool may share a name
    for g in (*layout.gpu_groups, *layout.retained_groups, *layout.retained_pools):
        if g.gpu and g.labels.get(DEVICE_PLUGIN_LABEL) == "true":
            found.setdefault(id(g), g)
    return tuple(found.values())


def _sharing(g: Any) -> Any:
    """A group's GPU sharing; a kept Karpenter pool (a NodePoolSpec, retained_pools) shares none."""
    return getattr(g, "sharing", None)


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
    if configs := sharing_configs(layout):
        # One named config per sharing group, selected by the node label nvidia.com/device-plugin.config; the
        # chart then runs its config-manager sidecar, which switches the plugin's config when the label says.
        values["config"] = {"map": configs, "default": DEFAULT_DEVICE_PLUGIN_CONFIG}
    if any(_sharing(g) is not None and _sharing(g).kind == "mig" for g in groups):
        values["affinity"] = affinity(layout)
    return values


def sharing_configs(layout: Layout) -> dict[str, str]:
    """The device plugin's configs (config.map): `default` (no sharing) and one per sharing group."""
    shared = [g for g in plugin_groups(layout) if _sharing(g) is not None]
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
    # Without the final newline: the chart writes each config as a `|-` block, so the ConfigMap holds it verbatim.
    return yaml.safe_dump(doc, sort_keys=False).rstrip("\n")


def chart_affinity(layout: Layout) -> dict[str, Any]:
    """The chart's default node affinity (its values.yaml `affinity`, as the recorded facts of the layout's chart
    version hold it)."""
    chart = charts.chart(versions.NVIDIA_DEVICE_PLUGIN, layout.kubernetes_version)
    return copy.deepcopy(dict(chart_facts.load(chart.name, chart.version).defaults["affinity"]))


def affinity(layout: Layout) -> dict[str, Any]:
    """The chart's node affinity; with MIG groups, every term also steps aside while the MIG manager works."""
    out = chart_affinity(layout)
    if any(g.sharing is not None and g.sharing.kind == "mig" for g in layout.gpu_groups):
        for term in out["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]:
            term["matchExpressions"].append(dict(PAUSED_FOR_MIG))
    return out


def daemonset_groups(layout: Layout) -> dict[str, tuple[tuple[str, ...], str]]:
    """Each DaemonSet the chart renders -> (the groups it must run on, and no others; why)."""
    return {
        DAEMONSET: (
            tuple(layout.source_name(g) for g in plugin_groups(layout)),
            "advertises nvidia.com/gpu on AL2023 GPU nodes (Bottlerocket runs its own)",
        ),
        MPS_DAEMONSET: ((), "MPS GPU sharing is not configured: no node is MPS-capable"),
    }


def device_plugin_groups(layout: Layout) -> tuple[str, ...]:
    """The groups the device plugin runs on (the ones its values select): its deployment waits for these only."""
    return tuple(dict.fromkeys(g.name for g in plugin_groups(layout)))
