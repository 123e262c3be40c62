"""The real program on the EKS Auto Mode example stack, under mocks: what each layer registers, and what it leaves
to AWS."""

from __future__ import annotations

import json
from functools import cache

from mlplatform.engine import run_stack
from mlplatform_core.model.addons import ebs_csi
from mlplatform_core.model.automode import manifests as node_classes
from mlplatform_core.model.config import parse
from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config
from tests.runs import shipped_run

STACK = "dev-automode"
NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
ADDON = "aws:eks/addon:Addon"
RELEASE = "kubernetes:helm.sh/v3:Release"
STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
ACCESS_ENTRY = "aws:eks/accessEntry:AccessEntry"


@cache
def managed_initial_run():
    """dev-automode with autoMode.initialGroup: managedNodeGroup."""
    raw = stack_config(STACK)
    raw["ml-platform-eks:autoMode"] = {**raw["ml-platform-eks:autoMode"], "initialGroup": "managedNodeGroup"}
    return run_stack(STACK, raw)


def test_no_node_group_autoscaler_device_plugin_or_node_add_on():
    run = shipped_run(STACK)
    assert not run.of_type("aws:eks/nodeGroup:NodeGroup") and run.exports["nodeGroups"] == {}
    assert not run.of_type(RELEASE)  # no Cluster Autoscaler, Karpenter or NVIDIA device plugin chart
    assert not run.of_type(ADDON)  # no VPC CNI, kube-proxy, CoreDNS or EBS CSI add-on
    assert "autoscalerRoleArn" not in run.exports
    # No managed node group: no node role for one either (a role EC2 assumes), only Auto Mode's.
    node_roles = [
        r.name
        for r in run.of_type("aws:iam/role:Role")
        if not r.created_by and "ec2.amazonaws.com" in r.inputs["assumeRolePolicy"]
    ]
    assert node_roles == ["cluster-auto-node"]


def test_node_pools_and_node_classes_are_the_layouts():
    run = shipped_run(STACK)
    layout = build_layout(parse(stack_config(STACK)), STACK)
    pools = {r.inputs["metadata"]["name"]: r for r in run.of_type(NODE_POOL)}
    classes = {r.inputs["metadata"]["name"]: r for r in run.of_type(NODE_CLASS)}
    role = run.exports["autoModeNodeRoleName"]
    assert run.exports["nodePools"] == list(pools) == list(classes) == ["jupyter", "jobs", "spot", "gpu"]
    for pool in layout.node_pools:
        assert pools[pool.name].inputs["spec"] == manifests.node_pool_spec(pool)
        spec = classes[pool.name].inputs["spec"]
        assert spec == node_classes.node_class_spec(pool, role, layout.cluster_name, spec["tags"])
        assert spec["tags"]["mlplatform.io/environment"] == "dev"


def test_node_classes_find_the_private_subnets_and_the_cluster_security_group_by_the_discovery_tag():
    run = shipped_run(STACK)
    tagged = {r.name for r in run.of_type("aws:ec2/subnet:Subnet") if "karpenter.sh/discovery" in r.inputs["tags"]}
    assert tagged == {"cluster-vpc-private-0", "cluster-vpc-private-1", "cluster-vpc-private-2"}
    (sg_tag,) = run.of_type("aws:ec2/tag:Tag")
    assert sg_tag.inputs["key"] == "karpenter.sh/discovery" and sg_tag.inputs["value"] == "mlp-dev-automode"


def test_the_default_storage_class_is_auto_modes_encrypted_gp3():
    (sc,) = shipped_run(STACK).of_type(STORAGE_CLASS)
    assert sc.inputs["provisioner"] == "ebs.csi.eks.amazonaws.com"
    assert sc.inputs["parameters"]["encrypted"] == "true" and sc.inputs["parameters"]["type"] == "gp3"
    assert sc.inputs["metadata"]["annotations"][ebs_csi.DEFAULT_CLASS_ANNOTATION] == "true"


