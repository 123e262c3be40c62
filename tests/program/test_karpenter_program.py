"""The real program on the Karpenter example stack: what the Karpenter component registers, under mocks."""

from __future__ import annotations

import json

import pytest

from mlplatform.engine import run_stack
from mlplatform.reports.plan_document import node_groups as plan_node_groups
from mlplatform_core.model.addons import karpenter_controller as addon
from mlplatform_core.model.cluster import node_managed_policies
from mlplatform_core.model.config import parse
from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config
from tests.runs import shipped_run

STACK = "dev-karpenter"
NG = "aws:eks/nodeGroup:NodeGroup"
ASG_TAG = "aws:autoscaling/tag:Tag"
RELEASE = "kubernetes:helm.sh/v3:Release"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
INFRASTRUCTURE = "mlplatform:karpenter:KarpenterInfrastructure"
POOLS = "mlplatform:karpenter:KarpenterPools"
DISCOVERY = "karpenter.sh/discovery"


@pytest.fixture(scope="module")
def run():
    return shipped_run(STACK)


def layout():
    return build_layout(parse(stack_config(STACK)), STACK)


def test_only_the_initial_group_is_a_managed_node_group(run):
    assert [r.name for r in run.of_type(NG)] == ["initial"]
    assert run.exports["nodeGroups"].keys() == {"initial"}
    assert run.exports["nodePools"] == ["jupyter", "jobs", "spot", "gpu"]


def test_no_cluster_autoscaler_in_a_karpenter_stack(run):
    releases = {r.name for r in run.of_type(RELEASE)}
    assert releases == {"karpenter-crd", "karpenter", "nvidia-device-plugin"}
    # (The initial group's ASG keeps its node-template tags; nothing reads them without the autoscaler.)
    assert not [r for r in run.resources if "autoscaler" in r.name and r.type != "aws:autoscaling/tag:Tag"]
    assert "cluster-autoscaler" in {r.name for r in shipped_run("dev").of_type(RELEASE)}
    # Nor an output that would stand for it.
    assert "autoscalerRoleArn" not in run.exports and "autoscalerRoleArn" in shipped_run("dev").exports
    dev = shipped_run("dev")
    assert not dev.of_type(INFRASTRUCTURE) and not dev.of_type(POOLS) and not dev.of_type(NODE_POOL)


def test_node_pools_and_node_classes_are_the_layouts(run):
    pools = {r.inputs["metadata"]["name"]: r for r in run.of_type(NODE_POOL)}
    classes = {r.inputs["metadata"]["name"]: r for r in run.of_type(NODE_CLASS)}
    node_role = run.one("aws:iam/role:Role", "karpenter-node")
    for pool in layout().node_pools:
        assert pools[pool.name].inputs["spec"] == manifests.node_pool_spec(pool)
        assert pools[pool.name].inputs["apiVersion"] == "karpenter.sh/v1"
        spec = classes[pool.name].inputs["spec"]
        assert spec["role"] == node_role.outputs["name"]
        assert spec == manifests.node_class_spec(pool, node_role.outputs["name"], "mlp-dev-karpenter", spec["tags"])


def test_the_node_role_joins_through_an_ec2_linux_access_entry(run):
    role = run.one("aws:iam/role:Role", "karpenter-node")
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com"}
    attached = {
        r.inputs["policyArn"]
        for r in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if r.name.startswith("karpenter-node-")
    }
    assert attached == set(node_managed_policies("us-east-1").values())
    entry = run.one("aws:eks/accessEntry:AccessEntry", "karpenter-node")
    assert entry.inputs["type"] == "EC2_LINUX" and entry.inputs["principalArn"] == role.outputs["arn"]
    assert entry.inputs["clusterName"] == "mlp-dev-karpenter"


