"""The Auto Mode cluster role's permission to put the stack's own tags on what Auto Mode launches.

The NodeClasses set `spec.tags` (manifests.py: the stack's tags and the group's name), which Auto Mode puts on the
instances, launch templates, volumes and network interfaces it creates. The managed policies of the cluster role
refuse such a request: AmazonEKSComputePolicy allows ec2:CreateFleet, ec2:RunInstances and ec2:CreateLaunchTemplate
only with tag keys among eks:eks-cluster-name, eks:kubernetes-node-class-name, eks:kubernetes-node-pool-name and
kubernetes.io/cluster/*, and AmazonEKSNetworkingPolicy ec2:CreateNetworkInterface only with its own keys (their
documents as moto ships them: mlplatform_core/data/iam_requirements.json `managedPolicies`). The EKS user guide says
the cluster role then needs extra permissions ("Custom AWS tags for EKS Auto resources", auto-cluster-iam-role;
awsdocs/amazon-eks-user-guide latest/ug/automode/auto-learn-iam.adoc [[tag-prop]]) and shows an unrestricted
example. This one keeps the example's conditions (the request is tagged with the cluster's own name, which EKS also
puts on the role's session as eks:eks-cluster-name) and allows only the tag keys the managed policy allows plus the
stack's own (aws:TagKeys): nothing else may be tagged through it. Proven by model/iam/requirements.py against the
user guide's statements with the NodeClasses' tags.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..karpenter.manifests import NODE_GROUP_TAG

CLUSTER_NAME_TAG = "eks:eks-cluster-name"
SESSION_CLUSTER_NAME = "${aws:PrincipalTag/eks:eks-cluster-name}"  # the cluster role's session tag (EKS sets it)
# The keys AmazonEKSComputePolicy and AmazonEKSNetworkingPolicy allow on their own (their ForAllValues aws:TagKeys).
COMPUTE_KEYS = (
    CLUSTER_NAME_TAG,
    "eks:kubernetes-node-class-name",
    "eks:kubernetes-node-pool-name",
    "kubernetes.io/cluster/*",
)
NETWORK_KEYS = (
    CLUSTER_NAME_TAG,
    "eks:kubernetes-cni-node-name",
    "sgp.eks.amazonaws.com/instance-id",
    "sgp.eks.amazonaws.com/trunk-eni-id",
    "sgp.eks.amazonaws.com/vlan-id",
    "sgp.eks.amazonaws.com/managed",
    "sgp.eks.amazonaws.com/policy-ref",
)


def node_class_tag_keys(stack_tags: Iterable[str]) -> list[str]:
    """The keys a NodeClass of the stack tags with (manifests.node_class_spec)."""
    return sorted({*stack_tags, NODE_GROUP_TAG})


def custom_tags_policy(tag_keys: Iterable[str]) -> dict[str, Any]:
    """The cluster role's inline policy for NodeClasses tagging with `tag_keys` (node_class_tag_keys)."""
    keys = sorted(set(tag_keys))
    cluster = {f"aws:RequestTag/{CLUSTER_NAME_TAG}": SESSION_CLUSTER_NAME}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "LaunchWithStackTags",
                "Effect": "Allow",
                "Action": ["ec2:CreateFleet", "ec2:CreateLaunchTemplate", "ec2:RunInstances"],
                "Resource": "*",
                "Condition": {
                    "StringEquals": cluster,
                    "StringLike": {
                        "aws:RequestTag/eks:kubernetes-node-class-name": "*",
                        "aws:RequestTag/eks:kubernetes-node-pool-name": "*",
                    },
                    "ForAllValues:StringLike": {"aws:TagKeys": [*COMPUTE_KEYS, *keys]},
                },
            },
            {
                "Sid": "NetworkInterfacesWithStackTags",
                "Effect": "Allow",
                "Action": ["ec2:CreateNetworkInterface"],
                "Resource": "*",
                "Condition": {
                    "StringEquals": cluster,
                    "StringLike": {"aws:RequestTag/eks:kubernetes-cni-node-name": "*"},
                    "ForAllValues:StringLike": {"aws:TagKeys": [*NETWORK_KEYS, *keys]},
                },
            },
        ],
    }
