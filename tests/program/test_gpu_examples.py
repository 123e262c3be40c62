"""The example stacks for distributed training and shared GPUs (examples/stacks/), planned by the real program.

examples/stacks/ rather than stacks/: they need p5 capacity (and a Capacity Block) that a first deploy of the
toolkit should not ask for, so `check --all` and CI leave them out; this module plans and checks them.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from mlplatform.cli import main
from mlplatform.plan import Plan, build_plan
from mlplatform.reports.plan_document import plan_document
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "stacks"
NG = "aws:eks/nodeGroup:NodeGroup"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
RELEASE = "kubernetes:helm.sh/v3:Release"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template"


@cache
def plan(name: str) -> Plan:
    return build_plan(None, str(EXAMPLES / f"Pulumi.{name}.yaml"))


def one_in(p: Plan, type_: str, name: str):
    return next(r for r in p.run.resources if r.type == type_ and r.name == name)


def template_of(p: Plan, group: str):
    (node_group,) = [r for r in p.run.resources if r.type == NG and r.name == group]
    return next(r for r in p.run.resources if r.type == LT and r.parent == node_group.parent)


def test_efa_on_p5_plans_a_placement_group_efa_interfaces_one_subnet_and_the_efa_device_plugin():
    p = plan("training")
    node_group = one_in(p, NG, "train")
    lt = template_of(p, "train")
    interfaces = lt.inputs["networkInterfaces"]
    # AWS's layout (EKS "Manage EFA devices", "Conserving IP address allocation"): the primary interface (card 0,
    # device 0) ENA, then EFA-only on card 0 device 1 and on device 0 of every other card: one ENA, 32 EFA-only.
    placed = [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces]
    assert placed == [(0, 0, "interface"), (0, 1, "efa-only")] + [(card, 0, "efa-only") for card in range(1, 32)]
    assert all(len(i["securityGroups"]) == 2 for i in interfaces)  # the cluster's and the EFA group's
    placement_group = one_in(p, "aws:ec2/placementGroup:PlacementGroup", "training-train")
    assert placement_group.inputs["strategy"] == "cluster"
    assert lt.inputs["placement"]["groupName"] == placement_group.outputs["name"]
    assert len(node_group.inputs["subnetIds"]) == 1
    efa_sg = one_in(p, "aws:ec2/securityGroup:SecurityGroup", "training-train-efa")
    efa_sg_id = f"{efa_sg.outputs['name']}-id"  # the offline engine's id of a created resource
    rules = [
        r.inputs
        for r in p.run.resources
        if r.type == "aws:ec2/securityGroupRule:SecurityGroupRule" and r.name.startswith("training-train-efa-")
    ]
    assert {r["type"] for r in rules} == {"ingress", "egress"} and all(
        r["self"] and r["protocol"] == "-1" for r in rules
    )
    assert interfaces[0]["securityGroups"][1] == efa_sg_id
    efa_plugin = one_in(p, RELEASE, "efa-device-plugin").inputs
    assert efa_plugin["chart"] == "aws-efa-k8s-device-plugin" and efa_plugin["values"]["nodeSelector"] == {
        "mlplatform.io/efa": "true"
    }
    assert "p5.48xlarge" in efa_plugin["values"]["supportedInstanceLabels"]["values"]
    assert node_group.inputs["nodeRepairConfig"] == {"enabled": True}


def test_a_capacity_block_plans_capacity_block_with_its_launch_template_in_the_blocks_az():
    p = plan("training")
    node_group = one_in(p, NG, "train-block")
    assert node_group.inputs["capacityType"] == "CAPACITY_BLOCK"
    assert "instanceTypes" not in node_group.inputs  # the launch template names the type
    assert node_group.inputs["scalingConfig"] == {"minSize": 0, "maxSize": 2, "desiredSize": 0}
    lt = template_of(p, "train-block").inputs
    assert lt["instanceType"] == "p5.48xlarge"
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0a1b2c3d4e5f60718"}
    }
    # A block's instances are placed close together by EC2 and the block is in no placement group of the stack:
    # the EFA group gets none, so launches into the block can succeed (EC2 user guide capacity-blocks-using).
    assert "placement" not in lt
    groups = [r.name for r in p.run.resources if r.type == "aws:ec2/placementGroup:PlacementGroup"]
    assert groups == ["training-train"]
    # The subnet of us-east-1b: the created VPC's second private subnet.
    (subnet,) = node_group.inputs["subnetIds"]
    second = one_in(p, "aws:ec2/subnet:Subnet", "cluster-vpc-private-1")
    assert subnet == f"{second.outputs['name']}-id" and second.inputs["availabilityZone"] == "us-east-1b"
    doc = plan_document(p)
    block = next(g for g in doc["placement"]["gpuCapacity"]["groups"] if g["name"] == "train-block")
    assert block["reservation"]["type"] == "capacity-block" and block["availabilityZone"] == "us-east-1b"
    assert block["placementGroup"] is False
    line = next(line for line in doc["cost"]["lines"] if line.get("name") == "train-block")
    assert "Capacity Block" in json.dumps(line)


def test_the_training_stack_passes_its_checks(capsys):
    assert main(["check", "--config-file", str(EXAMPLES / "Pulumi.training.yaml")]) == 0
    capsys.readouterr()


def test_time_slicing_4_counts_4_gpus_in_the_plan_place_and_scale_from_zero(capsys, tmp_path):
    p = plan("shared-gpus")
    tags = {
        r.inputs["tag"]["key"]: r.inputs["tag"]["value"]
        for r in p.run.resources
        if r.type == "aws:autoscaling/tag:Tag" and r.name.startswith("gpu-asg-")
    }
    assert tags[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "4"
    gpu = next(g for g in plan_document(p)["placement"]["gpuCapacity"]["groups"] if g["name"] == "gpu")
    assert gpu["gpuResources"]["perNode"] == 4 and gpu["scaleFromZero"] == {"nvidia.com/gpu": 4}
    assert p.run.exports["gpuResources"]["gpu"]["perNode"] == 4
    plugin = one_in(p, RELEASE, "nvidia-device-plugin").inputs["values"]
    assert "replicas: 4" in plugin["config"]["map"]["gpu"]
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: four}\nspec:\n  containers:\n  - name: c\n    image: i\n"
        "    resources: {limits: {nvidia.com/gpu: 4, cpu: '1', memory: 1Gi}}\n"
    )
    assert (
        main(["place", "--config-file", str(EXAMPLES / "Pulumi.shared-gpus.yaml"), "-f", str(manifest), "--json"]) == 0
    )
    placed = json.loads(capsys.readouterr().out)
    text = json.dumps(placed)
    assert '"name": "gpu", "schedulable": true' in text.replace("\n", "")


def test_mig_plans_the_gpu_operator_as_mig_manager_on_its_group():
    p = plan("shared-gpus")
    operator = one_in(p, RELEASE, "gpu-operator").inputs
    assert operator["chart"] == "gpu-operator" and operator["namespace"] == "gpu-operator"
    assert operator["createNamespace"] is True and operator["values"]["migManager"] == {"enabled": True}
    mig = one_in(p, NG, "mig").inputs
    assert mig["labels"]["nvidia.com/mig.config"] == "all-1g.10gb"
    assert mig["taints"] == [{"key": "nvidia.com/mig-1g.10gb", "value": "true", "effect": "NO_SCHEDULE"}]
    assert p.run.exports["gpuResources"]["mig"]["resource"] == "nvidia.com/mig-1g.10gb"
    assert p.placement.ok, [str(e) for e in p.placement.errors]


def test_a_single_zone_group_takes_the_subnet_of_its_zone_or_says_which_zones_there_are():
    from mlplatform_program.components.training_network import _pick

    zones, subnets = ["us-east-1a", "us-east-1b"], ["subnet-a", "subnet-b"]
    assert _pick(zones, subnets, None, "train") == ("subnet-a", "us-east-1a")
    assert _pick(zones, subnets, "us-east-1b", "train") == ("subnet-b", "us-east-1b")
    with pytest.raises(ValueError, match="availabilityZone: us-east-1d has no private subnet of this stack"):
        _pick(zones, subnets, "us-east-1d", "train")


def test_a_zone_without_a_subnet_of_the_stack_is_an_input_error_naming_the_setting_not_a_crash(capsys, tmp_path):
    """The program finds it inside an apply (the subnets' zones are outputs); `plan` exits 2 naming the key."""
    import yaml

    from tests.conftest import stack_config

    raw = stack_config("dev")
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "availabilityZone": "us-east-1f"}
    ]
    path = tmp_path / "Pulumi.zone-test.yaml"
    path.write_text(yaml.safe_dump({"config": raw}))
    assert main(["plan", "--config-file", str(path), "--stack", "zone-test"]) == 2
    err = capsys.readouterr().err
    assert "ml-platform-eks:additionalNodeGroups[0].availabilityZone: us-east-1f has no private subnet" in err
    assert "internal error" not in err


