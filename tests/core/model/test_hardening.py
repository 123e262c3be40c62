"""The hardening documents: the secrets key's policy and the flow-log role, in every partition."""

from __future__ import annotations

import pytest

from mlplatform_core.model import hardening

REGIONS = [("us-east-1", "aws"), ("us-gov-west-1", "aws-us-gov"), ("cn-north-1", "aws-cn")]


@pytest.mark.parametrize("region, partition", REGIONS)
def test_the_account_administers_the_key_and_only_the_cluster_role_uses_it(region, partition):
    role = f"arn:{partition}:iam::123456789012:role/cluster-eksRole"
    admin, use = hardening.secrets_key_policy(region, "123456789012", role)["Statement"]
    assert admin["Principal"] == {"AWS": f"arn:{partition}:iam::123456789012:root"}
    assert "kms:*" not in admin["Action"] and not {"kms:Encrypt", "kms:Decrypt"} & set(admin["Action"])
    assert "kms:Create*" in admin["Action"]  # CreateGrant: EKS's CreateCluster needs it from the deployer
    assert use["Principal"] == {"AWS": role}
    assert use["Action"] == ["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"]


@pytest.mark.parametrize("region, partition", REGIONS)
def test_only_vpc_flow_logs_of_this_account_assume_the_role_and_write_one_group(region, partition):
    (trust,) = hardening.flow_log_trust_policy(region, "123456789012")["Statement"]
    assert trust["Principal"] == {"Service": "vpc-flow-logs.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert trust["Condition"]["ArnLike"]["aws:SourceArn"].startswith(f"arn:{partition}:ec2:{region}:123456789012:")
    group = f"arn:{partition}:logs:{region}:123456789012:log-group:/mlplatform/x/vpc-flow-logs-1"
    (write,) = hardening.flow_log_role_policy(group)["Statement"]
    assert write["Resource"] == [group, f"{group}:*"]
    assert hardening.flow_log_role_policy(group + ":*") == hardening.flow_log_role_policy(group)
