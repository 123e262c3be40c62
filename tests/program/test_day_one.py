"""Day one under mocks: access entries, storage, add-on ownership, destroy order and the two deployment paths."""

from __future__ import annotations

import copy
import json

import pulumi
import pytest
import yaml

from mlplatform.engine import run_program, run_stack
from mlplatform.engine.run import ORGANIZATION
from mlplatform_core.model.addons import ebs_csi, node_agents
from mlplatform_core.model.cluster import node_managed_policies
from mlplatform_core.model.deployment import KUBERNETES_DIRECTORY, KUBERNETES_PROJECT, cluster_stack_reference
from mlplatform_program.components.cluster_reference import SECRET_EXPORTS
from tests.conftest import ROOT, stack_config
from tests.runs import shipped_run

P = "ml-platform-eks:"
ADDON = "aws:eks/addon:Addon"
ENTRY = "aws:eks/accessEntry:AccessEntry"
ASSOCIATION = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
PUBLIC = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.7/32"]}
ACCESS = {
    "admin": ["arn:aws:iam::111122223333:role/platform-team"],
    "edit": [{"principal": "arn:aws:iam::111122223333:role/ml-engineers", "namespaces": ["mlrun", "jupyter"]}],
    "view": ["arn:aws:iam::111122223333:role/ml-engineers"],
}


def configured(stack: str, **settings):
    raw = stack_config(stack)
    raw.update({P + k: v for k, v in settings.items()})
    return run_stack(stack, raw)


def addon(run, name: str):
    (found,) = [a for a in run.of_type(ADDON) if a.inputs["addonName"] == name]
    return found


# --- access -------------------------------------------------------------------------------------------


def test_access_setting_becomes_entries_and_scoped_policy_associations():
    run = configured("dev", access=ACCESS)
    entries = {e.inputs["principalArn"]: e for e in run.of_type(ENTRY)}
    assert set(entries) == {f"arn:aws:iam::111122223333:role/{n}" for n in ("platform-team", "ml-engineers")}
    assert {e.inputs["type"] for e in entries.values()} == {"STANDARD"}
    assert all(e.inputs["clusterName"] == "mlp-dev" for e in entries.values())
    cluster = run.one("eks:index:Cluster", "cluster")
    assert all(cluster.urn in e.dependencies for e in entries.values()), "entries wait for the cluster"
    assoc = {
        (a.inputs["principalArn"].rsplit("/", 1)[-1], a.inputs["policyArn"].rsplit("/", 1)[-1]): a.inputs["accessScope"]
        for a in run.of_type(ASSOCIATION)
    }
    assert assoc == {
        ("platform-team", "AmazonEKSClusterAdminPolicy"): {"type": "cluster"},
        ("ml-engineers", "AmazonEKSEditPolicy"): {"type": "namespace", "namespaces": ["mlrun", "jupyter"]},
        ("ml-engineers", "AmazonEKSViewPolicy"): {"type": "cluster"},
    }
    # Associations take the principal from their entry, so they are created after it.
    for a in run.of_type(ASSOCIATION):
        assert any(d.endswith("::" + e.name) for e in entries.values() for d in a.dependencies), a.name
    assert run.programs[0].of_type(ENTRY), "access entries go through AWS APIs: the cluster program makes them"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_creator_gets_no_entry_of_ours(stack):
    assert shipped_run(stack).of_type(ENTRY) == []


