"""Cluster add-ons: chart versions, the autoscaler's IAM policy and IRSA trust, and every add-on's values.

Pure Python. Chart versions are pinned here and only here. The values are
derived from the layout: the autoscaler runs where core services run (the
initial group, whose CriticalAddonsOnly taint it tolerates) and prefers spot
groups; the device plugin runs on exactly the GPU groups' nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from .layout import AUTOSCALER_PREFIX, INITIAL, Layout
from .scheduling import CRITICAL_ADDONS_TAINT, GPU_PRESENT_LABEL, GPU_RESOURCE, ROLE_LABEL, Toleration


@dataclass(frozen=True)
class Chart:
    name: str
    version: str
    repo: str
    namespace: str


# Pinned charts. The autoscaler's minor must match Kubernetes' (its scheduler simulation is
# version-specific); chart 9.47.0+ is the 1.33 line, and the image is pinned per minor below.
CLUSTER_AUTOSCALER = Chart("cluster-autoscaler", "9.50.0", "https://kubernetes.github.io/autoscaler", "kube-system")
NVIDIA_DEVICE_PLUGIN = Chart("nvidia-device-plugin", "0.18.0", "https://nvidia.github.io/k8s-device-plugin",
                             "kube-system")
CHARTS = (CLUSTER_AUTOSCALER, NVIDIA_DEVICE_PLUGIN)
AUTOSCALER_IMAGE_TAGS = {
    "1.29": "v1.29.5", "1.30": "v1.30.6", "1.31": "v1.31.4", "1.32": "v1.32.3", "1.33": "v1.33.1", "1.34": "v1.34.0",
}
AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"

# Priority expander: a pending pod that fits both goes to spot first, then on-demand.
SPOT_PRIORITY = 50
ON_DEMAND_PRIORITY = 10
FALLBACK_PRIORITY = 1  # groups matching no pattern would otherwise never be scaled


def autoscaler_image_tag(kubernetes_version: str) -> str:
    """The autoscaler release for the cluster's minor; the nearest known one for a minor not in the table."""
    if kubernetes_version in AUTOSCALER_IMAGE_TAGS:
        return AUTOSCALER_IMAGE_TAGS[kubernetes_version]
    minor = int(kubernetes_version.split(".")[1])
    nearest = min(AUTOSCALER_IMAGE_TAGS, key=lambda v: abs(int(v.split(".")[1]) - minor))
    return AUTOSCALER_IMAGE_TAGS[nearest]


# --- IAM ------------------------------------------------------------------------------------------

_READ_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "autoscaling:DescribeTags",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
    "eks:DescribeNodegroup",
)
MUTATING_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


def autoscaler_policy(cluster_name: str) -> dict[str, Any]:
    """Read anything; resize or terminate only Auto Scaling groups tagged as this cluster's (layout tags them)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "Discover", "Effect": "Allow", "Action": list(_READ_ACTIONS), "Resource": "*"},
            {
                "Sid": "ScaleThisClustersGroups",
                "Effect": "Allow",
                "Action": list(MUTATING_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {f"aws:ResourceTag/{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}},
            },
        ],
    }


def irsa_trust_policy(oidc_provider_arn: str, oidc_provider_url: str, namespace: str,
                      service_account: str) -> dict[str, Any]:
    """Web-identity trust for one service account of this cluster (IRSA), nothing else in the cluster."""
    issuer = re.sub(r"^https://", "", oidc_provider_url)
    return {
        "Version": "2012-10-17",
        "Statement": [{
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {
                f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                f"{issuer}:aud": "sts.amazonaws.com",
            }},
        }],
    }


# --- Helm values ----------------------------------------------------------------------------------


def _core_services_placement() -> dict[str, Any]:
    """Pin a core add-on to the initial group and tolerate its taint (seed 003: it hosts core services)."""
    return {
        "nodeSelector": {ROLE_LABEL: INITIAL},
        "tolerations": [Toleration(CRITICAL_ADDONS_TAINT.key, "Exists", "", CRITICAL_ADDONS_TAINT.effect).to_dict()],
    }


def asg_name_pattern(node_group_name: str) -> str:
    """EKS names a managed node group's Auto Scaling group eks-<node group name>-<uuid>."""
    # Escape only what RE2 (the autoscaler's regex engine) treats as special; names are [A-Za-z0-9_-].
    escaped = re.sub(r"([^A-Za-z0-9_-])", r"\\\1", node_group_name)
    return f"^eks-{escaped}-[0-9a-f-]+$"


def expander_priorities(layout: Layout, node_group_names: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Priority expander config: ASG name patterns per priority, spot groups above on-demand ones.

    `node_group_names` maps layout group names to EKS node group names (Pulumi
    may add a suffix); without it the layout names are used as they are.
    """
    names = node_group_names or {}
    spot, on_demand = [], []
    for g in layout.groups:
        if not g.autoscaled:  # the static initial group is not discovered by the autoscaler at all
            continue
        (spot if g.preemptible else on_demand).append(asg_name_pattern(names.get(g.name, g.name)))
    # String keys: Helm values are JSON objects; the autoscaler reads them back as integers.
    out: dict[str, list[str]] = {}
    if spot:
        out[str(SPOT_PRIORITY)] = spot
    if on_demand:
        out[str(ON_DEMAND_PRIORITY)] = on_demand
    out[str(FALLBACK_PRIORITY)] = [".*"]
    return out


def autoscaler_values(layout: Layout, region: str, role_arn: Any, kubernetes_version: str,
                      node_group_names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Values for the cluster-autoscaler chart. `role_arn` may be a Pulumi Output."""
    return {
        "cloudProvider": "aws",
        "awsRegion": region,
        "autoDiscovery": {"clusterName": layout.cluster_name},
        "image": {"tag": autoscaler_image_tag(kubernetes_version)},
        "fullnameOverride": AUTOSCALER_SERVICE_ACCOUNT,
        "rbac": {"serviceAccount": {
            "create": True,
            "name": AUTOSCALER_SERVICE_ACCOUNT,
            "annotations": {"eks.amazonaws.com/role-arn": role_arn},
        }},
        "extraArgs": {
            "balance-similar-node-groups": True,
            # priority first; least-waste breaks ties within a priority.
            "expander": "priority,least-waste",
        },
        "expanderPriorities": expander_priorities(layout, node_group_names),
        "priorityClassName": "system-cluster-critical",
        **_core_services_placement(),
    }


def device_plugin_values(layout: Layout) -> dict[str, Any] | None:
    """Values for the NVIDIA device plugin, or None when the stack has no GPU group (nothing to expose)."""
    gpu_groups = layout.gpu_groups
    if not gpu_groups:
        return None
    tolerations = [Toleration(GPU_RESOURCE, "Exists", "", "NoSchedule")]
    # A GPU group may carry more taints (spot, user taints): the plugin must run on every GPU node anyway.
    for g in gpu_groups:
        for taint in g.taints:
            if taint.repels and not any(t.tolerates(taint) for t in tolerations):
                tolerations.append(Toleration.for_taint(taint))
    return {
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "tolerations": [t.to_dict() for t in tolerations],
    }


def coredns_configuration() -> dict[str, Any]:
    """EKS coredns add-on configuration: run on the initial group like the other core services.

    Replaces the add-on's default tolerations, so the control-plane one is kept.
    """
    placement = _core_services_placement()
    placement["tolerations"].append({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"})
    return placement
