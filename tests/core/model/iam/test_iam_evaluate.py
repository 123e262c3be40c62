"""The core's IAM evaluator decides as IAM's documented evaluation logic does (identity policies)."""

from __future__ import annotations

import pytest

from mlplatform_core.model.iam.evaluate import ALLOW, EXPLICIT_DENY, IMPLICIT_DENY, evaluate, request

VOLUME = "arn:aws:ec2:us-east-1:123456789012:volume/vol-0abc"


def doc(*statements):
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action="ec2:CreateVolume", resource="*", condition=None, **extra):
    st = {"Effect": "Allow", "Action": action, "Resource": resource, **extra}
    if condition:
        st["Condition"] = condition
    return st


def outcome(documents, action="ec2:CreateVolume", resource=VOLUME, context=None):
    return evaluate(documents, request(action, resource, context)).outcome


def test_explicit_deny_wins_over_allow_and_nothing_is_implicitly_denied():
    deny = {"Effect": "Deny", "Action": "ec2:*", "Resource": "*"}
    assert outcome([doc(allow())]) == ALLOW
    assert outcome([doc(allow()), doc(deny)]) == EXPLICIT_DENY
    assert outcome([]) == IMPLICIT_DENY
    assert outcome([doc(allow(action="ec2:DeleteVolume"))]) == IMPLICIT_DENY


def test_actions_match_case_insensitively_with_wildcards_and_not_action():
    assert outcome([doc(allow(action="EC2:create*"))]) == ALLOW
    assert outcome([doc(allow(action="ec2:Create?olume"))]) == ALLOW
    assert outcome([doc(allow(action="ec2:Create"))]) == IMPLICIT_DENY
    not_action = {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}
    assert outcome([doc(not_action)]) == ALLOW
    assert outcome([doc(not_action)], action="iam:PassRole") == IMPLICIT_DENY


def test_resources_match_case_sensitively_with_wildcards_and_not_resource():
    assert outcome([doc(allow(resource="arn:aws:ec2:*:*:volume/*"))]) == ALLOW
    assert outcome([doc(allow(resource="arn:aws:ec2:*:*:VOLUME/*"))]) == IMPLICIT_DENY
    assert outcome([doc(allow(resource="arn:aws:ec2:us-west-2:*:volume/*"))]) == IMPLICIT_DENY
    assert outcome([doc(allow(resource="*"))], resource="*") == ALLOW
    # An action named on a scoped ARN is not granted by a statement naming another resource, nor by `*` requests.
    assert outcome([doc(allow(resource=VOLUME))], resource="*") == IMPLICIT_DENY
    not_resource = {"Effect": "Allow", "Action": "ec2:*", "NotResource": "arn:aws:ec2:*:*:snapshot/*"}
    assert outcome([doc(not_resource)]) == ALLOW
    assert outcome([doc(not_resource)], resource="arn:aws:ec2:us-east-1:1:snapshot/s") == IMPLICIT_DENY


def test_string_conditions_on_request_and_resource_tags():
    st = allow(condition={"StringEquals": {"aws:RequestTag/ebs.csi.aws.com/cluster": "true"}})
    assert outcome([doc(st)], context={"aws:RequestTag/ebs.csi.aws.com/cluster": "true"}) == ALLOW
    assert outcome([doc(st)], context={"aws:RequestTag/ebs.csi.aws.com/cluster": "True"}) == IMPLICIT_DENY
    assert outcome([doc(st)]) == IMPLICIT_DENY  # the tag absent
    # Condition key names are case-insensitive; StringLike has wildcards; values of one key are ORed.
    like = allow(condition={"StringLike": {"aws:resourcetag/karpenter.sh/nodepool": ["gpu-*", "cpu"]}})
    assert outcome([doc(like)], context={"aws:ResourceTag/karpenter.sh/nodepool": "gpu-a"}) == ALLOW
    assert outcome([doc(like)], context={"aws:ResourceTag/karpenter.sh/nodepool": "spot"}) == IMPLICIT_DENY
    # Every key of every operator must hold.
    both = allow(condition={"StringEquals": {"aws:RequestTag/a": "1", "aws:RequestTag/b": "2"}})
    assert outcome([doc(both)], context={"aws:RequestTag/a": "1"}) == IMPLICIT_DENY
    assert outcome([doc(both)], context={"aws:RequestTag/a": "1", "aws:RequestTag/b": "2"}) == ALLOW


