"""The pulumi-eks model with `autoMode` on (mlplatform/engine/remote/pulumi_eks_auto_mode.py), pinned to what
nodejs/eks/cluster/cluster.ts (v4.3.0, unchanged in 4.4.0's tree) creates, and to the SDK's Auto Mode inputs."""

from __future__ import annotations

import hashlib
import inspect
import json
import re

import pulumi_aws
import pulumi_eks
import pytest

from mlplatform.engine.remote import ModelError
from mlplatform.engine.remote import pulumi_eks as model
from mlplatform.engine.remote import pulumi_eks_auto_mode as auto_mode
from tests.runs import shipped_run

_INPUTS = {
    "name": "mlp",
    "version": "1.35",
    "vpcId": "vpc-1",
    "privateSubnetIds": ["subnet-1"],
    "skipDefaultNodeGroup": True,
    "authenticationMode": "API",
    "createOidcProvider": True,
    "corednsAddonOptions": {"enabled": False},
    "autoMode": {"enabled": True},
}
POLICY = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"


def _construct(unknown: frozenset[str] = frozenset(), **changes):
    counter = iter(range(100))
    return model.construct(
        "cluster",
        {**_INPUTS, **changes},
        version="4.4.0",
        region="us-west-2",
        unknown=unknown,
        new_resource=lambda t, n, i: (f"{n}-id{next(counter)}", {"arn": f"arn:{n}", "name": i.get("name", n)}),
    )


def _children(built, type_: str) -> dict:
    return {c.name: c for c in built.children if c.type == type_}


