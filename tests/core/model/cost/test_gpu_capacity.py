"""GPU capacity for training: EFA and placement, capacity reservations, GPU sharing, node health, quotas (core)."""

from __future__ import annotations

import datetime

import pytest

from mlplatform_core.model import eks_versions, instances
from mlplatform_core.model.addons import device_plugin, gpu_agents, node_agents, pod_identity
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.cost.capacity import stack_capacity
from mlplatform_core.model.cost.estimate import estimate
from mlplatform_core.model.layout import autoscaler_tags, build_layout
from mlplatform_core.model.layout.sharing import node_devices
from mlplatform_core.model.ml_settings.gpu_resources import gpu_resources
from mlplatform_core.model.validation import validate_stack
from mlplatform_core.placement.filters import place_spec
from tests.conftest import stack_config

P = "ml-platform-eks:"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template"
BLOCK = {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2}


def config(*extra: dict, stack: str = "dev", **settings) -> dict:
    raw = stack_config(stack)
    if extra:
        raw[P + "additionalNodeGroups"] = list(extra)
    raw.update({P + k: v for k, v in settings.items()})
    return raw


def layout_of(*extra: dict, stack: str = "dev", **settings):
    return build_layout(parse(config(*extra, stack=stack, **settings)), stack)


def problems(*extra: dict, stack: str = "dev", **settings) -> list[str]:
    with pytest.raises(ConfigError) as err:
        validate_stack(config(*extra, stack=stack, **settings), stack)
    return [str(p) for p in err.value.problems]


def group(name: str, types: list[str], **settings) -> dict:
    return {"name": name, "gpu": True, "instanceTypes": types, **settings}


# --- EFA and placement ---------------------------------------------------------------------------------------


def test_efa_gives_p5_every_interface_one_az_and_a_placement_group():
    train = layout_of(group("train", ["p5.48xlarge"], efa=True)).group("train")
    assert train.efa_interfaces == 32 == instances.lookup("p5.48xlarge").network_cards
    assert train.placement_group and train.single_zone and train.availability_zone is None  # the stack's first AZ
    assert train.labels["mlplatform.io/efa"] == "true"
    tags = autoscaler_tags(train, "mlp-dev")
    assert tags[f"{TEMPLATE}/resources/vpc.amazonaws.com/efa"] == "32"
    assert tags[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "8"


def test_placement_group_none_opts_out_and_an_az_can_be_named():
    train = layout_of(
        group("train", ["p4d.24xlarge"], efa=True, placementGroup="none", availabilityZone="us-east-1c")
    ).group("train")
    assert (train.efa_interfaces, train.placement_group, train.availability_zone) == (4, False, "us-east-1c")


def test_a_group_without_efa_advertises_no_efa_even_on_an_efa_type():
    plain = layout_of(group("big", ["g5.8xlarge"])).group("big")
    assert instances.lookup("g5.8xlarge").devices["vpc.amazonaws.com/efa"] == 1
    assert node_devices(plain, instances.lookup("g5.8xlarge"))["vpc.amazonaws.com/efa"] == 0
    assert f"{TEMPLATE}/resources/vpc.amazonaws.com/efa" not in autoscaler_tags(plain, "c")


def test_efa_is_refused_where_it_cannot_work():
    found = problems(
        group("small", ["g5.xlarge"], efa=True),
        {"name": "cpu", "instanceTypes": ["m5.xlarge"], "placementGroup": "none"},
        group("far", ["p5.48xlarge"], efa=True, availabilityZone="eu-west-1a"),
        nodeGroups={**stack_config("dev")[P + "nodeGroups"], "initial": {"efa": True}},
    )
    text = "\n".join(found)
    assert "additionalNodeGroups[0].instanceTypes[0]: 'g5.xlarge' has no EFA" in text and "p5.48xlarge" in text
    assert "additionalNodeGroups[1].placementGroup: none: only opts out" in text
    assert "additionalNodeGroups[2].availabilityZone: 'eu-west-1a' is not an Availability Zone of us-east-1" in text
    assert "nodeGroups.initial.efa: true: the initial group runs core services in every AZ" in text


def test_efa_types_with_different_network_cards_cannot_share_a_launch_template():
    found = problems(group("mixed", ["p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge"], efa=True))
    assert any("EFA interfaces per node differ" in p for p in found)


# --- capacity reservations -----------------------------------------------------------------------------------


def test_an_efa_capacity_block_group_gets_no_placement_group_of_its_own():
    # EC2 places a Capacity Block's instances close together itself, and the block is in no group the stack makes
    # (EC2 user guide capacity-blocks-using): a new placement group would not hold the block's capacity.
    g = layout_of(
        group("block", ["p5.48xlarge"], efa=True, availabilityZone="us-east-1b", capacityReservation=BLOCK)
    ).group("block")
    assert (g.efa_interfaces, g.placement_group, g.single_zone, g.capacity_type) == (32, False, True, "CAPACITY_BLOCK")


def test_a_reservation_inside_a_placement_group_the_stack_creates_is_refused_naming_both_settings():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2}
    found = problems(
        group("odcr", ["p5.48xlarge"], efa=True, availabilityZone="us-east-1a", capacityReservation=odcr),
        group(
            "pinned",
            ["p5.48xlarge"],
            availabilityZone="us-east-1a",
            placementGroup="cluster",
            capacityReservation=BLOCK,
        ),
    )
    text = "\n".join(found)
    assert (
        "additionalNodeGroups[0].placementGroup: cluster (implied by efa: true), but capacityReservation "
        "cr-0123456789abcdef0 (on-demand) cannot be used from a placement group this stack creates" in text
    )
    assert "placementGroup: none" in text
    assert (
        "additionalNodeGroups[1].placementGroup: cluster, but capacityReservation cr-0a1b2c3d4e5f60718 is a "
        "Capacity Block" in text
    )


