"""pulumi-eks's own security groups around the control plane, as pulumi_eks.py's Construct model creates them.

Unless `skipDefaultSecurityGroups` (default: autoMode.enabled): a cluster security group with an egress rule
(nodejs/eks/cluster/cluster.ts @ v4.3.0, 548-585), and in createCluster a node security group with its
rules and the cluster's ingress rule from it (cluster.ts:2120-2148, nodes/securitygroup.ts:108-203),
created although no node group uses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import Child, Path

_MANAGED_BY_PULUMI = "Managed by Pulumi"  # @pulumi/aws's schema default for SecurityGroup.description


def cluster_security_group(add: Any, name: str, inputs: Mapping[str, Any], tags: Any, vpc_unknown: tuple) -> Child:
    """pulumi-eks's cluster security group and its egress rule (cluster.ts:548-585)."""
    cluster_sg = add(
        "aws:ec2/securityGroup:SecurityGroup",
        f"{name}-eksClusterSecurityGroup",
        {
            "vpcId": inputs["vpcId"],
            "revokeRulesOnDelete": True,
            "tags": {"Name": f"{name}-eksClusterSecurityGroup", **(tags or {})},
            "description": _MANAGED_BY_PULUMI,
        },
        unknown_in_preview=vpc_unknown,
    )
    add(
        "aws:ec2/securityGroupRule:SecurityGroupRule",
        f"{name}-eksClusterInternetEgressRule",
        {
            "description": "Allow internet access.",
            "type": "egress",
            "fromPort": 0,
            "toPort": 0,
            "protocol": "-1",
            "cidrBlocks": ["0.0.0.0/0"],
            "securityGroupId": cluster_sg.id,
        },
        unknown_in_preview=(("securityGroupId",),),
    )
    return cluster_sg


# The node security group's rules (nodes/securitygroup.ts:108-203): name suffix, description, type, ports,
# protocol, and the peer: the group itself, the cluster security group, or the internet.
_NODE_RULES = (
    ("eksNodeIngressRule", "Allow nodes to communicate with each other", "ingress", 0, 0, "-1", "self"),
    (
        "eksNodeClusterIngressRule",
        "Allow worker Kubelets and pods to receive communication from the cluster control plane",
        "ingress",
        1025,
        65535,
        "tcp",
        "cluster",
    ),
    (
        "eksExtApiServerClusterIngressRule",
        "Allow pods running extension API servers on port 443 to receive communication from cluster control plane",
        "ingress",
        443,
        443,
        "tcp",
        "cluster",
    ),
    ("eksNodeInternetEgressRule", "Allow internet access.", "egress", 0, 0, "-1", "internet"),
)


def node_security_group(
    add: Any, name: str, inputs: Mapping[str, Any], tags: Any, cluster_sg: Child, vpc_unknown: tuple
) -> tuple[Child, Child]:
    """The node security group, its rules and the cluster's ingress rule from it."""
    cluster_name = inputs["name"]
    node_sg = add(
        "aws:ec2/securityGroup:SecurityGroup",
        f"{name}-nodeSecurityGroup",
        {
            "vpcId": inputs["vpcId"],
            "revokeRulesOnDelete": True,
            "tags": {
                "Name": f"{name}-nodeSecurityGroup",
                f"kubernetes.io/cluster/{cluster_name}": "owned",
                **(tags or {}),
            },
            "description": _MANAGED_BY_PULUMI,
        },
        unknown_in_preview=vpc_unknown,
    )
    peers = {
        "self": {"self": True},
        "cluster": {"sourceSecurityGroupId": cluster_sg.id},
        "internet": {"cidrBlocks": ["0.0.0.0/0"]},
    }
    for suffix, description, kind, low, high, protocol, peer in _NODE_RULES:
        extra = peers[peer]
        unknown_paths: tuple[Path, ...] = (("securityGroupId",),) + (
            (("sourceSecurityGroupId",),) if "sourceSecurityGroupId" in extra else ()
        )
        add(
            "aws:ec2/securityGroupRule:SecurityGroupRule",
            f"{name}-{suffix}",
            {
                "description": description,
                "type": kind,
                "fromPort": low,
                "toPort": high,
                "protocol": protocol,
                "securityGroupId": node_sg.id,
                **extra,
            },
            unknown_in_preview=unknown_paths,
        )
    ingress = add(
        "aws:ec2/securityGroupRule:SecurityGroupRule",
        f"{name}-eksClusterIngressRule",
        {
            "description": "Allow pods to communicate with the cluster API Server",
            "type": "ingress",
            "fromPort": 443,
            "toPort": 443,
            "protocol": "tcp",
            "securityGroupId": cluster_sg.id,
            "sourceSecurityGroupId": node_sg.id,
        },
        unknown_in_preview=(("securityGroupId",), ("sourceSecurityGroupId",)),
    )
    return node_sg, ingress