def _sha8(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def test_the_sdk_takes_the_auto_mode_inputs_the_model_follows():
    # A new field of autoMode or computeConfig in an SDK bump must be read from cluster.ts before it is followed.
    params = set(inspect.signature(pulumi_eks.AutoModeOptionsArgs.__init__).parameters) - {"__self__"}
    assert params == {"enabled", "compute_config", "create_node_role"}
    compute = set(inspect.signature(pulumi_aws.eks.ClusterComputeConfigArgs.__init__).parameters) - {"__self__"}
    assert compute == {"enabled", "node_pools", "node_role_arn"}


def test_auto_mode_turns_on_compute_block_storage_and_load_balancing_together():
    built = _construct()
    (eks,) = _children(built, "aws:eks/cluster:Cluster").values()
    assert eks.inputs["computeConfig"] == {
        "enabled": True,
        "nodePools": ["general-purpose", "system"],  # pulumi-eks's default, unless the input names others
        "nodeRoleArn": "arn:cluster-nodeRole-role",
    }
    assert eks.inputs["storageConfig"] == {"blockStorage": {"enabled": True}}
    assert eks.inputs["kubernetesNetworkConfig"] == {"ipFamily": "ipv4", "elasticLoadBalancing": {"enabled": True}}
    assert eks.inputs["bootstrapSelfManagedAddons"] is False
    # The created node role's ARN is unknown in a preview: all three settings are resolved together.
    assert {("computeConfig",), ("storageConfig",), ("kubernetesNetworkConfig",)} <= set(eks.unknown_in_preview)


def test_the_cluster_role_gets_auto_modes_policies_and_the_node_role_is_created():
    built = _construct()
    policies = _children(built, POLICY)
    for policy in ("AmazonEKSClusterPolicy", *auto_mode.CLUSTER_ROLE_AUTO_MODE_POLICIES):
        attachment = policies[f"cluster-eksRole-{_sha8(f'arn:aws:iam::aws:policy/{policy}')}"]
        assert attachment.inputs["policyArn"] == f"arn:aws:iam::aws:policy/{policy}"
    node_role = _children(built, "aws:iam/role:Role")["cluster-nodeRole-role"]
    trust = json.loads(node_role.inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": ["ec2.amazonaws.com"]}
    assert trust["Statement"][0]["Action"] == ["sts:AssumeRole"]
    for policy in auto_mode.NODE_ROLE_POLICIES:
        assert f"cluster-nodeRole-{_sha8(f'arn:aws:iam::aws:policy/{policy}')}" in policies
    assert built.outputs["autoModeNodeRoleName"] == "cluster-nodeRole-role"
    # No access entry: EKS makes the one of computeConfig.nodeRoleArn.
    assert not _children(built, "aws:eks/accessEntry:AccessEntry")


def test_auto_mode_leaves_out_the_add_ons_and_security_groups_it_replaces():
    built = _construct()
    assert not _children(built, "aws:eks/addon:Addon")  # kube-proxy, vpc-cni
    assert not _children(built, "aws:ec2/securityGroup:SecurityGroup")
    (eks,) = _children(built, "aws:eks/cluster:Cluster").values()
    assert "securityGroupIds" not in eks.inputs["vpcConfig"]
    # Both security-group outputs are the one EKS makes for the cluster.
    group = model.cluster_security_group_id("mlp")
    assert built.outputs["clusterSecurityGroupId"] == built.outputs["nodeSecurityGroupId"] == group


def test_the_programs_auto_mode_inputs():
    compute = {"nodePools": ["system"], "nodeRoleArn": "arn:aws:iam::1:role/auto"}
    built = _construct(
        unknown=frozenset({"autoMode"}),
        autoMode={"enabled": True, "createNodeRole": False, "computeConfig": compute},
        skipDefaultSecurityGroups=False,
        useDefaultVpcCni=False,
        kubeProxyAddonOptions={"enabled": True},
    )
    (eks,) = _children(built, "aws:eks/cluster:Cluster").values()
    assert eks.inputs["computeConfig"] == {"enabled": True, **compute}
    assert "cluster-nodeRole-role" not in _children(built, "aws:iam/role:Role")
    assert built.outputs["autoModeNodeRoleName"] == ""
    assert set(_children(built, "aws:eks/addon:Addon")) == {"cluster-kube-proxy", "cluster-vpc-cni"}
    assert "cluster-eksClusterSecurityGroup" in _children(built, "aws:ec2/securityGroup:SecurityGroup")
    # No built-in pool: no node role on the cluster.
    built = _construct(autoMode={"enabled": True, "createNodeRole": False, "computeConfig": {"nodePools": []}})
    (eks,) = _children(built, "aws:eks/cluster:Cluster").values()
    assert eks.inputs["computeConfig"] == {"enabled": True, "nodePools": []}


@pytest.mark.parametrize(
    "changes,needle",
    [
        ({"autoMode": {"enabled": True, "nodeRole": "x"}}, "autoMode.nodeRole is not modelled"),
        ({"autoMode": {"enabled": True, "computeConfig": {"x": 1}}}, "autoMode.computeConfig.x is not modelled"),
        ({"corednsAddonOptions": {}}, "CoreDNS"),  # Auto Mode makes the CoreDNS add-on unless it is disabled
        ({"kubeProxyAddonOptions": {"enabled": True, "version": "v1"}}, "kubeProxyAddonOptions.version"),
    ],
)
def test_auto_mode_inputs_the_model_does_not_follow_are_refused(changes, needle):
    with pytest.raises(ModelError, match=re.escape(needle)):
        _construct(**changes)


def test_without_auto_mode_nothing_changes():
    built = _construct(autoMode={"enabled": False})
    (eks,) = _children(built, "aws:eks/cluster:Cluster").values()
    assert not {"computeConfig", "storageConfig", "kubernetesNetworkConfig"} & eks.inputs.keys()
    assert eks.inputs["bootstrapSelfManagedAddons"] is True
    assert set(_children(built, "aws:eks/addon:Addon")) == {"cluster-kube-proxy", "cluster-vpc-cni"}
    assert len(_children(built, POLICY)) == 1


def test_the_shipped_auto_mode_stack_through_the_model():
    run = shipped_run("dev-automode")
    eks = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    node_role = run.one("aws:iam/role:Role", "cluster-auto-node")
    assert eks.inputs["computeConfig"] == {
        "enabled": True,
        "nodePools": ["system"],
        "nodeRoleArn": node_role.outputs["arn"],
    }
    assert eks.inputs["storageConfig"]["blockStorage"]["enabled"] is True
    assert eks.inputs["kubernetesNetworkConfig"]["elasticLoadBalancing"]["enabled"] is True
    assert not run.of_type("aws:eks/addon:Addon")  # no kube-proxy, vpc-cni, CoreDNS, EBS CSI
    assert len([r for r in run.of_type(POLICY) if r.created_by]) == 5
    assert not run.of_type("aws:eks/accessEntry:AccessEntry")  # EKS makes the node role's
    assert {r.name for r in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment") if not r.created_by} == {
        "cluster-auto-node-minimal",
        "cluster-auto-node-ecr",
    }


@pytest.mark.parametrize("partition", ["aws", "aws-us-gov", "aws-cn"])
def test_the_policies_pulumi_eks_attaches_to_the_cluster_role_exist_in_every_partition(partition):
    from mlplatform_core.model.iam import managed_policies as mp

    arns = [
        f"arn:{partition}:iam::aws:policy/{p}"
        for p in ("AmazonEKSClusterPolicy", *auto_mode.CLUSTER_ROLE_AUTO_MODE_POLICIES)
    ]
    assert [a for a in arns if mp.arn_problem(a, partition)] == []
    assert all(mp.document(mp.parse(a).name) for a in arns)  # what the role may do is read from AWS's own text
