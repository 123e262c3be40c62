"""The generated replacement facts (scripts/generate_replacement.py): their shape, provenance and known entries."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from mlplatform_core.change import replacement

DATA = json.loads(resources.files("mlplatform_core").joinpath("data/replacement.json").read_text("utf-8"))


def test_every_entry_has_the_documented_shape():
    assert set(DATA) >= {"generated", "generator", "source", "fields", "resources", "notRead"}
    for token, entry in DATA["resources"].items():
        assert token.count(":") >= 2, token
        assert entry["forceNew"] is None or all(isinstance(p, str) and p for p in entry["forceNew"]), token
        assert isinstance(entry["deleteBeforeReplace"], bool) and isinstance(entry["autoNamed"], list), token


def test_every_source_is_pinned_to_a_commit():
    for record in DATA["source"]:
        assert len(record["commit"]) == 40 and record["repo"] and record["path"] and record["license"], record


# terraform-provider-aws internal/service/eks/node_group.go (domain facts, section 7).
NODE_GROUP_FORCE_NEW = {
    "amiType",
    "capacityType",
    "clusterName",
    "diskSize",
    "instanceTypes",
    "launchTemplate.id",
    "launchTemplate.name",
    "nodeGroupName",
    "nodeGroupNamePrefix",
    "nodeRoleArn",
    "remoteAccess",
    "subnetIds",
}


def test_node_group_inputs_that_replace_and_that_update():
    facts = replacement.facts("aws:eks/nodeGroup:NodeGroup")
    assert set(facts.force_new) == NODE_GROUP_FORCE_NEW
    for updatable in (
        "labels",
        "taints",
        "scalingConfig.maxSize",
        "updateConfig",
        "version",
        "launchTemplate.version",
        "tags",
        "releaseVersion",
    ):
        assert not any(replacement.overlaps(updatable, f) for f in facts.force_new), updatable
    assert "nodeGroupName" in facts.auto_named  # pulumi-aws names it: a replacement never collides


def test_cluster_version_and_upgrade_policy_update_in_place_its_name_replaces():
    facts = replacement.facts("aws:eks/cluster:Cluster")
    assert {"name", "roleArn", "bootstrapSelfManagedAddons", "kubernetesNetworkConfig.ipFamily"} <= set(facts.force_new)
    for updatable in ("version", "upgradePolicy.supportType", "vpcConfig.subnetIds", "enabledClusterLogTypes"):
        assert not any(replacement.overlaps(updatable, f) for f in facts.force_new), updatable


@pytest.mark.parametrize(
    ("token", "forced"),
    [
        ("aws:ec2/vpc:Vpc", "cidrBlock"),
        ("aws:ec2/subnet:Subnet", "availabilityZone"),
        ("aws:kms/key:Key", "keyUsage"),
        ("aws:iam/role:Role", "name"),
        ("aws:autoscaling/tag:Tag", "autoscalingGroupName"),
        ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "value"),
        ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "preemptionPolicy"),
    ],
)
def test_known_inputs_that_replace(token, forced):
    assert forced in replacement.facts(token).force_new


def test_pulumi_aws_deletes_these_before_replacing():
    for token in ("aws:ec2/securityGroupRule:SecurityGroupRule", "aws:iam/rolePolicyAttachment:RolePolicyAttachment"):
        assert replacement.facts(token).delete_before_replace, token
    assert not replacement.facts("aws:eks/nodeGroup:NodeGroup").delete_before_replace


def test_a_type_never_read_is_unknown_not_guessed():
    assert not replacement.facts("aws:ec2/launchTemplate:LaunchTemplate").known
    assert not replacement.facts("aws:ec2/securityGroupRule:SecurityGroupRule").known  # order known, inputs not


def test_the_foundation_the_gate_protects_has_facts(prod_run):
    registered = {r.type for r in prod_run.resources}
    for token in ("aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup", "aws:ec2/vpc:Vpc", "aws:kms/key:Key"):
        assert token in registered and replacement.facts(token).known, token
