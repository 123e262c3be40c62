"""An IAM role EC2 instances (nodes) assume, with its managed policies: the managed node groups', Karpenter's and
EKS Auto Mode's node roles are each one."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.cluster import EC2_TRUST_POLICY


def node_role(
    name: str,
    policy_arns: Mapping[str, str],
    tags: Mapping[str, str],
    opts: pulumi.ResourceOptions,
    description: str | None = None,
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    """The role `name` and one attachment `<name>-<short>` per policy (short name -> ARN)."""
    role = aws.iam.Role(
        name, assume_role_policy=json.dumps(EC2_TRUST_POLICY), description=description, tags=dict(tags), opts=opts
    )
    attachments = [
        aws.iam.RolePolicyAttachment(f"{name}-{short}", role=role.name, policy_arn=arn, opts=opts)
        for short, arn in policy_arns.items()
    ]
    return role, attachments
