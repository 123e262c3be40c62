"""Who may use the cluster: the `access` setting, its checks and the access entries it becomes."""

from __future__ import annotations

import pytest

from mlplatform_core.model.access import EC2_LINUX, AccessGrant, access_grants, access_policy_arn
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.config.access import principal_arn_error
from tests.conftest import stack_config

P = "ml-platform-eks:"
ADMINS = "arn:aws:iam::111122223333:role/platform-team"
ENGINEERS = "arn:aws:iam::111122223333:role/teams/ml/ml-engineers"
AUDITOR = "arn:aws:iam::111122223333:user/auditor"
SSO = "arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/us-east-1/AWSReservedSSO_Admin_0123456789abcdef"


def config(access, region: str = "us-east-1"):
    raw = stack_config("prod")
    raw[P + "access"] = access
    raw["aws:region"] = region
    if region.startswith("cn-"):  # China stacks must name a mirror of the add-ons' images
        raw[P + "imageRegistry"] = "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror"
    return parse(raw)


def refusal(access, region: str = "us-east-1") -> str:
    with pytest.raises(ConfigError) as info:
        config(access, region)
    return str(info.value)


@pytest.mark.parametrize("arn", [ADMINS, ENGINEERS, AUDITOR, SSO, "arn:aws-cn:iam::111122223333:role/x"])
def test_roles_with_paths_and_users_are_principals(arn):
    assert principal_arn_error(arn) is None


@pytest.mark.parametrize(
    "arn, why",
    [
        ("arn:aws:sts::111122223333:assumed-role/platform-team/alice", "STS session"),
        ("arn:aws:iam::111122223333:group/admins", "IAM group"),
        ("arn:aws:iam::111122223333:root", "not an IAM role or user"),
        ("arn:aws:iam::111122223333:role/aws-service-role/eks.amazonaws.com/AWSServiceRoleForEKS", "service-linked"),
        ("arn:aws:iam::1111:role/short-account", "not an IAM role or user"),
        ("platform-team", "not an IAM role or user"),
        ("arn:aws:iam::111122223333:role/a//b", "empty path segment"),
    ],
)
def test_what_eks_refuses_as_a_principal_is_refused_naming_the_entry(arn, why):
    text = refusal({"admin": [arn]})
    assert f"{P}access.admin[0]:" in text and why in text


def test_a_mapping_entry_names_its_principal_key():
    text = refusal({"edit": [{"principal": "arn:aws:iam::111122223333:group/ml", "namespaces": ["mlrun"]}]})
    assert f"{P}access.edit[0].principal:" in text and "IAM group" in text


def test_namespaces_are_kubernetes_names_and_not_empty():
    assert f"{P}access.view[0].namespaces" in refusal({"view": [{"principal": AUDITOR, "namespaces": ["ML_Jobs"]}]})
    assert f"{P}access.view[0].namespaces" in refusal({"view": [{"principal": AUDITOR, "namespaces": []}]})


def test_partition_must_match_the_region():
    text = refusal({"admin": [ADMINS]}, region="cn-north-1")
    assert f"{P}access.admin[0]:" in text and "partition aws" in text and "aws-cn" in text
    grants = access_grants(config({"admin": ["arn:aws-cn:iam::111122223333:role/x"]}, region="cn-north-1"))
    assert grants[0].associations[0].policy_arn.startswith("arn:aws-cn:eks::aws:cluster-access-policy/")


def test_a_principal_twice_at_one_level_is_refused():
    text = refusal({"view": [AUDITOR, {"principal": AUDITOR, "namespaces": ["mlrun"]}]})
    assert f"{P}access.view[1]:" in text and "access.view[0]" in text


def test_levels_map_to_the_eks_access_policies_and_scopes():
    cfg = config(
        {
            "admin": [ADMINS, {"principal": SSO, "namespaces": ["mlrun"]}],
            "edit": [{"principal": ENGINEERS, "namespaces": ["mlrun", "jupyter"]}],
            "view": [AUDITOR, ENGINEERS],
        }
    )
    grants = {g.principal_arn: g for g in access_grants(cfg)}
    assert set(grants) == {ADMINS, SSO, ENGINEERS, AUDITOR}

    def policies(arn):
        return [(a.policy, a.scope, a.namespaces) for a in grants[arn].associations]

    assert policies(ADMINS) == [("AmazonEKSClusterAdminPolicy", "cluster", ())]
    assert policies(SSO) == [("AmazonEKSAdminPolicy", "namespace", ("mlrun",))]
    # One entry per principal, one association per level it is listed at.
    assert policies(ENGINEERS) == [
        ("AmazonEKSEditPolicy", "namespace", ("mlrun", "jupyter")),
        ("AmazonEKSViewPolicy", "cluster", ()),
    ]
    assert grants[ENGINEERS].levels == ("access.edit[0]", "access.view[1]")
    assert policies(AUDITOR) == [("AmazonEKSViewPolicy", "cluster", ())]
    assert all(g.entry_type == "STANDARD" for g in grants.values())
    assert access_policy_arn("AmazonEKSViewPolicy", "us-east-1") == (
        "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
    )


def test_no_access_setting_means_no_entries_the_creator_is_eks_s():
    assert access_grants(parse(stack_config("prod"))) == ()


def test_grant_names_are_stable_distinct_and_pulumi_safe():
    a, b = AccessGrant(ENGINEERS), AccessGrant("arn:aws:iam::111122223333:role/other/ml-engineers")
    assert a.name == AccessGrant(ENGINEERS).name and a.name != b.name
    assert a.name.startswith("access-ml-engineers-")
    assert AccessGrant("arn:aws:iam::1:role/node", entry_type=EC2_LINUX).entry_type == "EC2_LINUX"
