"""Turning EKS Auto Mode on (or changing its node role, or an ipFamily) as the provider takes it: the diff reads
unset ForceNew inputs through their recorded defaults, and evaluates the node-role condition the provider's
CustomizeDiff applies (terraform-provider-aws validateAutoModeComputeConfigCustomizeDiff)."""

from __future__ import annotations

from mlplatform_core.change.resources import AUTO_MODE_ON, diff_resources
from tests.core.change.test_resources import res

CLUSTER, NG = "aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup"
IGNORED = ["accessConfig.bootstrapClusterCreatorAdminPermissions", "bootstrapSelfManagedAddons"]
AUTO = {
    "computeConfig": {"enabled": True, "nodePools": ["system"], "nodeRoleArn": "arn:aws:iam::1:role/auto-node"},
    "storageConfig": {"blockStorage": {"enabled": True}},
    "kubernetesNetworkConfig": {"ipFamily": "ipv4", "elasticLoadBalancing": {"enabled": True}},
}


def cluster(**inputs):
    return res(CLUSTER, "eks", {"name": "mlp-dev", "version": "1.35", **inputs}, ignoreChanges=IGNORED)


def only(before, after):
    (change,) = diff_resources([before], [after])
    return change


def test_turning_auto_mode_on_updates_the_cluster_in_place():
    change = only(cluster(bootstrapSelfManagedAddons=True), cluster(bootstrapSelfManagedAddons=False, **AUTO))
    assert change.action == "update" and change.note == AUTO_MODE_ON
    assert "kubernetesNetworkConfig.ipFamily" not in change.fields  # unset and ipv4 are the same to the provider
    assert {"computeConfig.enabled", "storageConfig.blockStorage"} <= set(change.fields)


def test_an_ip_family_other_than_the_default_still_replaces():
    change = only(cluster(), cluster(kubernetesNetworkConfig={"ipFamily": "ipv6"}))
    assert change.action == "replace" and change.forced_by == ["kubernetesNetworkConfig.ipFamily"]


def test_changing_the_auto_mode_node_role_replaces_the_cluster():
    other = {**AUTO, "computeConfig": {**AUTO["computeConfig"], "nodeRoleArn": "arn:aws:iam::1:role/other"}}
    change = only(cluster(**AUTO), cluster(**other))
    assert change.action == "replace" and change.forced_by == ["computeConfig.nodeRoleArn"]
    assert change.order == "delete-before-replace"  # the cluster's fixed name


def test_turning_auto_mode_off_updates_in_place():
    off = {"computeConfig": {"enabled": False}, "storageConfig": {"blockStorage": {"enabled": False}}}
    change = only(cluster(**AUTO), cluster(**off, kubernetesNetworkConfig={"elasticLoadBalancing": {"enabled": False}}))
    assert change.action == "update" and "turned off in place" in change.note


def test_an_optional_computed_input_left_unset_keeps_its_value():
    before = res(NG, "jobs", {"instanceTypes": ["m5.2xlarge"], "capacityType": "ON_DEMAND"})
    after = res(NG, "jobs", {"capacityType": "ON_DEMAND"})
    assert only(before, after).action == "same"
    assert only(before, res(NG, "jobs", {"instanceTypes": ["m5.4xlarge"], "capacityType": "ON_DEMAND"})).action == (
        "replace"
    )