def test_a_managed_initial_group_keeps_its_add_ons_and_the_stack_makes_the_node_roles_entry():
    run = managed_initial_run()
    assert [r.name for r in run.of_type("aws:eks/nodeGroup:NodeGroup")] == ["initial"]
    eks = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    assert eks.inputs["computeConfig"] == {"enabled": True, "nodePools": []}  # no built-in pool, no role
    addons = {r.inputs["addonName"] for r in run.of_type(ADDON)}
    # The managed group keeps the node add-ons, and the node monitoring agent for its node repair.
    assert addons == {"kube-proxy", "vpc-cni", "coredns", "aws-ebs-csi-driver", "eks-node-monitoring-agent"}
    (entry,) = run.of_type(ACCESS_ENTRY)
    assert entry.inputs["type"] == "EC2"
    assert entry.inputs["principalArn"] == run.one("aws:iam/role:Role", "cluster-auto-node").outputs["arn"]
    (assoc,) = run.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert assoc.inputs["policyArn"].endswith("/AmazonEKSAutoNodePolicy")
    assert assoc.inputs["accessScope"] == {"type": "cluster"}
    classes = {r.inputs["metadata"]["name"]: r.inputs for r in run.of_type(STORAGE_CLASS)}
    assert classes["gp3-encrypted"]["provisioner"] == "ebs.csi.eks.amazonaws.com"
    assert classes["gp3-encrypted-ebs-csi"]["provisioner"] == "ebs.csi.aws.com"
    assert classes["gp3-encrypted-ebs-csi"]["metadata"]["annotations"][ebs_csi.DEFAULT_CLASS_ANNOTATION] == "false"
    coredns = next(r for r in run.of_type(ADDON) if r.inputs["addonName"] == "coredns")
    assert json.loads(coredns.inputs["configurationValues"])["nodeSelector"] == {"mlplatform.io/node-role": "initial"}


