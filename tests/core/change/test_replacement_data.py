"""The generated replacement facts (scripts/generators/generate_replacement.py): shape, provenance, known entries."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from mlplatform_core.change import replacement

DATA = json.loads(resources.files("mlplatform_core").joinpath("data/replacement.json").read_text("utf-8"))


def test_every_entry_has_the_documented_shape():
    assert set(DATA) >= {"generated", "generator", "source", "fields", "resources", "notRead"}
    for token, entry in DATA["resources"].items():
        assert token == replacement.KUBERNETES_ANY or token.count(":") >= 2, token
        assert entry["forceNew"] is None or all(isinstance(p, str) and p for p in entry["forceNew"]), token
        assert isinstance(entry["deleteBeforeReplace"], bool) and isinstance(entry["autoNamed"], list), token
        assert all(isinstance(why, str) and why for why in (entry.get("forceNewIf") or {}).values()), token


def test_every_source_is_pinned_to_a_commit():
    for record in DATA["source"]:
        assert len(record["commit"]) == 40 and record["repo"] and record["path"] and record["license"], record
    index = next(r for r in DATA["source"] if r["role"] == "tf-aws-index")
    assert index["tag"].startswith("v6.") and "terraform-provider-aws" in index["upstream"]
    assert "service/eks/func.resourceNodeGroup.goindex" in index["files"]  # what was read is listed


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
        "nodeRepairConfig.enabled",
    ):
        assert not any(replacement.overlaps(updatable, f) for f in facts.force_new), updatable
    assert "nodeGroupName" in facts.auto_named  # pulumi-aws names it: a replacement never collides


def test_cluster_version_and_upgrade_policy_update_in_place_its_name_replaces():
    facts = replacement.facts("aws:eks/cluster:Cluster")
    assert {"name", "roleArn", "bootstrapSelfManagedAddons", "kubernetesNetworkConfig.ipFamily"} <= set(facts.force_new)
    for updatable in ("version", "upgradePolicy.supportType", "vpcConfig.subnetIds", "enabledClusterLogTypes"):
        assert not any(replacement.overlaps(updatable, f) for f in facts.force_new), updatable
    # Removing envelope encryption replaces the cluster; adding it does not: a condition, named.
    assert "encryptionConfig" in dict(facts.force_new_if)


@pytest.mark.parametrize(
    ("token", "forced"),
    [
        ("aws:ec2/vpc:Vpc", "cidrBlock"),
        ("aws:ec2/subnet:Subnet", "cidrBlock"),
        ("aws:ec2/subnet:Subnet", "availabilityZone"),
        ("aws:kms/key:Key", "keyUsage"),
        ("aws:iam/role:Role", "name"),
        ("aws:autoscaling/tag:Tag", "autoscalingGroupName"),
        ("aws:eks/addon:Addon", "addonName"),
        ("aws:eks/podIdentityAssociation:PodIdentityAssociation", "serviceAccount"),
        ("aws:eks/accessEntry:AccessEntry", "principalArn"),
        ("aws:ec2/launchTemplate:LaunchTemplate", "name"),
        ("aws:ec2/securityGroup:SecurityGroup", "vpcId"),
        ("aws:ec2/securityGroupRule:SecurityGroupRule", "fromPort"),
        ("aws:ec2/natGateway:NatGateway", "subnetId"),
        ("aws:ec2/routeTable:RouteTable", "vpcId"),
        ("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "url"),
        ("aws:sqs/queue:Queue", "fifoQueue"),
        ("aws:ec2/placementGroup:PlacementGroup", "strategy"),
        ("kubernetes:apps/v1:Deployment", "spec.selector"),
        ("kubernetes:apps/v1:DaemonSet", "spec.selector"),
        ("kubernetes:storage.k8s.io/v1:StorageClass", "parameters"),
        ("kubernetes:storage.k8s.io/v1:StorageClass", "provisioner"),
        ("kubernetes:core/v1:ConfigMap", "data"),
        ("kubernetes:core/v1:Namespace", "metadata.name"),
        ("kubernetes:karpenter.sh/v1:NodePool", "metadata.name"),
        ("kubernetes:helm.sh/v3:Release", "namespace"),
    ],
)
def test_known_inputs_that_replace(token, forced):
    assert forced in replacement.facts(token).force_new


@pytest.mark.parametrize(
    ("token", "updatable"),
    [
        ("aws:ec2/launchTemplate:LaunchTemplate", "imageId"),  # a new template version, not a new template
        ("aws:ec2/launchTemplate:LaunchTemplate", "userData"),
        ("aws:eks/addon:Addon", "addonVersion"),
        ("aws:eks/addon:Addon", "configurationValues"),
        ("aws:ec2/securityGroup:SecurityGroup", "ingress"),
        ("aws:ec2/internetGateway:InternetGateway", "vpcId"),
        ("aws:ec2/routeTableAssociation:RouteTableAssociation", "routeTableId"),
        ("aws:iam/rolePolicy:RolePolicy", "policy"),
        ("aws:kms/keyPolicy:KeyPolicy", "policy"),
        ("kubernetes:apps/v1:Deployment", "spec.template"),
        ("kubernetes:helm.sh/v3:Release", "values"),
        ("kubernetes:karpenter.sh/v1:NodePool", "spec.template"),
    ],
)
def test_known_inputs_that_update_in_place(token, updatable):
    facts = replacement.facts(token)
    assert facts.known and not any(replacement.overlaps(updatable, f) for f in facts.force_new), (token, updatable)


def test_pulumi_aws_deletes_these_before_replacing():
    for token in ("aws:ec2/securityGroupRule:SecurityGroupRule", "aws:iam/rolePolicyAttachment:RolePolicyAttachment"):
        assert replacement.facts(token).delete_before_replace, token
    assert not replacement.facts("aws:eks/nodeGroup:NodeGroup").delete_before_replace


def test_pulumi_aws_auto_names_every_input_name():
    # provider/autonaming.go: an input `name` is auto-named unless the overrides say otherwise.
    for token in ("aws:eks/cluster:Cluster", "aws:ec2/launchTemplate:LaunchTemplate", "aws:iam/policy:Policy"):
        assert "name" in replacement.facts(token).auto_named, token
    assert replacement.facts("aws:cloudwatch/eventTarget:EventTarget").auto_named == ("targetId",)


def test_a_type_never_read_is_unknown_not_guessed():
    assert not replacement.facts("aws:s3/bucket:Bucket").known
    assert not replacement.facts("pulumi:providers:kubernetes").known


def test_unset_force_new_inputs_record_their_default_or_that_the_provider_keeps_the_value():
    cluster = DATA["resources"]["aws:eks/cluster:Cluster"]
    # aws_eks_cluster's ip_family is Optional+Computed+ForceNew with no schema Default; the API's default is ipv4,
    # as the provider documents it (read from the installed pulumi_aws SDK's docstring).
    assert cluster["defaults"]["kubernetesNetworkConfig.ipFamily"] == "ipv4"
    assert "(default)" in cluster["defaultFrom"]["kubernetesNetworkConfig.ipFamily"]
    assert "kubernetesNetworkConfig.ipFamily" in cluster["computed"]
    assert cluster["defaults"]["bootstrapSelfManagedAddons"] is True  # schema Default: true
    assert DATA["resources"]["aws:iam/role:Role"]["defaults"] == {"path": "/"}
    assert "instanceTypes" in DATA["resources"]["aws:eks/nodeGroup:NodeGroup"]["computed"]
    for token, entry in DATA["resources"].items():
        fixed = [*(entry["forceNew"] or []), *(entry.get("forceNewIf") or {})]
        for path in [*(entry.get("defaults") or {}), *(entry.get("computed") or [])]:
            assert any(replacement.overlaps(path, f) for f in fixed), (token, path)
        assert set(entry.get("defaults") or {}) == set(entry.get("defaultFrom") or {}), token


def test_the_auto_mode_node_role_decider_is_the_one_the_diff_evaluates():
    from mlplatform_core.change.resources import DECIDERS

    facts = replacement.facts("aws:eks/cluster:Cluster")
    assert dict(facts.force_new_if)["computeConfig.nodeRoleArn"] in DECIDERS
