"""Helm charts the workload layer installs, pinned here and only here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    name: str
    version: str
    repo: str
    namespace: str


# Pinned charts. The autoscaler's minor must match Kubernetes' (its scheduler simulation is
# version-specific); chart 9.47.0+ is the 1.33 line, and the image is pinned per minor below.
CLUSTER_AUTOSCALER = Chart("cluster-autoscaler", "9.50.0", "https://kubernetes.github.io/autoscaler", "kube-system")
NVIDIA_DEVICE_PLUGIN = Chart(
    "nvidia-device-plugin", "0.18.0", "https://nvidia.github.io/k8s-device-plugin", "kube-system"
)
CHARTS = (CLUSTER_AUTOSCALER, NVIDIA_DEVICE_PLUGIN)