def test_an_on_demand_reservation_with_placement_group_none_plans():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2}
    g = layout_of(
        group(
            "odcr",
            ["p5.48xlarge"],
            efa=True,
            placementGroup="none",
            availabilityZone="us-east-1a",
            capacityReservation=odcr,
        )
    ).group("odcr")
    assert (g.placement_group, g.efa_interfaces, g.capacity_type) == (False, 32, "ON_DEMAND")


def test_a_capacity_block_group_is_capacity_block_sized_to_the_block_and_scales_to_zero():
    block = layout_of(group("block", ["p5.48xlarge"], availabilityZone="us-east-1b", capacityReservation=BLOCK))
    g = block.group("block")
    assert (g.capacity_type, g.min_size, g.max_size, g.desired_size) == ("CAPACITY_BLOCK", 0, 2, 0)
    assert g.reservation.capacity_block and g.single_zone and g.availability_zone == "us-east-1b"
    assert autoscaler_tags(g, "c")[f"{TEMPLATE}/label/eks.amazonaws.com/capacityType"] == "CAPACITY_BLOCK"


def test_reservations_are_refused_where_they_cannot_launch():
    past = (eks_versions.today() - datetime.timedelta(days=1)).isoformat()
    found = problems(
        group("noaz", ["p5.48xlarge"], capacityReservation=BLOCK),
        group("twotypes", ["p5.48xlarge", "p5e.48xlarge"], availabilityZone="us-east-1a", capacityReservation=BLOCK),
        group("minsize", ["p5.48xlarge"], availabilityZone="us-east-1a", minSize=1, capacityReservation=BLOCK),
        group("toomany", ["p5.48xlarge"], availabilityZone="us-east-1a", maxSize=3, capacityReservation=BLOCK),
        group("ended", ["p5.48xlarge"], availabilityZone="us-east-1a", capacityReservation={**BLOCK, "endDate": past}),
        group("onspot", ["p5.48xlarge"], availabilityZone="us-east-1a", capacityType="SPOT", capacityReservation=BLOCK),
        group("noblock", ["p5.48xlarge"], capacityType="CAPACITY_BLOCK"),
    )
    text = "\n".join(found)
    assert "additionalNodeGroups[0].availabilityZone: missing: capacityReservation cr-0a1b2c3d4e5f60718" in text
    assert "additionalNodeGroups[1].instanceTypes: " in text and "is for one instance type" in text
    assert "additionalNodeGroups[2].minSize: 1: a Capacity Block group scales to zero" in text
    assert "additionalNodeGroups[3].maxSize: 3 is more than the 2 instances" in text
    assert f"additionalNodeGroups[4].capacityReservation.endDate: {past} is past" in text
    assert "additionalNodeGroups[5].capacityType: 'SPOT', but a capacityReservation of type capacity-block" in text
    assert "additionalNodeGroups[6].capacityType: CAPACITY_BLOCK needs capacityReservation" in text