def test_karpenter_pools_select_their_placement_group_security_group_zone_and_reservation():
    """Across the two programs: the cluster program makes the placement group and EFA security group and exports
    where single-zone pools launch; kubernetes-layer/ puts them in the EC2NodeClasses and NodePools."""
    from mlplatform.engine import run_stack
    from tests.conftest import stack_config

    raw = stack_config("dev-karpenter")
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2},
        {
            "name": "block",
            "gpu": True,
            "instanceTypes": ["p5.48xlarge"],
            "availabilityZone": "us-east-1b",
            "capacityReservation": {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2},
        },
        {  # an On-Demand Capacity Reservation made in a cluster placement group: its nodes launch into that group
            "name": "odcr",
            "gpu": True,
            "instanceTypes": ["p5.48xlarge"],
            "efa": True,
            "availabilityZone": "us-east-1c",
            "capacityReservation": {
                "id": "cr-0123456789abcdef0",
                "type": "on-demand",
                "instanceCount": 2,
                "placementGroup": "training-pg",
            },
        },
    ]
    cluster, layer = run_stack("dev-karpenter", raw).programs
    groups = [r.name for r in cluster.resources if r.type == "aws:ec2/placementGroup:PlacementGroup"]
    assert groups == ["training-train"]  # none for the block, none for the reservation made in its own group
    where = cluster.exports["karpenterTraining"]
    assert where["train"]["zone"] == "us-east-1a" and where["block"]["zone"] == "us-east-1b"

    def spec(kind: str, name: str) -> dict:
        return next(r.inputs["spec"] for r in layer.resources if r.type.endswith(kind) and r.name == name)

    assert spec("EC2NodeClass", "ec2nodeclass-odcr")["placementGroupSelector"] == {"name": "training-pg"}
    assert "placementGroupSelector" not in spec("EC2NodeClass", "ec2nodeclass-block")
    train = spec("EC2NodeClass", "ec2nodeclass-train")
    assert train["placementGroupSelector"] == {"name": where["train"]["placementGroup"]}
    assert {"id": where["train"]["efaSecurityGroup"]} in train["securityGroupSelectorTerms"]
    zone = {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}
    assert zone in spec("NodePool", "nodepool-train")["template"]["spec"]["requirements"]
    assert spec("EC2NodeClass", "ec2nodeclass-block")["capacityReservationSelectorTerms"] == [
        {"id": "cr-0a1b2c3d4e5f60718"}
    ]
    reserved = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]}
    assert reserved in spec("NodePool", "nodepool-block")["template"]["spec"]["requirements"]


