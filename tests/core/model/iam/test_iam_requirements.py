"""The generated needs of each controller, replayed on the documents the toolkit plans (and on broken ones)."""

from __future__ import annotations

import copy
import json
from unittest import mock

import pytest

from mlplatform_core.model.addons import autoscaler, ebs_csi, karpenter_controller
from mlplatform_core.model.automode import tag_policy
from mlplatform_core.model.iam import requirements as needs
from mlplatform_core.model.karpenter import release

REGION, ACCOUNT, CLUSTER = "us-east-1", "123456789012", "mlp-test"
NODE_ROLE = f"arn:aws:iam::{ACCOUNT}:role/karpenter-node"
QUEUE = f"arn:aws:sqs:{REGION}:{ACCOUNT}:karpenter-queue"
VALUES = needs.Values("aws", REGION, ACCOUNT, CLUSTER, node_role_arn=NODE_ROLE, queue_arn=QUEUE)
STACK_TAGS = {"mlplatform.io/cluster": CLUSTER, "mlplatform.io/node-group": "gpu", "team": "ml"}
AUTO = needs.Values(
    "aws", REGION, ACCOUNT, CLUSTER, extra_tags=STACK_TAGS, principal_tags={"eks:eks-cluster-name": CLUSTER}
)
AUTO_MODE_MANAGED = tuple(
    f"arn:aws:iam::aws:policy/{n}"
    for n in ("AmazonEKSClusterPolicy", "AmazonEKSComputePolicy", "AmazonEKSBlockStoragePolicy")
    + ("AmazonEKSLoadBalancingPolicy", "AmazonEKSNetworkingPolicy")
)


def karpenter_role(documents=None) -> needs.Role:
    docs = documents or karpenter_controller.controller_policies(CLUSTER, REGION, ACCOUNT, NODE_ROLE, QUEUE)
    return needs.Role("karpenter-controller", tuple(docs.values()))


def without(documents: dict, action: str) -> dict:
    out = copy.deepcopy(documents)
    for doc in out.values():
        for st in doc["Statement"]:
            if isinstance(st["Action"], list) and action in st["Action"]:
                st["Action"].remove(action)
            elif st["Action"] == action:
                st["Action"] = []
    return out


def test_every_action_of_karpenters_reference_policies_is_a_need():
    """The needs are the pinned release's CloudFormation policies (the same source as data/karpenter.json)."""
    wanted = set()
    for name in karpenter_controller.controller_policy_names():
        for st in release.snapshot()["controllerPolicies"][name]["Statement"]:
            wanted |= set(st["Action"] if isinstance(st["Action"], list) else [st["Action"]])
    got = {n["action"] for n in needs.snapshot()["controllers"][needs.KARPENTER]["requests"]}
    assert wanted == got
    assert "ec2:CreateFleet" in got


def test_karpenters_planned_policies_allow_what_it_needs_and_fail_without_create_fleet():
    assert needs.missing(needs.KARPENTER, "Karpenter controller", karpenter_role(), VALUES) == []
    docs = karpenter_controller.controller_policies(CLUSTER, REGION, ACCOUNT, NODE_ROLE, QUEUE)
    problems = needs.missing(
        needs.KARPENTER, "Karpenter controller", karpenter_role(without(docs, "ec2:CreateFleet")), VALUES
    )
    assert problems and all("ec2:CreateFleet" in p for p in problems)
    assert "karpenter-controller" in problems[0] and "cloudformation.yaml" in problems[0]
    # Passing another role than the node role is not what Karpenter needs.
    other = needs.Values("aws", REGION, ACCOUNT, CLUSTER, node_role_arn=f"{NODE_ROLE}-x", queue_arn=QUEUE)
    assert any("iam:PassRole" in p for p in needs.missing(needs.KARPENTER, "K", karpenter_role(), other))


def test_karpenter_in_another_partition_is_checked_with_its_arns():
    docs = karpenter_controller.controller_policies(CLUSTER, "cn-north-1", ACCOUNT, NODE_ROLE, QUEUE)
    cn = needs.Values("aws-cn", "cn-north-1", ACCOUNT, CLUSTER, node_role_arn=NODE_ROLE, queue_arn=QUEUE)
    assert needs.missing(needs.KARPENTER, "K", karpenter_role(docs), cn) == []
    assert needs.missing(needs.KARPENTER, "K", karpenter_role(docs), VALUES)  # the commercial ARNs are not granted


def test_the_autoscalers_scoped_policy_allows_the_documented_policy_on_its_own_groups():
    role = needs.Role("autoscaler", (autoscaler.autoscaler_policy(CLUSTER, REGION, ACCOUNT),))
    assert needs.missing(needs.CLUSTER_AUTOSCALER, "Cluster Autoscaler", role, VALUES) == []
    # Scoped to another cluster's groups, the groups EKS tagged for this one cannot be resized.
    other = needs.Role("autoscaler", (autoscaler.autoscaler_policy("other", REGION, ACCOUNT),))
    actions = {
        p.split(" does not allow ")[1].split()[0] for p in needs.missing(needs.CLUSTER_AUTOSCALER, "CA", other, VALUES)
    }
    assert actions == {
        "autoscaling:SetDesiredCapacity",
        "autoscaling:TerminateInstanceInAutoScalingGroup",
        "eks:DescribeNodegroup",
    }


