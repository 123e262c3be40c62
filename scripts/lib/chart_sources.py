"""Which upstream charts scripts/generators/render_charts.py renders, with which sample stacks, recording what.

Each chart by the scripts/upstream.json role of its repository, the tag of a version (`pin`: the pin's newest
repository tag) and the chart's path there; the sample stack files whose layouts give its values; the facts the
proof reads beyond workloads and RBAC; and the stack files whose full renderings `make scan` reads.
"""

from __future__ import annotations

from typing import Any

from mlplatform_core.model import addon_versions as versions

# Where each chart lives, by the upstream.json role of its repository and the tag of a version.
CHARTS: dict[str, dict[str, Any]] = {
    versions.CLUSTER_AUTOSCALER: {
        "role": "autoscaler-charts",
        "tag": "cluster-autoscaler-chart-{}",
        "paths": ("cluster-autoscaler/charts/cluster-autoscaler", "charts/cluster-autoscaler"),
    },
    versions.NVIDIA_DEVICE_PLUGIN: {
        "role": "device-plugin-charts",
        "tag": "v{}",
        "paths": ("deployments/helm/nvidia-device-plugin",),
    },
    # Their CRDs are symlinks into pkg/apis/crds.
    versions.KARPENTER: {
        "role": "karpenter-chart",
        "tag": "v{}",
        "paths": ("charts/karpenter",),
        "with": "pkg/apis/crds",
    },
    versions.KARPENTER_CRD: {
        "role": "karpenter-chart",
        "tag": "v{}",
        "paths": ("charts/karpenter-crd",),
        "with": "pkg/apis/crds",
    },
    # eks-charts tags the repository, not the chart: the pinned chart version is the one at the pin's newest tag.
    versions.EFA_DEVICE_PLUGIN: {
        "role": "efa-plugin-chart",
        "tag": "pin",
        "paths": ("stable/aws-efa-k8s-device-plugin",),
    },
    versions.GPU_OPERATOR: {"role": "gpu-operator-chart", "tag": "{}", "paths": ("deployments/gpu-operator",)},
    versions.DCGM_EXPORTER: {"role": "dcgm-exporter-chart", "tag": "pin", "paths": ("deployment",)},
    versions.NVIDIA_DRA_DRIVER: {
        "role": "dra-driver-chart",
        "tag": "v{}",
        "paths": ("deployments/helm/nvidia-dra-driver-gpu",),
    },
    versions.KUEUE: {"role": "kueue-chart", "tag": "v{}", "paths": ("charts/kueue",)},
}
# The training example's groups with `train` on DRA (a DRA managed node group keeps one node: layout/allocation.py).
DRA_TRAINING = (
    '[{"name": "train", "gpu": true, "instanceTypes": ["p5.48xlarge"], "efa": true, "availabilityZone": '
    '"us-east-1a", "minSize": 1, "maxSize": 4, "gpuAllocation": "dra"}, {"name": "train-block", "gpu": true, '
    '"instanceTypes": ["p5.48xlarge"], "efa": true, "availabilityZone": "us-east-1b", "capacityReservation": '
    '{"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2}}]'
)
# The stack files whose layouts give each chart's base values: the first the facts, each other a variant (the device
# plugin with GPU sharing: its config adds the chart's config-manager containers).
# A sample may change settings of its file ("path#key=json"): the DCGM exporter without node repair is a client of
# no other host engine (model/addons/gpu_agents.py), so it renders other arguments.
SAMPLE_STACKS = {
    versions.CLUSTER_AUTOSCALER: ("stacks/Pulumi.dev.yaml",),
    versions.NVIDIA_DEVICE_PLUGIN: ("stacks/Pulumi.dev.yaml", "examples/stacks/Pulumi.shared-gpus.yaml"),
    versions.KARPENTER: ("stacks/Pulumi.dev-karpenter.yaml",),
    versions.KARPENTER_CRD: ("stacks/Pulumi.dev-karpenter.yaml",),
    versions.EFA_DEVICE_PLUGIN: ("examples/stacks/Pulumi.training.yaml",),
    versions.GPU_OPERATOR: ("examples/stacks/Pulumi.shared-gpus.yaml",),
    versions.DCGM_EXPORTER: (
        "examples/stacks/Pulumi.training.yaml",
        "examples/stacks/Pulumi.training.yaml#ml-platform-eks:nodeRepair=false",
    ),
    # The training example with its on-demand group on gpuAllocation: dra (EFA: the DRA driver next to the EFA
    # device plugin, and the device plugin on the Capacity Block group: never both on one node).
    versions.NVIDIA_DRA_DRIVER: (
        f"examples/stacks/Pulumi.training.yaml#ml-platform-eks:additionalNodeGroups={DRA_TRAINING}",
    ),
    versions.KUEUE: ("examples/stacks/Pulumi.teams.yaml",),
}
# What the proof reads of a chart beyond workloads and RBAC (rendered_facts.py): the device plugin's GPU sharing as
# the chart renders it (its ConfigMap of configs, the config manager's and plugin's env, the mounted ConfigMaps),
# the DCGM exporter's arguments and env (which host engine it uses).
EXTRA_FACTS: dict[str, dict[str, Any]] = {
    versions.NVIDIA_DEVICE_PLUGIN: {"container": ("command", "env"), "configMaps": True},
    versions.DCGM_EXPORTER: {"container": ("args", "env")},
    # The DeviceClasses the pods of dra groups ask for (gpu.nvidia.com, mig.nvidia.com): recorded as rendered.
    versions.NVIDIA_DRA_DRIVER: {"deviceClasses": True},
}
# The stack files whose full renderings `make scan` reads: the shipped stacks and the GPU examples.
RENDERED_STACKS = (
    "examples/stacks/Pulumi.training.yaml",
    "examples/stacks/Pulumi.shared-gpus.yaml",
    "examples/stacks/Pulumi.teams.yaml",
)
