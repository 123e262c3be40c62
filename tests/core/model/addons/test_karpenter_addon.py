"""The Karpenter controller as data: pinned charts, Helm values, IAM documents and the interruption queue."""

from __future__ import annotations

import json

import pytest

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model.addons import karpenter_controller as karpenter
from mlplatform_core.model.charts import facts as chart_facts
from mlplatform_core.model.charts.render import render
from mlplatform_core.model.eks_versions import minor_key
from mlplatform_core.model.karpenter import release
from mlplatform_core.model.scheduling import ROLE_LABEL

NODE_ROLE = "arn:aws:iam::123456789012:role/karpenter-node-abc"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:karpenter-interruption-abc"


def policies(region: str = "us-east-1") -> dict:
    return karpenter.controller_policies("mlp-dev", region, "123456789012", NODE_ROLE, QUEUE)


def statements(doc: dict) -> dict[str, dict]:
    return {s["Sid"]: s for s in doc["Statement"]}


def test_the_snapshot_records_its_upstream_release():
    snap = release.snapshot()
    assert snap["generator"] == "scripts/generators/generate_karpenter_data.py"
    assert snap["release"] == "1.14.1"
    for source in snap["source"]:
        assert source["repo"] == "aws/karpenter-provider-aws" and len(source["commit"]) == 40 and source["date"]


@pytest.mark.parametrize("minor", versions.supported(versions.KARPENTER))
def test_charts_are_pinned_to_the_release(minor):
    """The charts' version is the release whose IAM documents and CRD schemas the toolkit pins (karpenter.json)."""
    for chart in (karpenter.chart(minor), karpenter.crd_chart(minor)):
        assert chart.version == release.version() and chart.namespace == "kube-system"
        assert karpenter.chart_ref(chart) == f"oci://public.ecr.aws/karpenter/{chart.name}"
    assert karpenter.chart(minor).name == "karpenter" and karpenter.crd_chart(minor).name == "karpenter-crd"
    low, high = release.kubernetes_range()
    assert minor_key(low) <= minor_key(minor) <= minor_key(high)


def test_controller_policies_are_karpenters_reference_scoped_to_the_cluster():
    docs = policies()
    assert set(docs) == {"EKSIntegration", "IAMIntegration", "Interruption", "NodeLifecycle", "ResourceDiscovery"}
    text = json.dumps(docs)
    assert "${" not in text
    lifecycle = statements(docs["NodeLifecycle"])
    deletion = lifecycle["AllowScopedDeletion"]
    assert set(deletion["Action"]) == {"ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"}
    assert deletion["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/mlp-dev": "owned"}
    tagged = lifecycle["AllowScopedEC2InstanceActionsWithTags"]["Condition"]["StringEquals"]
    assert tagged["aws:RequestTag/eks:eks-cluster-name"] == "mlp-dev"
    iam = statements(docs["IAMIntegration"])
    assert iam["AllowPassingInstanceRole"]["Resource"] == NODE_ROLE
    assert statements(docs["Interruption"])["AllowInterruptionQueueActions"]["Resource"] == QUEUE
    eks = statements(docs["EKSIntegration"])["AllowAPIServerEndpointDiscovery"]
    assert eks["Resource"] == "arn:aws:eks:us-east-1:123456789012:cluster/mlp-dev"
    # Each document alone stays under the 6,144-character managed-policy limit.
    assert all(len(json.dumps(d, separators=(",", ":"))) < 6144 for d in docs.values())


@pytest.mark.parametrize(
    "region,partition", [("us-east-1", "aws"), ("us-gov-west-1", "aws-us-gov"), ("cn-north-1", "aws-cn")]
)
def test_policies_use_the_regions_partition(region, partition):
    text = json.dumps(policies(region)).replace(NODE_ROLE, "").replace(QUEUE, "")  # ARNs we passed in
    assert f"arn:{partition}:ec2:{region}:" in text and ("arn:aws:" not in text or partition == "aws")


def test_the_interruption_queue_and_its_rules():
    assert karpenter.queue_settings() == {"messageRetentionSeconds": 300, "sqsManagedSseEnabled": True}
    policy = karpenter.queue_policy(QUEUE)
    send, deny = policy["Statement"]
    assert send["Resource"] == QUEUE and set(send["Principal"]["Service"]) >= {"events.amazonaws.com"}
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": False}}
    detail_types = {p["detail-type"][0] for p in karpenter.interruption_rules().values()}
    assert {
        "EC2 Spot Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "AWS Health Event",
    } <= detail_types


def test_controller_values_run_it_on_the_initial_group_with_its_irsa_role():
    values = karpenter.controller_values("mlp-dev", "queue-name", "arn:role", 2)
    assert values["settings"] == {"clusterName": "mlp-dev", "interruptionQueue": "queue-name"}
    assert values["serviceAccount"] == {"name": "karpenter", "annotations": {"eks.amazonaws.com/role-arn": "arn:role"}}
    assert values["nodeSelector"] == {ROLE_LABEL: "initial"}
    assert values["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
    assert "affinity" not in values  # Helm would replace the chart's list and drop its nodepool DoesNotExist term
    resources = values["controller"]["resources"]
    assert resources["requests"]["cpu"] and resources["limits"]["memory"]
    # As the chart renders it (recorded facts, helm template): our selector merged into the chart's, its
    # affinity kept: never on a node Karpenter launched.
    (pod,) = [w["pod"] for w in render(chart_facts.load("karpenter", release.version()), values).workloads]
    assert pod["nodeSelector"] == {"kubernetes.io/os": "linux", ROLE_LABEL: "initial"}
    term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    assert term == {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}
