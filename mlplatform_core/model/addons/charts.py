"""The Helm charts the workload layer installs: each chart's version follows the cluster's Kubernetes minor.

The versions are generated data (versions.py); this module names the charts, their repositories and the
namespaces their releases go to, and rewrites image repositories onto a mirror registry (imageRegistry).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..workloads import MANAGED_LABELS

# The releases' namespaces. The device plugin gets its own: with GPU sharing its chart adds config-manager
# containers that no value gives resources, and a LimitRange there gives them requests without touching EKS's
# own pods in kube-system (system-node-critical pods run outside kube-system too, as the GPU operator's device
# plugin does: NVIDIA/gpu-operator assets/state-device-plugin/0500_daemonset.yaml).
KUBE_SYSTEM = "kube-system"
DEVICE_PLUGIN_NAMESPACE = "nvidia-device-plugin"
NAMESPACES = {
    versions.CLUSTER_AUTOSCALER: KUBE_SYSTEM,
    versions.NVIDIA_DEVICE_PLUGIN: DEVICE_PLUGIN_NAMESPACE,
    versions.KARPENTER: KUBE_SYSTEM,  # where the upstream guide installs it
    versions.KARPENTER_CRD: KUBE_SYSTEM,
    versions.EFA_DEVICE_PLUGIN: KUBE_SYSTEM,
    versions.GPU_OPERATOR: "gpu-operator",  # NVIDIA's install guide's namespace
    versions.DCGM_EXPORTER: KUBE_SYSTEM,
    versions.NVIDIA_DRA_DRIVER: "nvidia-dra-driver-gpu",  # NVIDIA's install guide's namespace
    versions.KUEUE: "kueue-system",  # the namespace of Kueue's own manifests and install guide
}


@dataclass(frozen=True)
class Chart:
    name: str
    version: str
    repo: str  # an https chart repository, or an OCI reference without the chart's name
    namespace: str

    @property
    def oci(self) -> bool:
        return self.repo.startswith("oci://")


def chart(name: str, minor: str) -> Chart:
    """The pinned chart of `name` for a cluster of `minor`; KeyError when none is pinned (validation refuses
    such a stack first, with the minors that would work)."""
    pin = versions.pinned(name, minor)
    if pin is None:
        raise KeyError(f"no pinned {name} chart for Kubernetes {minor}")
    repo = versions.chart_source(name)["repo"]
    if repo.startswith("oci://"):  # the data names the chart's full OCI reference
        repo = repo.rsplit("/", 1)[0]
    return Chart(name, str(pin["chart"]), repo, NAMESPACES[name])


def image_repository(name: str, registry: str | None) -> str:
    """The chart's image repository, moved onto `registry` (a mirror) when one is set: the path is kept,
    e.g. registry.k8s.io/autoscaling/cluster-autoscaler -> <registry>/autoscaling/cluster-autoscaler."""
    return moved(versions.chart_source(name)["image"], registry)


def moved(repository: str, registry: str | None) -> str:
    """An image repository with its registry host replaced by `registry` (the path kept), or as is without one."""
    if not registry:
        return repository
    return f"{registry.rstrip('/')}/{repository.split('/', 1)[1]}"


def image_tag(name: str, minor: str) -> str:
    """The pinned image tag of `name` for `minor`; KeyError when none is pinned (never a neighbour's)."""
    pin = versions.pinned(name, minor)
    if pin is None:
        raise KeyError(f"no pinned {name} image for Kubernetes {minor}")
    return str(pin["image"])


def namespace_with_limits(namespace: str, container_defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A release's own namespace and the LimitRange that gives its containers requests, created before the release
    (for charts whose containers set none; the namespace's pods are then admitted under the stack's quotas)."""
    labels = dict(MANAGED_LABELS)
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace, "labels": labels}},
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "container-defaults", "namespace": namespace, "labels": labels},
            "spec": {"limits": [{"type": "Container", **container_defaults}]},
        },
    ]
