"""The discovery tag node classes select the cluster's subnets and security group by (Karpenter, Auto Mode).

A created VPC tags its own private subnets (components/network.py); these tag what the stack does not
create: the security group EKS made for the cluster (its id is known once the cluster exists) and the
private subnets of an existing VPC.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.karpenter.spec import DISCOVERY_TAG


def discovery_tags(
    name: str,
    cluster_name: str,
    cluster: pulumi.Resource,
    subnet_ids: Sequence[pulumi.Input[str]],
    parent: pulumi.Resource,
) -> list[pulumi.Resource]:
    """aws.ec2.Tag resources: `<name>-discovery-sg` on the cluster security group, one per subnet."""
    child = pulumi.ResourceOptions(parent=parent)
    security_group = aws.eks.get_cluster_output(
        name=cluster_name, opts=pulumi.InvokeOutputOptions(parent=parent, depends_on=[cluster])
    ).vpc_config.cluster_security_group_id
    tags: list[pulumi.Resource] = [
        aws.ec2.Tag(
            f"{name}-discovery-sg", resource_id=security_group, key=DISCOVERY_TAG, value=cluster_name, opts=child
        )
    ]
    tags += [
        aws.ec2.Tag(f"{name}-discovery-subnet-{i}", resource_id=s, key=DISCOVERY_TAG, value=cluster_name, opts=child)
        for i, s in enumerate(subnet_ids)
    ]
    return tags