def test_the_controller_runs_on_the_initial_group_with_its_pod_identity_role(run):
    crds, controller = run.one(RELEASE, "karpenter-crd").inputs, run.one(RELEASE, "karpenter").inputs
    assert crds["chart"] == "oci://public.ecr.aws/karpenter/karpenter-crd" and crds["version"] == "1.14.1"
    assert controller["chart"] == "oci://public.ecr.aws/karpenter/karpenter" and controller["version"] == "1.14.1"
    assert controller["skipCrds"] is True and crds["skipCrds"] is False  # CRDs upgrade with karpenter-crd
    values = controller["values"]
    role = run.one("aws:iam/role:Role", "karpenter-controller")
    queue = run.one("aws:sqs/queue:Queue", "karpenter-interruption")
    # podIdentity: true in the shipped stack: an association, no IRSA annotation.
    assert "annotations" not in values["serviceAccount"]
    association = run.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "karpenter-controller")
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system", "karpenter")
    assert association.inputs["roleArn"] == role.outputs["arn"]
    # nodeRepair (on by default) turns on Karpenter's alpha NodeRepair feature gate.
    assert values["settings"] == {
        "clusterName": "mlp-dev-karpenter",
        "interruptionQueue": queue.outputs["name"],
        "featureGates": {"nodeRepair": True},
    }
    assert values["nodeSelector"] == {"mlplatform.io/node-role": "initial"} and values["replicas"] == 2
    trust = json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert trust["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"] == "karpenter"


def test_without_pod_identity_the_controller_keeps_its_irsa_annotation():
    values = addon.controller_values("mlp-x", "queue", "arn:aws:iam::1:role/k", 2)
    assert values["serviceAccount"]["annotations"] == {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/k"}
    assert "featureGates" not in values["settings"]


def test_controller_policies_name_this_clusters_role_and_queue(run):
    node_role = run.one("aws:iam/role:Role", "karpenter-node").outputs["arn"]
    queue = run.one("aws:sqs/queue:Queue", "karpenter-interruption").outputs["arn"]
    role_id = f"{run.one('aws:iam/role:Role', 'karpenter-controller').outputs['name']}-id"
    docs = {
        r.name.removeprefix("karpenter-controller-"): json.loads(r.inputs["policy"])
        for r in run.of_type("aws:iam/rolePolicy:RolePolicy")
        if r.name.startswith("karpenter-controller-")
    }
    assert set(docs) == {"eks-integration", "iam-integration", "interruption", "node-lifecycle", "resource-discovery"}
    expected = addon.controller_policies("mlp-dev-karpenter", "us-east-1", "123456789012", node_role, queue)
    assert docs["node-lifecycle"] == expected["NodeLifecycle"]
    assert docs["interruption"]["Statement"][0]["Resource"] == queue
    assert all(
        r.inputs["role"] == role_id for r in run.of_type("aws:iam/rolePolicy:RolePolicy") if "controller" in r.name
    )


def test_the_interruption_queue_gets_every_rule(run):
    queue = run.one("aws:sqs/queue:Queue", "karpenter-interruption")
    assert queue.inputs["messageRetentionSeconds"] == 300 and queue.inputs["sqsManagedSseEnabled"] is True
    policy = json.loads(run.one("aws:sqs/queuePolicy:QueuePolicy", "karpenter-interruption").inputs["policy"])
    assert policy["Statement"][0]["Resource"] == queue.outputs["arn"]
    rules = {r.name: json.loads(r.inputs["eventPattern"]) for r in run.of_type("aws:cloudwatch/eventRule:EventRule")}
    assert set(rules) == {
        "karpenter-scheduled-change",
        "karpenter-spot-interruption",
        "karpenter-rebalance",
        "karpenter-instance-state-change",
        "karpenter-capacity-reservation-interruption",
    }
    assert rules["karpenter-spot-interruption"] == {
        "source": ["aws.ec2"],
        "detail-type": ["EC2 Spot Instance Interruption Warning"],
    }
    targets = run.of_type("aws:cloudwatch/eventTarget:EventTarget")
    assert len(targets) == 5 and {t.inputs["arn"] for t in targets} == {queue.outputs["arn"]}


def test_subnets_and_the_cluster_security_group_carry_the_discovery_tag(run):
    private = [s for s in run.of_type("aws:ec2/subnet:Subnet") if "kubernetes.io/role/internal-elb" in s.inputs["tags"]]
    assert len(private) == 3 and all(s.inputs["tags"][DISCOVERY] == "mlp-dev-karpenter" for s in private)
    public = [s for s in run.of_type("aws:ec2/subnet:Subnet") if s not in private]
    assert all(DISCOVERY not in s.inputs["tags"] for s in public)
    (sg,) = run.of_type("aws:ec2/tag:Tag")  # the EKS-created cluster security group, read with eks:getCluster
    assert (sg.inputs["key"], sg.inputs["value"]) == (DISCOVERY, "mlp-dev-karpenter")
    assert sg.inputs["resourceId"].startswith("sg-")
    assert all(DISCOVERY not in s.inputs["tags"] for s in shipped_run("dev").of_type("aws:ec2/subnet:Subnet"))


def test_subnets_of_an_existing_vpc_are_tagged_in_place():
    raw = stack_config(STACK)
    subnets = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]
    raw["ml-platform-eks:network"] = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": subnets}
    run = run_stack(STACK, raw)
    tags = {t.inputs["resourceId"] for t in run.of_type("aws:ec2/tag:Tag") if t.inputs["key"] == DISCOVERY}
    assert set(subnets) < tags


