"""The control plane's security baseline and the node role, as plain data (components/cluster.py applies them)."""

from __future__ import annotations

from typing import Any

from .config import StackConfig
from .layout import Layout
from .regions import partition_of
from .scheduling import ENVIRONMENT_LABEL

CLUSTER_TAG = "mlplatform.io/cluster"
CONTROL_PLANE_LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"]
# Only what a kubelet and the VPC CNI need; anything broader belongs on a pod's IRSA role.
NODE_POLICY_NAMES = {
    "worker": "AmazonEKSWorkerNodePolicy",
    "cni": "AmazonEKS_CNI_Policy",
    "ecr": "AmazonEC2ContainerRegistryReadOnly",
}


def managed_policy_arn(name: str, region: str) -> str:
    """An AWS managed policy in the region's partition: arn:aws:, arn:aws-us-gov:, arn:aws-cn: (IAM user guide,
    "IAM ARNs"); the same name in another partition's ARN does not exist there and fails the attachment."""
    return f"arn:{partition_of(region)}:iam::aws:policy/{name}"


def node_managed_policies(region: str) -> dict[str, str]:
    return {short: managed_policy_arn(name, region) for short, name in NODE_POLICY_NAMES.items()}


# The EC2 service principal is ec2.amazonaws.com in every partition, China included, as pulumi-eks
# (nodejs/eks/cluster/cluster.ts:632 @ 7bf0c1b1) and terraform-aws-eks (modules/eks-managed-node-group/main.tf:592
# @ v21.19.0) write it; pulumi-eks notes the same for eks.amazonaws.com ("All aws partitions use same service").
EC2_TRUST_POLICY: dict[str, Any] = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def resource_tags(cfg: StackConfig, layout: Layout) -> dict[str, str]:
    """AWS tags on every resource: the stack's own, then the environment and cluster (which the policies read)."""
    return {**cfg.tags, ENVIRONMENT_LABEL: cfg.environment, CLUSTER_TAG: layout.cluster_name}