@cache
def migrating_from_karpenter_run():
    raw = stack_config(STACK)
    raw["ml-platform-eks:karpenter"] = stack_config("dev-karpenter")["ml-platform-eks:karpenter"]
    raw["ml-platform-eks:autoMode"] = {
        **raw["ml-platform-eks:autoMode"],
        "keepKarpenter": True,
        "nodePoolSuffix": "-auto",
        "initialGroup": "managedNodeGroup",
    }
    raw["ml-platform-eks:nodeGroups"]["initial"] = {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    return run_stack(STACK, raw)


def test_moving_off_karpenter_keeps_it_next_to_auto_mode_and_one_owner_of_the_discovery_tags():
    run = migrating_from_karpenter_run()
    pools = {(r.parent.rsplit("::", 1)[-1], r.inputs["metadata"]["name"]) for r in run.of_type(NODE_POOL)}
    assert pools == {("karpenter-pools", n) for n in ("jupyter", "jobs", "spot", "gpu")} | {
        ("auto-mode-pools", f"{n}-auto") for n in ("jupyter", "jobs", "spot", "gpu")
    }
    assert {r.inputs["metadata"]["name"] for r in run.of_type(NODE_CLASS)} == {
        "jupyter-auto",
        "jobs-auto",
        "spot-auto",
        "gpu-auto",
    }
    assert {r.name for r in run.of_type(RELEASE)} == {"karpenter-crd", "karpenter", "nvidia-device-plugin"}
    # Karpenter's discovery tags serve both; Auto Mode's take them over (an alias: moved, not re-created and
    # then deleted, which would drop the tag from AWS) once Karpenter is gone.
    assert [r.name for r in run.of_type("aws:ec2/tag:Tag")] == ["karpenter-discovery-sg"]
    (tag,) = shipped_run(STACK).of_type("aws:ec2/tag:Tag")
    karpenter = "urn:pulumi:dev-automode::ml-platform-eks::mlplatform:karpenter:KarpenterInfrastructure::karpenter"
    assert tag.aliases == [{"name": "karpenter-discovery-sg", "parentUrn": karpenter}]
    assert run.exports["karpenterNodePools"] == ["jupyter", "jobs", "spot", "gpu"]


def test_training_pools_get_their_zone_efa_security_group_and_reservation_and_no_placement_group():
    """The gpu settings under Auto Mode, across the two programs: the cluster program makes the EFA security group
    (no placement group: efa alone implies none on Auto Mode) and exports where single-zone pools launch;
    kubernetes-layer/ puts them in the NodeClasses and NodePools. No EFA device plugin: Auto Mode's image runs its
    own."""
    raw = stack_config(STACK)
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2},
        {
            "name": "block",
            "gpu": True,
            "instanceTypes": ["p5.48xlarge"],
            "availabilityZone": "us-east-1b",
            "capacityReservation": {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2},
        },
    ]
    cluster, layer = run_stack(STACK, raw).programs
    assert not cluster.of_type("aws:ec2/placementGroup:PlacementGroup")
    where = cluster.exports["autoModeTraining"]
    assert where["train"]["zone"] == "us-east-1a" and where["block"]["zone"] == "us-east-1b"
    assert where["train"]["efaSecurityGroup"] and where["train"]["placementGroup"] is None

    def spec(kind: str, name: str) -> dict:
        return next(r.inputs["spec"] for r in layer.resources if r.type.endswith(kind) and r.name == name)

    train = spec("NodeClass", "nodeclass-train")
    assert {"id": where["train"]["efaSecurityGroup"]} in train["securityGroupSelectorTerms"]
    assert "placementGroupSelector" not in train
    zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}
    assert zone in spec("NodePool", "nodepool-train")["template"]["spec"]["requirements"]
    assert spec("NodeClass", "nodeclass-block")["capacityReservationSelectorTerms"] == [{"id": "cr-0a1b2c3d4e5f60718"}]
    reserved = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}
    assert reserved in spec("NodePool", "nodepool-block")["template"]["spec"]["requirements"]
    assert not [r for r in layer.of_type(RELEASE) if "efa" in r.name]


def test_pod_identity_and_node_repair_need_no_agent_add_on_on_auto_mode():
    raw = stack_config(STACK)
    raw["ml-platform-eks:podIdentity"] = True
    run = run_stack(STACK, raw)
    assert parse(raw).node_repair  # on by default
    assert not run.of_type(ADDON)  # Auto Mode runs the Pod Identity agent and the node monitoring itself


def test_an_auto_mode_pool_with_placement_group_cluster_gets_the_group_the_cluster_program_creates():
    """The current EKS "Manage EFA devices" page: a NodeClass selects a placement group (placementGroupSelector);
    as on node groups the stack creates the cluster placement group, or selects a reservation's by name."""
    raw = stack_config(STACK)
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "placementGroup": "cluster"},
        {
            "name": "odcr",
            "gpu": True,
            "instanceTypes": ["p5.48xlarge"],
            "availabilityZone": "us-east-1c",
            "capacityReservation": {
                "id": "cr-0123456789abcdef0",
                "type": "on-demand",
                "instanceCount": 2,
                "placementGroup": "training-pg",
            },
        },
    ]
    cluster, layer = run_stack(STACK, raw).programs
    (pg,) = cluster.of_type("aws:ec2/placementGroup:PlacementGroup")
    assert pg.inputs["strategy"] == "cluster"
    where = cluster.exports["autoModeTraining"]
    assert where["train"]["placementGroup"] == pg.outputs["name"]

    def spec(name: str) -> dict:
        return next(r.inputs["spec"] for r in layer.resources if r.type.endswith("NodeClass") and r.name == name)

    assert spec("nodeclass-train")["placementGroupSelector"] == {"name": pg.outputs["name"]}
    assert spec("nodeclass-odcr")["placementGroupSelector"] == {"name": "training-pg"}