def test_the_aws_side_is_the_cluster_programs_and_the_kubernetes_side_the_layers(run):
    """The private endpoint's split: IAM, queue and access entry need only AWS APIs (the cluster program,
    from anywhere); charts and NodePools need the Kubernetes API (kubernetes-layer/, inside the VPC)."""
    cluster, layer = run.programs
    (infrastructure,) = cluster.of_type(INFRASTRUCTURE)
    assert {r.type for r in cluster.children(infrastructure)} >= {
        "aws:iam/role:Role",
        "aws:eks/accessEntry:AccessEntry",
        "aws:sqs/queue:Queue",
        "aws:cloudwatch/eventRule:EventRule",
    }
    assert not cluster.of_type(POOLS) and not cluster.of_type(NODE_POOL)
    (pools,) = layer.of_type(POOLS)
    (provider,) = [r for r in layer.resources if r.type == "pulumi:providers:kubernetes"]
    karpenter_objects = [
        r
        for r in layer.resources
        if r.type in (NODE_POOL, NODE_CLASS) or (r.type == RELEASE and r.name.startswith("karpenter"))
    ]
    assert len(karpenter_objects) == 2 * 4 + 2  # a NodePool and an EC2NodeClass per pool, and the two charts
    for r in karpenter_objects:
        assert r.parent == pools.urn and r.provider.startswith(provider.urn), r.name
    # What the layer reads of the cluster stack is what the cluster program exports.
    assert {"karpenterNodeRoleName", "karpenterQueueName", "karpenterControllerRoleArn"} <= set(cluster.exports)


def test_migrating_keeps_the_node_groups_unchanged_next_to_the_pools():
    """Step 1 of a migration (karpenter.keepNodeGroups): the dev stack's node groups stay exactly as they are, but
    no autoscaler runs next to Karpenter, so the autoscaler's scale-from-zero tags go (and the plan says so)."""
    raw = stack_config("dev")
    raw["ml-platform-eks:provisioner"] = "karpenter"
    raw["ml-platform-eks:karpenter"] = {"keepNodeGroups": True}
    migrating, before = run_stack("dev", raw), shipped_run("dev")

    def node_groups(run):
        return {
            (r.type, r.name): (r.inputs, r.ignore_changes)
            for r in run.resources
            if r.type in (NG, "aws:ec2/launchTemplate:LaunchTemplate")
        }

    assert node_groups(migrating) == node_groups(before)  # desired sizes still left alone: no node goes
    assert before.of_type(ASG_TAG) and not migrating.of_type(ASG_TAG)
    layout = build_layout(parse(raw), "dev")
    shown = {g.name: g for g in plan_node_groups(migrating, autoscaler=layout.runs_cluster_autoscaler)}
    assert shown["jobs"].desired_size_ignored and not shown["jobs"].autoscaled
    assert all(g.autoscaled == g.desired_size_ignored for g in plan_node_groups(before))
    assert [r.inputs["metadata"]["name"] for r in migrating.of_type(NODE_POOL)] == ["jupyter", "jobs", "spot", "gpu"]
    assert "cluster-autoscaler" not in {r.name for r in migrating.of_type(RELEASE)}  # Karpenter serves pending pods
    # Step 3: without keepNodeGroups the drained groups go (and a pool's minSize is refused again).
    del raw["ml-platform-eks:karpenter"]
    for group in raw["ml-platform-eks:nodeGroups"].values():
        if group is not raw["ml-platform-eks:nodeGroups"]["initial"]:
            group.pop("minSize", None)
    assert [r.name for r in run_stack("dev", raw).of_type(NG)] == ["initial"]