def test_reserved_capacity_is_paid_whether_used_or_not():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 3, "endDate": "2030-01-01"}
    lay = layout_of(
        group("odcr", ["p4d.24xlarge"], availabilityZone="us-east-1a", capacityReservation=odcr),
        group("block", ["p5.48xlarge"], availabilityZone="us-east-1b", capacityReservation=BLOCK),
    )
    cost = estimate(parse(config()), lay, capacity=stack_capacity(lay))
    lines = {line.name: line for line in cost.groups}
    assert tuple(lines["odcr"].quantity) == (3, 3, 3)  # all three at the idle floor too
    assert lines["odcr"].price.known and "whether they run or not" in lines["odcr"].note
    assert "ending 2030-01-01" in lines["odcr"].note
    assert tuple(lines["block"].quantity) == (2, 2, 2) and not lines["block"].price.known
    assert "Capacity Block" in lines["block"].price.reason and "scales to zero outside it" in lines["block"].note
    assert any("block" in u for u in cost.idle_floor.unknown)  # the idle floor is a lower bound, and says why


@pytest.mark.parametrize(
    "written", ["2030-01-15T11:30:00Z", datetime.datetime(2030, 1, 15, 11, 30, tzinfo=datetime.UTC)]
)
def test_a_reservation_may_end_at_a_moment_as_the_reference_says(written):
    """Capacity Blocks end at 11:30 UTC: endDate takes "a date or a moment" (quoted text, or YAML's timestamp)."""
    block = {**BLOCK, "endDate": written}
    lay = layout_of(group("block", ["p5.48xlarge"], availabilityZone="us-east-1b", capacityReservation=block))
    assert lay.group("block").reservation.end == "2030-01-15T11:30:00+00:00"


def test_a_capacity_block_of_a_type_without_accelerators_is_refused():
    """Capacity Blocks for ML sell GPU and Trainium instances only; an ODCR serves any type."""
    cpu = {"name": "cpu", "instanceTypes": ["m5.xlarge"], "availabilityZone": "us-east-1a"}
    (found,) = problems({**cpu, "capacityReservation": BLOCK})
    assert "additionalNodeGroups[0].instanceTypes: m5.xlarge: capacity-block" in found and "on-demand" in found
    odcr = {**BLOCK, "type": "on-demand"}
    assert layout_of({**cpu, "capacityReservation": odcr}).group("cpu").reservation.type == "on-demand"


# --- GPU sharing ---------------------------------------------------------------------------------------------


