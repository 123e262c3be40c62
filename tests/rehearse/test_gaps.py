"""What moto does not implement, asserted against the running moto: the gap list cannot go stale.

When a moto release implements one of these operations, its test here fails: map the type for real (drop it
from gaps.NOT_IMPLEMENTED) and regenerate docs/rehearsal.md.
"""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.parsers import ResponseParserError

from mlplatform.rehearsal import EKS_SIDE, NOT_IMPLEMENTED
from mlplatform.rehearsal.api import CREDENTIALS
from mlplatform.rehearsal.server import reset

pytestmark = pytest.mark.rehearse
ROLE = "arn:aws:iam::123456789012:role/rehearsal"
# The smallest valid request of each operation moto lacks.
REQUESTS = {
    "CreateAddon": {"clusterName": "c", "addonName": "kube-proxy"},
    "CreateAccessEntry": {"clusterName": "c", "principalArn": ROLE},
    "AssociateAccessPolicy": {
        "clusterName": "c",
        "principalArn": ROLE,
        "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
        "accessScope": {"type": "cluster"},
    },
    "CreatePodIdentityAssociation": {"clusterName": "c", "namespace": "n", "serviceAccount": "s", "roleArn": ROLE},
    "CreatePlacementGroup": {"GroupName": "g", "Strategy": "cluster"},
}


def client(endpoint: str, service: str):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1", **CREDENTIALS)


def send(endpoint: str, service: str, operation: str, params: dict):
    c = client(endpoint, service)
    method = next(py for py, api in c.meta.method_to_api_mapping.items() if api == operation)
    return getattr(c, method)(**params)


@pytest.mark.parametrize("type_", sorted(NOT_IMPLEMENTED))
def test_moto_does_not_implement_what_the_gap_list_says(endpoint, type_):
    gap = NOT_IMPLEMENTED[type_]
    with pytest.raises((ClientError, ResponseParserError)) as refused:
        send(endpoint, gap.service, gap.operation, REQUESTS[gap.operation])
    # Not routed (EKS: 404) or routed to NotImplementedError (EC2: a 500 page botocore cannot parse).
    text = str(refused.value)
    assert "404" in text or "500 Internal Server Error" in text, text


def test_moto_plays_no_part_of_eks_s_side(endpoint):
    """moto's cluster reports no cluster security group, and its node group's Auto Scaling group does not exist."""
    assert set(EKS_SIDE) == {"aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup"}
    reset(endpoint)
    ec2, eks, asg = client(endpoint, "ec2"), client(endpoint, "eks"), client(endpoint, "autoscaling")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=f"us-east-1{z}")["Subnet"]["SubnetId"]
        for i, z in enumerate("ab")
    ]
    cluster = eks.create_cluster(name="c", roleArn=ROLE, resourcesVpcConfig={"subnetIds": subnets})["cluster"]
    assert "clusterSecurityGroupId" not in cluster["resourcesVpcConfig"]
    group = eks.create_nodegroup(clusterName="c", nodegroupName="g", nodeRole=ROLE, subnets=subnets)["nodegroup"]
    (named,) = group["resources"]["autoScalingGroups"]
    assert asg.describe_auto_scaling_groups(AutoScalingGroupNames=[named["name"]])["AutoScalingGroups"] == []
