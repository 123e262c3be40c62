"""The Cluster Autoscaler: its image per Kubernetes minor, its IAM policy and its Helm values.

Pure Python. The autoscaler runs where core services run (the initial group) and its
priority expander tries spot groups first. The expander's priorities name every node group, so they
live in their own ConfigMap rather than in the chart's values: the release (the autoscaler's pods)
then waits for the initial group only, and the ConfigMap for the groups it names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from .. import addon_versions as versions
from ..layout import AUTOSCALER_PREFIX, Layout
from ..regions import partition_of
from . import charts
from .core_services import core_services_placement

AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
# The ConfigMap the priority expander reads in its own namespace (kubernetes/autoscaler
# cluster-autoscaler/expander/priority/priority.go: PriorityConfigMapName, key "priorities"). It watches
# it: created after the autoscaler starts, it is picked up; until then every option is kept.
PRIORITY_CONFIG_MAP = "cluster-autoscaler-priority-expander"

# Priority expander: a pending pod that fits both goes to spot first, then on-demand.
SPOT_PRIORITY = 50
ON_DEMAND_PRIORITY = 10
FALLBACK_PRIORITY = 1  # groups matching no pattern would otherwise never be scaled


# Requests = the memory limit (a controller must not be OOM-killed by a neighbour's burst, nor burst itself);
# the sizes of the autoscaler's own AWS example (cluster-autoscaler/cloudprovider/aws/examples/
# cluster-autoscaler-autodiscover.yaml @ cluster-autoscaler-1.36.1). No CPU limit: throttling slows scale-up.
RESOURCES = {"requests": {"cpu": "100m", "memory": "600Mi"}, "limits": {"memory": "600Mi"}}
# The same example's pod and container securityContext: nobody (65534), no privilege escalation, read-only root
# filesystem, every capability dropped, the runtime's seccomp profile.
POD_SECURITY_CONTEXT = {
    "runAsNonRoot": True,
    "runAsUser": 65534,
    "runAsGroup": 65534,
    "fsGroup": 65534,
    "seccompProfile": {"type": "RuntimeDefault"},
}
CONTAINER_SECURITY_CONTEXT = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def autoscaler_image_tag(kubernetes_version: str) -> str:
    """The autoscaler release of the cluster's minor (generated: addon_versions.json)."""
    return charts.image_tag(versions.CLUSTER_AUTOSCALER, kubernetes_version)


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
)
NODEGROUP_ACTION = "eks:DescribeNodegroup"
MUTATING_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


def nodegroup_arn_pattern(cluster_name: str, region: str, account_id: str) -> str:
    """Every node group of this cluster (arn:<partition>:eks:<region>:<account>:nodegroup/<cluster>/<name>/<uuid>;
    EKS service authorization reference: resource type nodegroup)."""
    return f"arn:{partition_of(region)}:eks:{region}:{account_id}:nodegroup/{cluster_name}/*/*"


def autoscaler_policy(cluster_name: str, region: str, account_id: str) -> dict[str, Any]:
    """Read what the Describe APIs allow only on `*`; describe only this cluster's node groups; resize or
    terminate only Auto Scaling groups tagged as this cluster's.

    EKS puts that tag (k8s.io/cluster-autoscaler/<cluster> = owned) on every managed node group's ASG
    itself (layout.discovery_tags). The autoscaling and ec2 Describe* actions support no resource-level
    permissions (service authorization reference), so they stay on `*`.
    """
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "Discover", "Effect": "Allow", "Action": list(_READ_ACTIONS), "Resource": "*"},
            {
                "Sid": "DescribeThisClustersNodeGroups",
                "Effect": "Allow",
                "Action": [NODEGROUP_ACTION],
                "Resource": nodegroup_arn_pattern(cluster_name, region, account_id),
            },
            {
                "Sid": "ScaleThisClustersGroups",
                "Effect": "Allow",
                "Action": list(MUTATING_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {f"aws:ResourceTag/{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}},
            },
        ],
    }


# --- Helm values ----------------------------------------------------------------------------------


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
        # EKS tags every managed group for discovery, the static initial group too; min = max keeps the
        # autoscaler from resizing it, and it gets no priority of its own.
        if not g.autoscaled:
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


def priority_config_map_data(priorities: Mapping[str, list[str]]) -> dict[str, str]:
    """The priority expander's ConfigMap data: YAML with integer keys, as priority.go unmarshals it
    (map[int][]string with gopkg.in/yaml.v2: a quoted key would not parse)."""
    return {"priorities": yaml.safe_dump({int(k): list(v) for k, v in priorities.items()}, sort_keys=True)}


def autoscaler_values(layout: Layout, region: str, role_arn: Any, image_registry: str | None = None) -> dict[str, Any]:
    """Values for the cluster-autoscaler chart of the layout's minor. `role_arn` may be a Pulumi Output; None: the
    role comes through EKS Pod Identity, so the service account carries no IRSA annotation."""
    image: dict[str, str] = {"tag": autoscaler_image_tag(layout.kubernetes_version)}
    if image_registry:
        image["repository"] = charts.image_repository(versions.CLUSTER_AUTOSCALER, image_registry)
    account: dict[str, Any] = {"create": True, "name": AUTOSCALER_SERVICE_ACCOUNT}
    if role_arn is not None:
        account["annotations"] = {"eks.amazonaws.com/role-arn": role_arn}
    return {
        "cloudProvider": "aws",
        "awsRegion": region,
        "autoDiscovery": {"clusterName": layout.cluster_name},
        "image": image,
        "fullnameOverride": AUTOSCALER_SERVICE_ACCOUNT,
        "rbac": {"serviceAccount": account},
        "extraArgs": {
            "balance-similar-node-groups": True,
            # priority first; least-waste breaks ties within a priority.
            "expander": "priority,least-waste",
        },
        "priorityClassName": "system-cluster-critical",
        "resources": RESOURCES,
        "securityContext": POD_SECURITY_CONTEXT,
        "containerSecurityContext": CONTAINER_SECURITY_CONTEXT,
        **core_services_placement(),
    }