def test_time_slicing_4_on_a_one_gpu_type_counts_4_gpus_in_placement_and_scale_from_zero():
    raw = config()
    raw[P + "nodeGroups"]["gpu"]["gpuSharing"] = {"timeSlicing": {"replicas": 4}}
    lay = build_layout(parse(raw), "dev")
    gpu = lay.group("gpu")
    assert instances.lookup("g5.xlarge").gpus == 1
    assert autoscaler_tags(gpu, "mlp-dev")[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "4"
    assert gpu.labels["nvidia.com/device-plugin.config"] == "gpu"
    pod = {
        "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 4}}}],
    }
    assert place_spec(pod, lay).group("gpu").schedulable
    pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 5
    assert not place_spec(pod, lay).group("gpu").schedulable
    configs = device_plugin.device_plugin_values(lay)["config"]
    assert configs["default"] == "default" and "replicas: 4" in configs["map"]["gpu"]
    assert "migStrategy: none" in configs["map"]["default"]
    assert gpu_resources(lay)["gpu"] == {
        "resource": "nvidia.com/gpu",
        "perNode": 4,
        "sharing": "time-slicing",
        "mlrun": "fn.with_limits(gpus=1, gpu_type='nvidia.com/gpu')",
    }


def test_mixed_mig_advertises_the_profile_taints_with_it_and_installs_the_mig_manager_there_only():
    mig = {"mig": {"strategy": "mixed", "profile": "1g.10gb"}}
    lay = layout_of(group("mig", ["p5.48xlarge"], gpuSharing=mig))
    g = lay.group("mig")
    assert g.labels["nvidia.com/mig.config"] == "all-1g.10gb"
    assert [t.key for t in g.taints] == ["nvidia.com/mig-1g.10gb"]
    tags = autoscaler_tags(g, "c")
    assert (
        tags[f"{TEMPLATE}/resources/nvidia.com/mig-1g.10gb"] == "56"
        and tags[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "0"
    )
    # The other GPU group keeps the GPU operator off; the operator's MIG manager runs on the MIG group only.
    assert lay.group("gpu").labels["nvidia.com/gpu.deploy.operands"] == "false"
    agents = {a.name: a for a in node_agents.node_agents(lay)}
    assert agents["nvidia-mig-manager"].groups == ("mig",)
    values = gpu_agents.gpu_operator_values(lay)
    assert values["migManager"] == {"enabled": True} and values["devicePlugin"] == {"enabled": False}
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}
    plugin = device_plugin.device_plugin_values(lay)
    assert "migStrategy: mixed" in plugin["config"]["map"]["mig"]
    # Our plugin steps aside while the MIG manager repartitions (its paused-for-mig-change label).
    terms = plugin["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert all(device_plugin.PAUSED_FOR_MIG in t["matchExpressions"] for t in terms)
    pod = {"containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/mig-1g.10gb": 1}}}]}
    assert place_spec(pod, lay).reachable == ("mig",)


