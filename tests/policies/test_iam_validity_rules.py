"""The managed-policy rule (mlplatform_policies/iam_validity.py): the pack refuses an AWS managed policy ARN that
does not exist in the stack's partition, in any property that attaches one, as the plan does."""

from __future__ import annotations

import pytest

from mlplatform_policies import iam_validity
from tests.policies.variants import add, assert_rule_case, edit, evaluate, messages, set_at, shipped

RULE = "managed-policies-exist"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
OLD_EBS_CSI = "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2"


def _old_ebs_csi_path(resources):
    return edit(resources, ATTACHMENT, "platform-storage-ebs-csi", set_at(["policyArn"], OLD_EBS_CSI))


# (rule, stack, broken resources, expected level), as the other rule modules list them.
CASES = [(RULE, "dev", _old_ebs_csi_path, "mandatory")]


@pytest.mark.parametrize(("rule", "stack", "breaks", "level"), CASES)
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


def test_the_old_ebs_csi_path_is_named_with_the_path_the_policy_has():
    text = messages(evaluate(_old_ebs_csi_path(list(shipped("dev")))), RULE)
    assert OLD_EBS_CSI in text and "did you mean arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?" in text


@pytest.mark.parametrize(
    ("type_", "props"),
    [
        ("aws:iam/role:Role", {"managedPolicyArns": ["arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicyy"]}),
        ("aws:iam/role:Role", {"permissionsBoundary": "arn:aws:iam::aws:policy/NoSuchBoundary"}),
        ("aws:iam/policyAttachment:PolicyAttachment", {"policyArn": "arn:aws:iam::aws:policy/AmazonEKS_CNI"}),
        (
            "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive",
            {"policyArns": ["arn:aws:iam::aws:policy/service-role/AmazonEKSClusterPolicy"]},
        ),
    ],
)
def test_every_attaching_property_is_checked(type_, props):
    assert type_ in iam_validity.ATTACHING
    violations = evaluate(add(list(shipped("prod")), type_, "extra", props))
    assert RULE in {v.policy for v in violations if v.mandatory}


def test_the_partition_is_the_stacks_region_not_the_arns():
    # shipped dev is in us-east-1 (the aws provider's region): an aws-cn ARN does not exist there
    cn = "arn:aws-cn:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"
    broken = edit(list(shipped("dev")), ATTACHMENT, "platform-storage-ebs-csi", set_at(["policyArn"], cn))
    text = messages(evaluate(broken), RULE)
    assert "names the partition 'aws-cn', but the stack's region is in 'aws'" in text


def test_unknown_arns_of_a_preview_and_customer_policies_pass():
    resources = add(
        list(shipped("prod")), "aws:iam/role:Role", "mine", {"managedPolicyArns": ["arn:aws:iam::1:policy/x"]}
    )
    assert RULE not in {v.policy for v in evaluate(resources)}