def test_efa_interfaces_efa_keeps_every_interface_efa_one_per_card(capsys, tmp_path):
    import yaml

    raw = yaml.safe_load((EXAMPLES / "Pulumi.training.yaml").read_text())["config"]
    raw["ml-platform-eks:additionalNodeGroups"][0]["efaInterfaces"] = "efa"
    path = tmp_path / "Pulumi.efa-layout.yaml"
    path.write_text(yaml.safe_dump({"config": raw}))
    lt = template_of(build_plan(None, str(path)), "train")
    placed = [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in lt.inputs["networkInterfaces"]]
    assert placed == [(0, 0, "efa")] + [(card, 1, "efa") for card in range(1, 32)]
    # A value that is neither layout: exit 2 naming the setting, the value and the choices.
    raw["ml-platform-eks:additionalNodeGroups"][0]["efaInterfaces"] = "efa-only"
    path.write_text(yaml.safe_dump({"config": raw}))
    assert main(["plan", "--config-file", str(path), "--stack", "efa-layout"]) == 2
    err = capsys.readouterr().err
    assert "additionalNodeGroups[0].efaInterfaces" in err and "efa-only" in err
    assert "efaOnly" in err and "internal error" not in err


def test_a_karpenter_efa_pool_lists_one_ena_and_efa_only_interfaces_in_its_ec2nodeclass():
    """Karpenter v1.14.1 EC2NodeClass `networkInterfaces` (interface / efa-only; a primary `interface` on card 0
    device 0): the same layout as the launch template's, and Karpenter counts the efa-only entries as the node's
    vpc.amazonaws.com/efa."""
    from mlplatform.engine import run_stack
    from tests.conftest import stack_config

    raw = stack_config("dev-karpenter")
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2},
        {"name": "own", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "efaInterfaces": "efa"},
    ]
    _, layer = run_stack("dev-karpenter", raw).programs

    def spec(name: str) -> dict:
        return next(r.inputs["spec"] for r in layer.resources if r.type.endswith("EC2NodeClass") and r.name == name)

    interfaces = spec("ec2nodeclass-train")["networkInterfaces"]
    placed = [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces]
    assert placed == [(0, 0, "interface"), (0, 1, "efa-only")] + [(card, 0, "efa-only") for card in range(1, 32)]
    assert "networkInterfaces" not in spec("ec2nodeclass-own")  # Karpenter's own all-efa layout
