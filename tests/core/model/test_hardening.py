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


@pytest.mark.parametrize(
    "region, partition, principal",
    [
        ("us-east-1", "aws", "logs.us-east-1.amazonaws.com"),
        ("us-gov-west-1", "aws-us-gov", "logs.us-gov-west-1.amazonaws.com"),
        ("cn-north-1", "aws-cn", "logs.cn-north-1.amazonaws.com.cn"),
    ],
)
def test_cloudwatch_logs_may_use_the_key_for_this_stacks_flow_log_groups_only(region, partition, principal):
    role = f"arn:{partition}:iam::123456789012:role/cluster-eksRole"
    assert len(hardening.secrets_key_policy(region, "123456789012", role)["Statement"]) == 2  # no VPC, no logs
    doc = hardening.secrets_key_policy(region, "123456789012", role, hardening.flow_log_group_prefix("ml"))
    logs = doc["Statement"][2]
    assert logs["Principal"] == {"Service": principal}
    # CloudWatch Logs user guide, "Encrypt log data ... using AWS KMS": the actions its key policy needs.
    assert logs["Action"] == ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"]
    assert logs["Condition"] == {
        "ArnLike": {
            "kms:EncryptionContext:aws:logs:arn": (
                f"arn:{partition}:logs:{region}:123456789012:log-group:/mlplatform/ml/vpc-flow-logs-*"
            )
        }
    }