def test_negated_operators_if_exists_and_null():
    ne = allow(condition={"StringNotEquals": {"aws:RequestTag/env": "prod"}})
    assert outcome([doc(ne)]) == ALLOW  # a negated operator holds when the key is absent
    assert outcome([doc(ne)], context={"aws:RequestTag/env": "prod"}) == IMPLICIT_DENY
    if_exists = allow(condition={"StringEqualsIfExists": {"aws:RequestTag/env": "dev"}})
    assert outcome([doc(if_exists)]) == ALLOW
    assert outcome([doc(if_exists)], context={"aws:RequestTag/env": "prod"}) == IMPLICIT_DENY
    present = allow(condition={"Null": {"aws:TagKeys": "false"}})
    assert outcome([doc(present)]) == IMPLICIT_DENY
    assert outcome([doc(present)], context={"aws:TagKeys": ["a"]}) == ALLOW


def test_set_operators_on_multivalued_tag_keys():
    only = allow(condition={"ForAllValues:StringLike": {"aws:TagKeys": ["eks:*", "kubernetes.io/cluster/*"]}})
    assert outcome([doc(only)], context={"aws:TagKeys": ["eks:eks-cluster-name", "kubernetes.io/cluster/c"]}) == ALLOW
    assert outcome([doc(only)], context={"aws:TagKeys": ["eks:eks-cluster-name", "team"]}) == IMPLICIT_DENY
    assert outcome([doc(only)]) == ALLOW  # ForAllValues holds for no values at all
    protected = allow(condition={"ForAllValues:StringNotEquals": {"aws:TagKeys": ["ebs.csi.aws.com/cluster"]}})
    assert outcome([doc(protected)], context={"aws:TagKeys": ["team"]}) == ALLOW
    assert outcome([doc(protected)], context={"aws:TagKeys": ["team", "ebs.csi.aws.com/cluster"]}) == IMPLICIT_DENY
    anyone = allow(condition={"ForAnyValue:StringEquals": {"aws:TagKeys": ["team"]}})
    assert outcome([doc(anyone)], context={"aws:TagKeys": ["x", "team"]}) == ALLOW
    assert outcome([doc(anyone)]) == IMPLICIT_DENY  # ForAnyValue fails for no values


def test_policy_variables_come_from_the_request():
    st = allow(
        condition={"StringEquals": {"aws:RequestTag/eks:eks-cluster-name": "${aws:PrincipalTag/eks:eks-cluster-name}"}}
    )
    ctx = {"aws:RequestTag/eks:eks-cluster-name": "c1", "aws:PrincipalTag/eks:eks-cluster-name": "c1"}
    assert outcome([doc(st)], context=ctx) == ALLOW
    assert outcome([doc(st)], context={**ctx, "aws:PrincipalTag/eks:eks-cluster-name": "c2"}) == IMPLICIT_DENY
    assert outcome([doc(st)], context={"aws:RequestTag/eks:eks-cluster-name": "c1"}) == IMPLICIT_DENY
    literal = allow(resource="arn:aws:s3:::bucket/${*}")  # ${*} is a literal star, not a wildcard
    assert outcome([doc(literal)], resource="arn:aws:s3:::bucket/*") == ALLOW
    assert outcome([doc(literal)], resource="arn:aws:s3:::bucket/x") == IMPLICIT_DENY


@pytest.mark.parametrize("effect, expected", [("Allow", IMPLICIT_DENY), ("Deny", EXPLICIT_DENY)])
def test_an_operator_not_modelled_is_never_more_permissive(effect, expected):
    st = {"Effect": effect, "Action": "*", "Resource": "*", "Condition": {"NumericLessThan": {"s3:max-keys": "10"}}}
    documents = [doc(st)] if effect == "Allow" else [doc(st), doc(allow())]
    assert outcome(documents) == expected