def test_the_ebs_csi_managed_policy_meets_the_driver_only_at_its_real_arn_and_with_its_tags():
    role = needs.Role("ebs-csi", managed=(ebs_csi.policy_arn(REGION),))
    assert needs.missing(needs.EBS_CSI, "EBS CSI controller", role, VALUES) == []
    old = needs.Role("ebs-csi", managed=("arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2",))
    problems = needs.missing(needs.EBS_CSI, "EBS CSI controller", old, VALUES)
    assert "attaches arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2" in problems[0]
    assert "not counted" in problems[0] and "ec2:CreateVolume" in " ".join(problems[1:])
    # The driver's cluster tag is what V2's conditions need: a driver that did not put it would be refused.
    data = copy.deepcopy(needs.snapshot())
    for r in data["controllers"][needs.EBS_CSI]["requests"]:
        for kind in ("requestTags", "resourceTags"):
            (r.get(kind) or {}).pop("ebs.csi.aws.com/cluster", None)
    with mock.patch.object(needs, "snapshot", lambda: data):
        refused = needs.missing(needs.EBS_CSI, "EBS CSI controller", role, VALUES)
    assert {p.split(" does not allow ")[1].split()[0] for p in refused} >= {"ec2:CreateVolume", "ec2:DeleteVolume"}


def test_the_driver_tags_every_volume_with_its_cluster_tag():
    volume = next(
        r for r in needs.snapshot()["controllers"][needs.EBS_CSI]["requests"] if r["action"] == "ec2:CreateVolume"
    )
    assert volume["requestTags"]["ebs.csi.aws.com/cluster"] == "true"


def test_auto_mode_managed_policies_refuse_custom_tags_and_the_stack_policy_allows_only_its_keys():
    managed_only = needs.Role("cluster", managed=AUTO_MODE_MANAGED)
    refused = needs.missing(needs.AUTO_MODE_TAGS, "EKS Auto Mode cluster", managed_only, AUTO)
    assert {p.split(" does not allow ")[1].split()[0] for p in refused} == {
        "ec2:CreateFleet",
        "ec2:RunInstances",
        "ec2:CreateLaunchTemplate",
        "ec2:CreateNetworkInterface",
    }
    policy = tag_policy.custom_tags_policy(tag_policy.node_class_tag_keys(["mlplatform.io/cluster", "team"]))
    role = needs.Role("cluster", (policy,), AUTO_MODE_MANAGED)
    assert needs.missing(needs.AUTO_MODE_TAGS, "EKS Auto Mode cluster", role, AUTO) == []
    # Without any custom tag the managed policies suffice; a key the stack does not own is not allowed.
    plain = needs.Values("aws", REGION, ACCOUNT, CLUSTER, principal_tags={"eks:eks-cluster-name": CLUSTER})
    assert needs.missing(needs.AUTO_MODE_TAGS, "A", managed_only, plain) == []
    stranger = needs.Values(
        "aws",
        REGION,
        ACCOUNT,
        CLUSTER,
        extra_tags={**STACK_TAGS, "cost-center": "x"},
        principal_tags={"eks:eks-cluster-name": CLUSTER},
    )
    assert needs.missing(needs.AUTO_MODE_TAGS, "A", role, stranger)
    # Another cluster's session may not tag as this cluster.
    theirs = needs.Values(
        "aws", REGION, ACCOUNT, CLUSTER, extra_tags=STACK_TAGS, principal_tags={"eks:eks-cluster-name": "x"}
    )
    assert needs.missing(needs.AUTO_MODE_TAGS, "A", role, theirs)


@pytest.mark.parametrize("name", ["AmazonEBSCSIDriverPolicyV2", "AmazonEKSComputePolicy"])
def test_managed_policy_documents_exist_at_their_path_in_every_partition(name):
    assert needs.managed_document(f"arn:aws:iam::aws:policy/{name}") is not None
    cn = needs.managed_document(f"arn:aws-cn:iam::aws:policy/{name}")
    assert cn is not None and "arn:aws:" not in json.dumps(cn)
    assert needs.managed_document(f"arn:aws:iam::aws:policy/service-role/{name}") is None


def test_the_docs_name_each_controllers_upstream_source_as_the_data_does():
    from tests.conftest import ROOT

    page = (ROOT / "docs" / "deploying.md").read_text()
    for controller in needs.snapshot()["controllers"]:
        assert needs.upstream_of(controller) in page, controller
