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
    moved_from: tuple[str, str] | None = None,
) -> list[pulumi.Resource]:
    """aws.ec2.Tag resources: `<name>-discovery-sg` on the cluster security group, one per subnet.

    `moved_from` (component URN, component name): where the same tags lived before (Karpenter's component, for
    a stack that moved on to Auto Mode). The alias makes Pulumi move them rather than create new ones and then
    delete the old: deleting an aws.ec2.Tag removes the tag from AWS, which the new one has just set.
    """

    def opts(tag: str) -> pulumi.ResourceOptions:
        if moved_from is None:
            return pulumi.ResourceOptions(parent=parent)
        old_parent, old_name = moved_from
        alias = pulumi.Alias(name=old_name + tag.removeprefix(name), parent=old_parent)
        return pulumi.ResourceOptions(parent=parent, aliases=[alias])

    security_group = aws.eks.get_cluster_output(
        name=cluster_name, opts=pulumi.InvokeOutputOptions(parent=parent, depends_on=[cluster])
    ).vpc_config.cluster_security_group_id
    sg = f"{name}-discovery-sg"
    tags: list[pulumi.Resource] = [
        aws.ec2.Tag(sg, resource_id=security_group, key=DISCOVERY_TAG, value=cluster_name, opts=opts(sg))
    ]
    for i, subnet in enumerate(subnet_ids):
        tag = f"{name}-discovery-subnet-{i}"
        tags.append(aws.ec2.Tag(tag, resource_id=subnet, key=DISCOVERY_TAG, value=cluster_name, opts=opts(tag)))
    return tags
