"""AWS hardening as plain data: VPC flow logs, the secrets key's policy (components/network.py and cluster.py apply it).

- Flow logs: every VPC the stack creates sends its flow logs (ALL traffic) to a CloudWatch Logs group with a
  retention, through a role only the VPC Flow Logs service of this account may assume (confused-deputy
  conditions, VPC user guide "IAM role for publishing flow logs to CloudWatch Logs"), allowed to write to that
  group only.
- The secrets key's policy: the account administers the key (the administrative actions of KMS's default key
  policy for key administrators; no kms:* and no use of the key) and only the cluster's IAM role may use it, with
  the actions terraform-aws-eks grants it (main.tf `cluster_encryption` @ v21.19.0: Encrypt, Decrypt, ListGrants,
  DescribeKey). The policy is applied once the cluster role exists (a separate aws.kms.KeyPolicy); EKS creates
  its grants at CreateCluster with the deployer's rights (EKS user guide security-k8s.adoc: DescribeKey and
  CreateGrant for the principal that calls CreateCluster), which the account's administration keeps.
"""

from __future__ import annotations

from typing import Any

from .regions import partition_of

FLOW_LOG_RETENTION_DAYS = 365  # CloudWatch Logs allows 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...
FLOW_LOGS_SERVICE = "vpc-flow-logs.amazonaws.com"  # the same in every partition (VPC user guide)
KEY_ADMIN_ACTIONS = (
    "kms:Create*",
    "kms:Describe*",
    "kms:Enable*",
    "kms:List*",
    "kms:Put*",
    "kms:Update*",
    "kms:Revoke*",
    "kms:Disable*",
    "kms:Get*",
    "kms:Delete*",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:ScheduleKeyDeletion",
    "kms:CancelKeyDeletion",
    "kms:RotateKeyOnDemand",
)
CLUSTER_KEY_ACTIONS = ("kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey")


def account_root(region: str, account_id: str) -> str:
    return f"arn:{partition_of(region)}:iam::{account_id}:root"


def flow_log_trust_policy(region: str, account_id: str) -> dict[str, Any]:
    """Only VPC Flow Logs, for flow logs of this account in this region, may assume the role."""
    partition = partition_of(region)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": FLOW_LOGS_SERVICE},
                "Action": "sts:AssumeRole",
                "Condition": {
                    "StringEquals": {"aws:SourceAccount": account_id},
                    "ArnLike": {"aws:SourceArn": f"arn:{partition}:ec2:{region}:{account_id}:vpc-flow-log/*"},
                },
            }
        ],
    }


def flow_log_role_policy(log_group_arn: str) -> dict[str, Any]:
    """Write streams of the one log group (the group ARN with and without the `:*` of its streams)."""
    group = log_group_arn.removesuffix(":*")
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "WriteFlowLogs",
                "Effect": "Allow",
                "Action": ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                "Resource": [group, f"{group}:*"],
            }
        ],
    }


def secrets_key_policy(region: str, account_id: str, cluster_role_arn: str) -> dict[str, Any]:
    """The account administers the key; only the cluster role encrypts and decrypts with it."""
    return {
        "Version": "2012-10-17",
        "Id": "mlplatform-secrets-key",
        "Statement": [
            {
                "Sid": "AccountAdministersTheKey",
                "Effect": "Allow",
                "Principal": {"AWS": account_root(region, account_id)},
                "Action": list(KEY_ADMIN_ACTIONS),
                "Resource": "*",  # in a key policy, "*" is this key
            },
            {
                "Sid": "ClusterRoleUsesTheKey",
                "Effect": "Allow",
                "Principal": {"AWS": cluster_role_arn},
                "Action": list(CLUSTER_KEY_ACTIONS),
                "Resource": "*",
            },
        ],
    }
