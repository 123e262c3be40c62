"""AWS managed policies as data (generated from moto's copy of IAM's list): every ARN the toolkit writes exists
at its path, and an ARN that does not is refused with the path it does have."""

from __future__ import annotations

import json

import pytest

from mlplatform_core.model.addons import ebs_csi
from mlplatform_core.model.automode.cluster import node_role_policy_arns
from mlplatform_core.model.cluster import node_managed_policies
from mlplatform_core.model.iam import managed_policies as mp

PARTITIONS = {"us-east-1": "aws", "us-gov-west-1": "aws-us-gov", "cn-north-1": "aws-cn"}


def test_the_snapshot_records_its_source_and_which_partitions_lists_are_known():
    snapshot = mp._snapshot()
    (source,) = snapshot["source"]
    assert source["pypi"] == "moto" and len(source["sha256"]) == 64 and source["date"]
    assert mp.known_partitions() == {"aws"}  # GovCloud's and China's lists are not public: recorded as unknown
    assert snapshot["partitions"]["aws-us-gov"] is None and snapshot["partitions"]["aws-cn"] is None
    assert len(mp.policies()) > 1000
    assert all(p["partitions"] == ["aws"] for p in mp.policies().values())


def test_the_snapshot_is_what_moto_loads_into_its_emulator():
    moto = pytest.importorskip("moto.iam.aws_managed_policies")
    theirs = json.loads(moto.aws_managed_policies_data)
    if set(theirs) != set(mp.policies()):  # another moto: the snapshot is pinned to its own version
        pytest.skip("the installed moto is not the snapshot's version")
    for name, p in mp.policies().items():
        assert p["path"] == theirs[name]["Path"]
        assert p["arn"] == f"arn:aws:iam::aws:policy{theirs[name]['Path']}{name}"
        if "document" in p:
            assert p["document"] == theirs[name]["Document"]


def test_the_ebs_csi_v2_policy_has_no_service_role_path_only_v1_has():
    v2, v1 = mp.policies()["AmazonEBSCSIDriverPolicyV2"], mp.policies()["AmazonEBSCSIDriverPolicy"]
    assert (v2["path"], v2["created"]) == ("/", "2026-04-16")
    assert v1["path"] == "/service-role/"
    for region, partition in PARTITIONS.items():
        assert ebs_csi.policy_arn(region) == f"arn:{partition}:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"
        assert mp.arn_problem(ebs_csi.policy_arn(region), partition) is None
    # V2 keeps the driver to what it tagged: its document says which tag (what the driver's volumes carry).
    assert "ebs.csi.aws.com/cluster" in json.dumps(mp.document("AmazonEBSCSIDriverPolicyV2"))


@pytest.mark.parametrize("region", sorted(PARTITIONS))
def test_every_managed_policy_the_model_attaches_exists(region):
    arns = [
        *node_managed_policies(region).values(),
        *node_role_policy_arns(region).values(),
        ebs_csi.policy_arn(region),
    ]
    assert [a for a in arns if mp.arn_problem(a, PARTITIONS[region])] == []
    # their documents are shipped: what the role can do is read from AWS's own text
    assert all(mp.document(mp.parse(a).name) for a in arns)


def test_an_arn_at_the_wrong_path_is_refused_with_the_path_it_has():
    problem = mp.arn_problem("arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2", "aws")
    assert "NoSuchEntity" in problem
    assert problem.endswith("did you mean arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?")
    problem = mp.arn_problem("arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicy", "aws")  # V1 without its path
    assert problem.endswith("did you mean arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy?")


def test_a_misspelt_name_gets_the_nearest_names_and_an_unknown_one_none():
    problem = mp.arn_problem("arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicyy", "aws")
    assert "did you mean arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy" in problem
    problem = mp.arn_problem("arn:aws:iam::aws:policy/NoSuchThingAtAll", "aws")
    assert problem.endswith("NoSuchEntity")


def test_another_partitions_arn_is_refused_and_unknown_partitions_say_what_was_checked():
    problem = mp.arn_problem("arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy", "aws-cn")
    assert problem == (
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy names the partition 'aws', but the stack's region is in "
        "'aws-cn': did you mean arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicy?"
    )
    problem = mp.arn_problem("arn:aws-us-gov:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2", "aws-us-gov")
    assert "the aws partition's list: AWS publishes none for aws-us-gov" in problem


def test_customer_policies_and_wildcards_are_not_managed_policy_arns():
    assert mp.parse("arn:aws:iam::123456789012:policy/mine") is None
    assert mp.arn_problem("arn:aws:iam::123456789012:policy/mine", "aws") is None
    assert mp.arn_problem("arn:aws:iam::aws:policy/*", "aws") is None
    props = {"managedPolicyArns": ["arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::1:policy/x"]}
    assert list(mp.attached_arns("aws:iam/role:Role", props)) == [
        ("managedPolicyArns", "arn:aws:iam::aws:policy/ReadOnlyAccess")
    ]
