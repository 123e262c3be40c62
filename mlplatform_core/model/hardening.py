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
- The flow-log group is encrypted with the same key (checkov CKV_AWS_158): CloudWatch Logs must be allowed to
  use it before CreateLogGroup, or the call fails (CloudWatch Logs user guide, "Encrypt log data in CloudWatch
  Logs using AWS KMS", step 2: principal `logs.<region>.amazonaws.com`, the Encrypt*/Decrypt*/ReEncrypt*/
  GenerateDataKey*/Describe* actions, conditioned on `kms:EncryptionContext:aws:logs:arn`). The principal carries
  the partition's DNS suffix (`logs.cn-north-1.amazonaws.com.cn` in China: terraform-provider-aws
  data.aws_service_principal); the condition names this stack's flow-log groups only.
"""

from __future__ import annotations

from typing import Any

from .regions import dns_suffix, partition_of

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
LOGS_KEY_ACTIONS = ("kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*")


def flow_log_group_prefix(cluster_name: str) -> str:
    """The name prefix of the cluster's flow-log group (CloudWatch Logs appends a unique suffix)."""
    return f"/mlplatform/{cluster_name}/vpc-flow-logs-"


def logs_service_principal(region: str) -> str:
    """CloudWatch Logs' regional service principal, with the partition's DNS suffix."""
    return f"logs.{region}.{dns_suffix(region)}"


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


def secrets_key_policy(
    region: str, account_id: str, cluster_role_arn: str, log_group_prefix: str | None = None
) -> dict[str, Any]:
    """The account administers the key; only the cluster role encrypts and decrypts with it, and, given the
    flow-log group's name prefix, CloudWatch Logs for those groups of this account and region."""
    doc: dict[str, Any] = {
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
    if log_group_prefix is not None:
        groups = f"arn:{partition_of(region)}:logs:{region}:{account_id}:log-group:{log_group_prefix}*"
        doc["Statement"].append(
            {
                "Sid": "CloudWatchLogsUsesTheKeyForFlowLogs",
                "Effect": "Allow",
                "Principal": {"Service": logs_service_principal(region)},
                "Action": list(LOGS_KEY_ACTIONS),
                "Resource": "*",
                "Condition": {"ArnLike": {"kms:EncryptionContext:aws:logs:arn": groups}},
            }
        )
    return doc
