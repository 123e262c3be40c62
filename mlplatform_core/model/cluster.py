"""The control plane's security baseline and the node role, as plain data (components/cluster.py applies them)."""

from __future__ import annotations

from typing import Any

from .config import StackConfig
from .layout import Layout
from .scheduling import ENVIRONMENT_LABEL

CLUSTER_TAG = "mlplatform.io/cluster"
CONTROL_PLANE_LOG_TYPES = ["api", "audit", "authenticator", "controllerManager", "scheduler"]
# Only what a kubelet and the VPC CNI need; anything broader belongs on a pod's IRSA role.
NODE_MANAGED_POLICIES = {
    "worker": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "cni": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "ecr": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
}
EC2_TRUST_POLICY: dict[str, Any] = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def resource_tags(cfg: StackConfig, layout: Layout) -> dict[str, str]:
    """AWS tags on every resource: the stack's own, then the environment and cluster (which the policies read)."""
    return {**cfg.tags, ENVIRONMENT_LABEL: cfg.environment, CLUSTER_TAG: layout.cluster_name}