def test_single_mig_advertises_the_devices_as_gpus():
    lay = layout_of(group("mig", ["p4d.24xlarge"], gpuSharing={"mig": {"profile": "1g.5gb"}}))
    assert autoscaler_tags(lay.group("mig"), "c")[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "56"  # 8 GPUs x 7


def test_sharing_is_refused_where_it_cannot_work():
    found = problems(
        group("a10g", ["g5.xlarge"], gpuSharing={"mig": {"profile": "1g.5gb"}}),
        group("h100", ["p5.48xlarge"], gpuSharing={"mig": {"profile": "1g.5gb"}}),
        group("br", ["g5.xlarge"], amiType="BOTTLEROCKET_x86_64_NVIDIA", gpuSharing={"timeSlicing": {"replicas": 2}}),
        {"name": "cpu", "instanceTypes": ["m5.xlarge"], "gpuSharing": {"timeSlicing": {"replicas": 2}}},
        group("both", ["g5.xlarge"], gpuSharing={"timeSlicing": {"replicas": 2}, "mig": {"profile": "1g.5gb"}}),
    )
    text = "\n".join(found)
    assert "additionalNodeGroups[0].instanceTypes[0]: 'g5.xlarge': its GPU (a10g) has no MIG" in text
    assert (
        "additionalNodeGroups[1].gpuSharing.mig.profile: '1g.5gb' is not a MIG profile of p5.48xlarge's H100-80GB"
        in text
    )
    assert "1g.10gb" in text  # the valid profiles are named
    assert "additionalNodeGroups[2].gpuSharing: cannot be applied on BOTTLEROCKET_x86_64_NVIDIA" in text
    assert "additionalNodeGroups[3].gpuSharing: is set on a group without GPUs" in text
    assert "additionalNodeGroups[4].gpuSharing: set exactly one of timeSlicing" in text


# --- node health, Pod Identity, GPU metrics ---------------------------------------------------------------


def test_node_repair_is_on_by_default_and_a_stack_or_group_can_opt_out():
    lay = layout_of(group("keep", ["g5.xlarge"], nodeRepair=False))
    assert lay.group("jobs").node_repair and not lay.group("keep").node_repair
    assert "eks-node-monitoring-agent" in {a.name for a in node_agents.node_agents(lay)}
    off = layout_of(nodeRepair=False)
    assert not any(g.node_repair for g in off.groups)
    assert "eks-node-monitoring-agent" not in {a.name for a in node_agents.node_agents(off)}


def test_the_pod_identity_trust_is_scoped_to_one_service_account_of_the_cluster():
    (stmt,) = pod_identity.trust_policy("mlp-dev", "kube-system", "cluster-autoscaler")["Statement"]
    assert stmt["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert stmt["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    assert stmt["Condition"]["StringEquals"]["aws:RequestTag/eks-cluster-name"] == "mlp-dev"


def test_gpu_metrics_puts_the_dcgm_exporter_on_every_gpu_group():
    lay = layout_of(group("more", ["g6.xlarge"]), gpuMetrics=True)
    daemons = gpu_agents.daemonset_groups(lay)
    assert set(daemons["dcgm-exporter"][0]) == {"gpu", "more"}
    assert gpu_agents.dcgm_exporter_values(lay, True)["serviceMonitor"] == {"enabled": False}
    assert "dcgm-exporter" not in gpu_agents.daemonset_groups(layout_of())


# --- EKS service quotas --------------------------------------------------------------------------------------


def test_31_managed_node_groups_are_refused_naming_the_quota():
    extra = [{"name": f"extra-{i}", "instanceTypes": ["m5.xlarge"]} for i in range(26)]  # dev has 5 groups
    found = problems(*extra)
    assert found == [
        f'{P}additionalNodeGroups: 31 managed node groups, over the EKS service quota "Managed node groups per '
        'cluster" (the AWS default 30); ask AWS to raise it (Service Quotas console, Amazon Elastic Kubernetes '
        "Service) and record the raised value as quotas.managedNodeGroupsPerCluster: 31 or more"
    ]
    assert layout_of(*extra, quotas={"managedNodeGroupsPerCluster": 31}).groups[-1].name == "extra-25"


def test_nodes_per_managed_node_group_and_karpenter_pools_do_not_count():
    found = problems(group("huge", ["g5.xlarge"], maxSize=451))
    assert any("additionalNodeGroups[0].maxSize: 451 nodes in group huge" in p for p in found)
    assert layout_of(group("huge", ["g5.xlarge"], maxSize=451), quotas={"nodesPerManagedNodeGroup": 500})
    # With Karpenter only the initial group is a managed node group: a 600-node pool meets no EKS quota.
    raw = stack_config("dev-karpenter")
    raw[P + "nodeGroups"]["jobs"]["maxSize"] = 600
    assert build_layout(parse(raw), "dev-karpenter").group("jobs").max_size == 600


def test_quota_values_must_be_counts():
    found = problems(quotas={"managedNodeGroupsPerCluster": True, "podIdentityAssociations": 5})
    assert any("quotas.managedNodeGroupsPerCluster" in p and "boolean" in p for p in found)
    assert any("quotas.podIdentityAssociations: unknown setting" in p for p in found)


def test_an_on_demand_reservation_made_in_a_placement_group_launches_into_that_group_by_name():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2, "placementGroup": "training-pg"}
    g = layout_of(
        group("odcr", ["p5.48xlarge"], efa=True, availabilityZone="us-east-1a", capacityReservation=odcr)
    ).group("odcr")
    assert g.placement_group and g.reservation.placement_group == "training-pg"
    found = problems(
        group(
            "block",
            ["p5.48xlarge"],
            availabilityZone="us-east-1a",
            capacityReservation={**BLOCK, "placementGroup": "pg"},
        ),
        group(
            "none",
            ["p5.48xlarge"],
            efa=True,
            placementGroup="none",
            availabilityZone="us-east-1a",
            capacityReservation=odcr,
        ),
    )
    text = "\n".join(found)
    assert (
        "additionalNodeGroups[0].capacityReservation.placementGroup: 'pg': a Capacity Block is in no placement" in text
    )
    assert "additionalNodeGroups[1].placementGroup: none, but capacityReservation.placementGroup says" in text