# --- ownership and order ------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_node_groups_wait_for_the_cluster_and_the_node_roles_policies(stack):
    run = shipped_run(stack)
    attachments = {
        r.urn
        for r in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if r.name.startswith("cluster-node-")
    }
    assert len(attachments) == len(node_managed_policies("us-east-1"))
    cluster = run.one("eks:index:Cluster", "cluster").urn
    for group in run.of_type("aws:eks/nodeGroup:NodeGroup"):
        assert attachments <= set(group.dependencies), group.name
        assert cluster in group.dependencies, group.name


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_eks_addons_are_preserved_and_versioned_for_the_clusters_minor(stack):
    run = shipped_run(stack)
    version = stack_config(stack)[P + "kubernetesVersion"]
    asked = {i.args["addonName"]: i.args for i in run.invokes if i.token == "aws:eks/getAddonVersion:getAddonVersion"}
    for name in ("coredns", ebs_csi.ADDON_NAME):
        a = addon(run, name)
        assert a.inputs["preserve"] is True, name
        assert asked[name] == {"addonName": name, "kubernetesVersion": version, "mostRecent": True}
        assert a.inputs["addonVersion"] == f"(newest {name} for Kubernetes {version}, resolved at deploy)"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_no_tag_resource_for_the_discovery_tags_eks_owns(stack):
    run = shipped_run(stack)
    keys = {t.inputs["tag"]["key"] for t in run.of_type("aws:autoscaling/tag:Tag")}
    assert keys and not {"k8s.io/cluster-autoscaler/enabled", f"k8s.io/cluster-autoscaler/mlp-{stack}"} & keys
    assert all(k.startswith("k8s.io/cluster-autoscaler/node-template/") for k in keys)


# --- storage -------------------------------------------------------------------------------------------


