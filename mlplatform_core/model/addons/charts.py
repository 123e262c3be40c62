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
# GPU capacity (issue 21), pinned in the same style until the per-minor chart data covers them:
# aws/eks-charts stable/aws-efa-k8s-device-plugin/Chart.yaml @ 52396092 (version v0.5.30, app v0.5.20);
# NVIDIA/dcgm-exporter deployment/Chart.yaml at tag 4.5.3-4.8.2 (chart 4.8.2);
# NVIDIA/gpu-operator release v26.7.0 (its MIG manager; the chart repository publishes the release tag as version).
EFA_DEVICE_PLUGIN = Chart("aws-efa-k8s-device-plugin", "v0.5.30", "https://aws.github.io/eks-charts", "kube-system")
DCGM_EXPORTER = Chart("dcgm-exporter", "4.8.2", "https://nvidia.github.io/dcgm-exporter/helm-charts", "kube-system")
GPU_OPERATOR = Chart("gpu-operator", "v26.7.0", "https://helm.ngc.nvidia.com/nvidia", "gpu-operator")
CHARTS = (CLUSTER_AUTOSCALER, NVIDIA_DEVICE_PLUGIN, EFA_DEVICE_PLUGIN, DCGM_EXPORTER, GPU_OPERATOR)