def test_ebs_csi_driver_has_its_own_role_and_the_default_encrypted_class(prod_run):
    a = addon(prod_run, ebs_csi.ADDON_NAME)
    role = prod_run.one("aws:iam/role:Role", "platform-storage-ebs-csi")
    # podIdentity: true in the shipped stacks: an association, no IRSA role ARN on the add-on.
    assert "serviceAccountRoleArn" not in a.inputs
    association = prod_run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "platform-storage-ebs-csi")
    assert (
        association.inputs["serviceAccount"] == "ebs-csi-controller-sa"
        and association.inputs["roleArn"] == (role.outputs["arn"])
    )
    assert association.urn in a.dependencies  # the controller's pods start once the association exists
    (stmt,) = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert stmt["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"] == "ebs-csi-controller-sa"
    (policy,) = [
        r
        for r in prod_run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if r.name == "platform-storage-ebs-csi"
    ]
    assert policy.inputs["policyArn"] == ebs_csi.policy_arn("us-east-1")
    assert json.loads(a.inputs["configurationValues"]) == ebs_csi.configuration("us-east-1")
    (sc,) = prod_run.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    assert sc.inputs["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    assert sc.inputs["parameters"] == {"type": "gp3", "encrypted": "true", "csi.storage.k8s.io/fstype": "ext4"}


def test_every_addon_the_programs_install_declares_its_daemonsets(dev_run):
    installed = {r.inputs["name"] for r in dev_run.of_type("kubernetes:helm.sh/v3:Release")}
    installed |= {a.inputs["addonName"] for a in dev_run.of_type(ADDON)}
    missing = installed - set(node_agents.ADDONS)
    assert not missing, f"add {missing} to mlplatform_core/model/addons/node_agents.py ADDONS (and its DaemonSets)"


# --- the two deployment paths ---------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_separate_the_cluster_program_never_talks_to_the_kubernetes_api(stack):
    run = shipped_run(stack)
    cluster, layer = run.programs
    assert not [r for r in cluster.resources if r.type.startswith("kubernetes:")]
    assert not cluster.of_type("mlplatform:platform:Platform")
    assert layer.project == KUBERNETES_PROJECT and layer.directory == "kubernetes-layer"
    assert layer.of_type("mlplatform:platform:Platform") and layer.of_type("kubernetes:helm.sh/v3:Release")
    assert layer.exports["clusterStack"] == f"{ORGANIZATION}/ml-platform-eks/{stack}"
    (provider,) = layer.of_type("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"
    # The autoscaler's priorities name the node groups the cluster stack exported.
    data = layer.one("kubernetes:core/v1:ConfigMap", "configmap-cluster-autoscaler-priority-expander").inputs["data"]
    patterns = [p for ps in yaml.safe_load(data["priorities"]).values() for p in ps]
    assert any(cluster.exports["nodeGroups"]["gpu"] in p for p in patterns)
    # Everything it touches is in the cluster's outputs (an export the layer reads but nobody writes fails).
    assert {"kubeconfig", "oidcProviderArn", "oidcProviderUrl", "nodeGroups"} <= set(cluster.exports)
    # The layer reads the exports as secret exactly when the cluster program exports them as secret.
    assert cluster.secret_exports == SECRET_EXPORTS
    # The Pod Identity agent is the cluster program's (AWS APIs); the layer's roles are bound by associations.
    assert "eks-pod-identity-agent" in {a.inputs["addonName"] for a in cluster.of_type(ADDON)}
    assert layer.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "platform-autoscaler")


def test_the_layer_names_an_output_the_cluster_stack_lacks():
    cluster = copy.copy(shipped_run("dev").programs[0])  # an older cluster stack, without one export
    cluster.exports = {k: v for k, v in cluster.exports.items() if k != "oidcProviderArn"}
    with pytest.raises(Exception, match="has no output 'oidcProviderArn'; run `pulumi up` for the cluster stack"):
        run_program(
            "dev",
            stack_config("dev"),
            ROOT / KUBERNETES_DIRECTORY,
            project=KUBERNETES_PROJECT,
            references={cluster_stack_reference(ORGANIZATION, "dev"): cluster},
        )


def test_inline_one_program_deploys_everything():
    run = configured("dev", endpoint=PUBLIC, kubernetesLayer="inline")
    (program,) = run.programs
    assert program.of_type("mlplatform:platform:Platform")
    assert program.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    vpc = program.one("aws:eks/cluster:Cluster", "cluster-eksCluster").inputs["vpcConfig"]
    assert vpc["endpointPublicAccess"] is True and vpc["publicAccessCidrs"] == ["34.120.10.7/32"]


def test_the_kubernetes_layer_program_refuses_an_inline_stack():
    raw = stack_config("dev")
    raw[P + "endpoint"], raw[P + "kubernetesLayer"] = PUBLIC, "inline"
    with pytest.raises(pulumi.RunError, match="kubernetesLayer: inline"):
        run_program("dev", raw, ROOT / "kubernetes-layer", project=KUBERNETES_PROJECT)


def own_rules(run):
    """The security-group rules the program creates (pulumi-eks creates its own inside its component)."""
    return [r for r in run.of_type("aws:ec2/securityGroupRule:SecurityGroupRule") if r.created_by is None]


def test_the_private_endpoint_opens_https_to_the_vpc_only(prod_run):
    (rule,) = own_rules(prod_run)
    assert (rule.inputs["type"], rule.inputs["protocol"], rule.inputs["fromPort"], rule.inputs["toPort"]) == (
        "ingress",
        "tcp",
        443,
        443,
    )
    assert rule.inputs["cidrBlocks"] == ["10.50.0.0/16"]
    cluster = prod_run.one("eks:index:Cluster", "cluster")
    assert rule.inputs["securityGroupId"] == cluster.outputs["clusterSecurityGroupId"]


def test_an_existing_vpc_opens_the_private_endpoint_to_its_own_cidr():
    subnets = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]
    network = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": subnets}
    run = configured("prod", network=network)
    (lookup,) = [i for i in run.invokes if i.token == "aws:ec2/getVpc:getVpc"]
    assert lookup.args["id"] == "vpc-0123456789abcdef0"
    (rule,) = own_rules(run)
    assert rule.inputs["cidrBlocks"] == [lookup.result["cidrBlock"]]
    vpn = configured("prod", endpoint={"privateAccess": True, "privateAccessCidrs": ["172.31.200.0/22"]})
    (rule,) = own_rules(vpn)
    assert rule.inputs["cidrBlocks"] == ["172.31.200.0/22"]
