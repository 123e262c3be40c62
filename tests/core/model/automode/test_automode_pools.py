"""provisioner: autoMode: the layout's groups as EKS Auto Mode NodePools (the Karpenter pool model with Auto Mode's
labels and NodeClass), the built-in pools in the layout, and what Auto Mode owns refused by key."""

from __future__ import annotations

import pytest

from mlplatform_core.model import instances
from mlplatform_core.model.automode import builtin, manifests
from mlplatform_core.model.automode import cluster as auto_mode
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.karpenter import manifests as pool_manifests
from mlplatform_core.model.layout import INITIAL, build_layout
from mlplatform_core.model.scheduling import CRITICAL_ADDONS_TAINT, DEVICE_PLUGIN_LABEL
from tests.conftest import stack_config

P = "ml-platform-eks:"
STACK = "dev-automode"


def config(stack: str = STACK, **overrides) -> dict:
    raw = stack_config(stack)
    raw.update({f"{P}{k}": v for k, v in overrides.items()})
    return raw


def layout_of(**overrides):
    return build_layout(parse(config(**overrides)), STACK)


def problems(raw: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as exc:
        build_layout(parse(raw), STACK)
    return {p.path: p.message for p in exc.value.problems}


def auto_mode_settings(**settings) -> dict:
    return {**stack_config(STACK)[f"{P}autoMode"], **settings}


def test_every_group_but_the_initial_one_is_an_auto_mode_pool_with_its_node_class():
    layout = layout_of()
    assert layout.provisioner == "autoMode" and layout.managed_groups == ()
    assert [p.name for p in layout.node_pools] == ["jupyter", "jobs", "spot", "gpu"]
    for pool in layout.node_pools:
        spec = pool_manifests.node_pool_spec(pool)
        assert spec["template"]["spec"]["nodeClassRef"] == {
            "group": "eks.amazonaws.com",
            "kind": "NodeClass",
            "name": pool.name,
        }
        assert layout.group(pool.name).auto_mode and layout.group(pool.name).karpenter


def test_auto_mode_pools_are_the_karpenter_pools_of_the_same_layout_in_auto_modes_vocabulary():
    # The same groups on Karpenter: labels, taints, capacity, limits, disruption and weights are the same fields.
    raw = config()
    karpenter_raw = {k: v for k, v in raw.items() if k != f"{P}autoMode"}
    karpenter_raw.update(
        {f"{P}provisioner": "karpenter", f"{P}karpenter": {"nodePools": raw[f"{P}autoMode"]["nodePools"]}}
    )
    karpenter_raw[f"{P}nodeGroups"] = {
        **raw[f"{P}nodeGroups"],
        "initial": {"minSize": 2, "maxSize": 2, "desiredSize": 2},
    }
    ours = {p.name: p for p in build_layout(parse(raw), STACK).node_pools}
    theirs = {p.name: p for p in build_layout(parse(karpenter_raw), STACK).node_pools}
    assert ours.keys() == theirs.keys()
    for name, pool in ours.items():
        other = theirs[name]
        # Auto Mode's nodes bring the NVIDIA device plugin: no marker for the toolkit's DaemonSet.
        assert dict(pool.labels) == {k: v for k, v in other.labels.items() if k != DEVICE_PLUGIN_LABEL}
        assert DEVICE_PLUGIN_LABEL not in pool.labels
        same = ("taints", "capacity_type", "limits", "consolidation_policy", "consolidate_after", "budgets", "weight")
        for field in same:
            assert getattr(pool, field) == getattr(other, field), (name, field)
        assert pool.instance_types == other.instance_types
        # Requirements: Auto Mode's eks.amazonaws.com labels, and no kubernetes.io/os (it does not support it).
        translated = [
            str(r).replace("karpenter.k8s.aws/", "eks.amazonaws.com/")
            for r in other.requirements
            if r.key != "kubernetes.io/os"
        ]
        assert [str(r) for r in pool.requirements] == translated
    assert "eks.amazonaws.com/instance-gpu-manufacturer In [nvidia]" in map(str, ours["gpu"].requirements)


def test_nodes_expire_at_auto_modes_default_and_never_past_its_21_days():
    assert {p.expire_after for p in layout_of().node_pools} == {"336h"}
    ok = auto_mode_settings(nodePools={"jobs": {"expireAfter": "480h"}})
    assert {p.name: p.expire_after for p in layout_of(autoMode=ok).node_pools}["jobs"] == "480h"
    for value in ("481h", "504h", "Never"):
        found = problems(config(autoMode=auto_mode_settings(nodePools={"jobs": {"expireAfter": value}})))
        message = found["ml-platform-eks:autoMode.nodePools.jobs.expireAfter"]
        assert "480h" in message and "21 days" in message


def test_the_system_pool_takes_the_initial_groups_place():
    layout = layout_of()
    system = layout.group("system")
    assert system.is_initial and system.builtin and system.auto_mode
    assert dict(system.labels) == {}  # AWS owns its template: none of the toolkit's labels
    assert system.taints == (builtin.SYSTEM_TAINT,) and system.taints[0].key == CRITICAL_ADDONS_TAINT.key
    assert INITIAL not in layout.names
    assert auto_mode.builtin_node_pools(parse(config())) == ["system"]
    assert auto_mode.eks_creates_node_access_entry(parse(config()))


def test_the_initial_group_can_stay_a_managed_node_group():
    settings = auto_mode_settings(initialGroup="managedNodeGroup")
    layout = layout_of(autoMode=settings)
    assert [g.name for g in layout.managed_groups] == [INITIAL]
    assert not layout.group(INITIAL).auto_mode and "system" not in layout.names
    cfg = parse(config(autoMode=settings))
    assert auto_mode.builtin_node_pools(cfg) == []
    assert not auto_mode.eks_creates_node_access_entry(cfg)  # the stack makes the node role's entry itself


def test_the_general_purpose_pool_is_off_unless_asked_for():
    assert "general-purpose" not in layout_of().names
    layout = layout_of(autoMode=auto_mode_settings(generalPurposePool=True))
    gp = layout.group("general-purpose")
    assert gp.builtin and gp.taints == () and not gp.is_initial
    assert auto_mode.builtin_node_pools(parse(config(autoMode=auto_mode_settings(generalPurposePool=True)))) == [
        "system",
        "general-purpose",
    ]


def test_built_in_pools_launch_c_m_r_types_of_generation_5_and_up():
    system = builtin.SYSTEM.instance_types
    general = builtin.GENERAL_PURPOSE.instance_types
    assert "m5.large" in system and "m7g.xlarge" in system and "m7g.xlarge" not in general  # arm64: system only
    for name in system:
        t = instances.lookup(name)
        assert t.family[0] in "cmr" and not t.accelerated and t.vcpu > 1
        assert name.split(".")[1] not in ("nano", "micro", "small")
    assert not [t for t in system if t.startswith(("m4.", "c4.", "r4.", "t3.", "g5."))]


def test_what_auto_mode_owns_is_refused_by_key():
    raw = config(imdsHopLimit=2)
    raw[f"{P}nodeGroups"]["initial"] = {"instanceTypes": ["m5.xlarge"]}
    raw[f"{P}nodeGroups"]["jobs"]["amiType"] = "AL2023_x86_64_STANDARD"
    raw[f"{P}tags"] = {"kubernetes.io/cluster/x": "owned"}
    found = problems(raw)
    assert "system pool takes the initial group's place" in found["ml-platform-eks:nodeGroups.initial"]
    assert "enforces IMDSv2 with a hop limit of 1" in found["ml-platform-eks:imdsHopLimit"]
    assert "picks each node's image" in found["ml-platform-eks:nodeGroups.jobs.amiType"]
    assert "NodeClasses refuse it" in found["ml-platform-eks:tags.kubernetes.io/cluster/x"]


@pytest.mark.parametrize("region", ["mx-central-1", "ap-southeast-7"])
def test_a_region_without_auto_mode_is_refused_naming_the_provisioner(region):
    """EKS user guide, create-auto.adoc: Auto Mode "isn't available in the ap-southeast-7 or mx-central-1" Regions."""
    raw = config()
    raw["aws:region"] = region
    with pytest.raises(ConfigError) as exc:
        parse(raw)
    found = {p.path: p.message for p in exc.value.problems}
    assert f"EKS Auto Mode is not available in {region}" in found["ml-platform-eks:provisioner"]
    parse({**stack_config("dev-karpenter"), "aws:region": region})  # the other provisioners run there


def test_a_node_volume_key_of_another_region_or_partition_is_refused():
    """KMS keys are regional: a key ARN of another region or partition cannot encrypt the nodes' volumes."""
    key = "arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    for region in ("us-east-1", "us-gov-west-1"):
        raw = config(autoMode=auto_mode_settings(ephemeralStorageKmsKey=key))
        raw["aws:region"] = region
        with pytest.raises(ConfigError) as exc:
            parse(raw)
        (problem,) = [p for p in exc.value.problems if p.path.endswith("ephemeralStorageKmsKey")]
        assert f"is a key of us-west-2 (aws), but the stack's nodes are in {region}" in problem.message
    same = config(autoMode=auto_mode_settings(ephemeralStorageKmsKey=key.replace("us-west-2", "us-east-1")))
    assert parse(same).auto_mode.ephemeral_storage_kms_key.startswith("arn:aws:kms:us-east-1")
    assert parse(config(autoMode=auto_mode_settings(ephemeralStorageKmsKey="alias/nodes"))).auto_mode


def test_names_of_built_in_pools_and_the_default_node_class_are_refused():
    raw = config()
    raw[f"{P}additionalNodeGroups"] = [
        {"name": "system", "role": "batch", "instanceTypes": ["m5.xlarge"]},
        {"name": "default", "role": "batch", "instanceTypes": ["m5.xlarge"]},
    ]
    found = problems(raw)
    assert "built-in NodePools" in found["ml-platform-eks:additionalNodeGroups[0].name"]
    assert "default NodeClass" in found["ml-platform-eks:additionalNodeGroups[1].name"]


def test_types_auto_mode_never_launches_are_refused():
    raw = config()
    raw[f"{P}nodeGroups"]["jobs"]["instanceTypes"] = ["m5.2xlarge", "t3.small"]
    found = problems(raw)
    assert "t3.small" in found["ml-platform-eks:nodeGroups.jobs.instanceTypes"]


def test_settings_of_the_other_provisioners_are_refused():
    assert "provisioner is autoMode" in problems(config(karpenter={"replicas": 2}))["ml-platform-eks:karpenter"]
    raw = config(provisioner="nodeGroups")
    found = problems(raw)
    assert "set provisioner: autoMode" in found["ml-platform-eks:autoMode"]


def test_migrating_keeps_every_managed_node_group_the_system_pool_replaces_too():
    raw = config(autoMode=auto_mode_settings(keepNodeGroups=True))
    raw[f"{P}nodeGroups"]["initial"] = {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    raw[f"{P}nodeGroups"]["jobs"]["minSize"] = 1  # still sizes the kept group
    layout = build_layout(parse(raw), STACK)
    assert [g.name for g in layout.managed_groups] == [INITIAL, "jupyter", "jobs", "spot", "gpu"]
    assert not any(g.auto_mode for g in layout.managed_groups)
    assert [p.name for p in layout.node_pools] == ["jupyter", "jobs", "spot", "gpu"]


def test_a_node_class_carries_selectors_role_and_encrypted_storage_and_nothing_auto_mode_owns():
    pool = {p.name: p for p in layout_of().node_pools}["gpu"]
    spec = manifests.node_class_spec(pool, "node-role", "mlp-x", {"team": "ml"})
    assert spec["role"] == "node-role"
    assert (
        spec["subnetSelectorTerms"]
        == spec["securityGroupSelectorTerms"]
        == [{"tags": {"karpenter.sh/discovery": "mlp-x"}}]
    )
    assert spec["ephemeralStorage"] == {"size": "200Gi"}  # the gpu group's diskSizeGib
    assert spec["advancedNetworking"] == {"associatePublicIPAddress": False}
    assert spec["tags"] == {"team": "ml", "mlplatform.io/node-group": "gpu"}
    assert not {"amiSelectorTerms", "metadataOptions", "blockDeviceMappings", "amiFamily"} & spec.keys()
    key = "arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-5e6f-1a2b-3c4d-5e6f1a2b3c4d"
    assert manifests.node_class_spec(pool, "r", "c", {}, key)["ephemeralStorage"]["kmsKeyID"] == key
    obj = manifests.node_class(pool, "r", "c", {})
    assert (obj["apiVersion"], obj["kind"], obj["metadata"]["name"]) == ("eks.amazonaws.com/v1", "NodeClass", "gpu")


def test_a_kms_key_that_is_no_key_is_refused():
    found = problems(config(autoMode=auto_mode_settings(ephemeralStorageKmsKey="my key")))
    assert "ml-platform-eks:autoMode.ephemeralStorageKmsKey" in found


def test_the_node_role_has_auto_modes_two_policies_in_the_regions_partition():
    assert auto_mode.node_role_policy_arns("us-gov-west-1") == {
        "minimal": "arn:aws-us-gov:iam::aws:policy/AmazonEKSWorkerNodeMinimalPolicy",
        "ecr": "arn:aws-us-gov:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
    }
    assoc = auto_mode.node_access_association("us-east-1")
    assert assoc.policy_arn == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
    assert assoc.scope == "cluster"


def migrating_from_karpenter(**auto_mode) -> dict:
    """dev-automode moving off the Karpenter example: its karpenter settings and a managed initial group kept."""
    raw = config(autoMode=auto_mode_settings(**auto_mode))
    raw[f"{P}karpenter"] = stack_config("dev-karpenter")[f"{P}karpenter"]
    raw[f"{P}nodeGroups"]["initial"] = {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    return raw


def test_migrating_from_karpenter_keeps_its_pools_under_their_names_and_names_auto_modes_apart():
    raw = migrating_from_karpenter(keepKarpenter=True, nodePoolSuffix="-auto", initialGroup="managedNodeGroup")
    layout = build_layout(parse(raw), STACK)
    kept = {p.k8s_name: p for p in layout.retained_pools}
    ours = {p.k8s_name: p for p in layout.node_pools}
    assert list(kept) == ["jupyter", "jobs", "spot", "gpu"] and list(ours) == [f"{n}-auto" for n in kept]
    assert {p.node_class_kind for p in kept.values()} == {"EC2NodeClass"}
    assert {p.node_class for p in ours.values()} == set(ours)  # each pool its own NodeClass, the same name
    assert layout.group("jobs").node_pool == "jobs-auto"  # the karpenter.sh/nodepool label of its nodes
    assert pool_manifests.node_pool(ours["jobs-auto"])["metadata"]["name"] == "jobs-auto"
    # Same labels and taints on both, so pods move from one to the other as nodes drain.
    for name, pool in kept.items():
        assert pool.taints == ours[f"{name}-auto"].taints


def test_auto_mode_installs_only_the_charts_of_what_a_migration_keeps():
    from mlplatform_core.model.addons import proof, releases
    from mlplatform_core.model.karpenter import amis

    assert releases.addons_of(layout_of()) == ()  # Auto Mode runs the autoscaling and the device plugins
    # Moving off Karpenter: its charts stay for its pools (and the device plugin for its GPU pool), pinned and
    # proven as provisioner karpenter's; the kept EC2NodeClasses name the pinned AMI, Auto Mode's NodeClasses none.
    cfg = parse(migrating_from_karpenter(keepKarpenter=True, nodePoolSuffix="-auto", initialGroup="managedNodeGroup"))
    layout = build_layout(cfg, STACK)
    assert releases.addons_of(layout) == ("karpenter-crd", "karpenter", "nvidia-device-plugin")
    assert proof.prove(layout).ok
    assert {p.ami_alias for p in layout.retained_pools} == {f"al2023@{amis.pinned_release(cfg.kubernetes_version)}"}
    assert {p.ami_alias for p in layout.node_pools} == {""}
    assert [w.name for w in proof.chart_workloads(layout) if w.workload["kind"] == "Deployment"] == ["karpenter"]
    # Moving off node groups: the device plugin for the kept GPU group, no autoscaler (Auto Mode serves new pods).
    raw = config(autoMode=auto_mode_settings(keepNodeGroups=True))
    raw[f"{P}nodeGroups"]["initial"] = {"minSize": 2, "maxSize": 2, "desiredSize": 2}
    assert releases.addons_of(build_layout(parse(raw), STACK)) == ("nvidia-device-plugin",)


def test_keeping_karpenter_needs_other_pool_names_and_a_home_for_its_controller():
    found = problems(migrating_from_karpenter(keepKarpenter=True))
    assert "Karpenter's NodePools keep the group names" in found["ml-platform-eks:autoMode.nodePoolSuffix"]
    assert "Karpenter controller runs" in found["ml-platform-eks:autoMode.keepKarpenter"]
    # Without keepKarpenter, the karpenter section is one Auto Mode would ignore.
    raw = migrating_from_karpenter(initialGroup="managedNodeGroup")
    assert "provisioner is autoMode" in problems(raw)["ml-platform-eks:karpenter"]


TRAIN = {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2}


def test_an_efa_pool_keeps_one_zone_and_efa_but_no_placement_group_or_efa_plugin():
    from mlplatform_core.model.addons import gpu_agents, node_agents

    layout = layout_of(additionalNodeGroups=[TRAIN])
    group = layout.group("train")
    assert group.auto_mode and group.efa and group.single_zone and not group.placement_group
    pool = next(p for p in layout.node_pools if p.name == "train")
    assert pool.efa and not pool.placement_group
    # Auto Mode's image runs the EFA device plugin (the chart keeps off compute-type auto nodes).
    assert gpu_agents.efa_groups(layout) == () and gpu_agents.efa_plugin_values(layout) is None
    assert "aws-efa-k8s-device-plugin" not in {a.name for a in node_agents.node_agents(layout)}


def test_an_efa_pool_selects_its_security_group_and_a_reservation_pool_its_reservation():
    block = {
        "name": "block",
        "gpu": True,
        "instanceTypes": ["p5.48xlarge"],
        "availabilityZone": "us-east-1b",
        "capacityReservation": {"id": "cr-0a1b2c3d4e5f60718", "type": "on-demand", "instanceCount": 2},
    }
    layout = layout_of(additionalNodeGroups=[TRAIN, block])
    pools = {p.name: p for p in layout.node_pools}
    train = manifests.node_class_spec(pools["train"], "role", "c", {}, efa_security_group="sg-efa")
    assert {"id": "sg-efa"} in train["securityGroupSelectorTerms"] and "capacityReservationSelectorTerms" not in train
    reserved = manifests.node_class_spec(pools["block"], "role", "c", {})
    assert reserved["capacityReservationSelectorTerms"] == [{"id": "cr-0a1b2c3d4e5f60718"}]
    assert pools["block"].capacity_type == "reserved"


def test_gpu_settings_auto_mode_has_no_place_for_are_refused_naming_why():
    found = problems(
        config(
            additionalNodeGroups=[
                {**TRAIN, "efaInterfaces": "efa"},
                {
                    "name": "shared",
                    "gpu": True,
                    "instanceTypes": ["g5.xlarge"],
                    "gpuSharing": {"timeSlicing": {"replicas": 4}},
                },
                {"name": "fixed", "instanceTypes": ["m5.xlarge"], "nodeRepair": True},
            ],
            nodeRepair=False,
        )
    )
    assert "attaches the EFA interfaces of its nodes itself" in found[P + "additionalNodeGroups[0].efaInterfaces"]
    assert "not configurable" in found[P + "additionalNodeGroups[1].gpuSharing"]
    assert "always checks and repairs" in found[P + "additionalNodeGroups[2].nodeRepair"]
    assert "cannot be turned off" in found[P + "nodeRepair"]


def test_stack_node_repair_off_is_kept_for_a_managed_initial_group():
    layout = layout_of(nodeRepair=False, autoMode=auto_mode_settings(initialGroup="managedNodeGroup"))
    assert not layout.node_repair and [g.name for g in layout.managed_groups] == ["initial"]


def test_an_efa_pool_with_an_on_demand_reservation_plans_on_auto_mode_where_efa_implies_no_placement_group():
    # On managed node groups efa's implied placement group cannot hold an existing reservation (refused there);
    # on Auto Mode efa alone implies none, so nothing is in the way.
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2}
    g = {**TRAIN, "name": "t2", "availabilityZone": "us-east-1a", "capacityReservation": odcr}
    pool = next(p for p in layout_of(additionalNodeGroups=[g]).node_pools if p.name == "t2")
    assert (pool.placement_group, pool.capacity_type) == (False, "reserved")


def test_a_kept_efa_node_group_with_an_on_demand_reservation_is_refused_as_a_node_group_stack_refuses_it():
    """While keepNodeGroups holds, the group is also a managed node group with efa's placement group, which an
    on-demand reservation made elsewhere cannot serve; the Auto Mode pool alone would take it."""
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2}
    group = {**TRAIN, "availabilityZone": "us-east-1a", "capacityReservation": odcr}
    assert layout_of(additionalNodeGroups=[group]).group("train").reservation.id == odcr["id"]
    kept = config(additionalNodeGroups=[group], autoMode=auto_mode_settings(keepNodeGroups=True))
    found = problems(kept)
    assert (
        "cannot be used from a placement group this stack creates"
        in found["ml-platform-eks:additionalNodeGroups[0].placementGroup"]
    )
    group_none = {**group, "placementGroup": "none"}
    ok = build_layout(
        parse(config(additionalNodeGroups=[group_none], autoMode=auto_mode_settings(keepNodeGroups=True))), STACK
    )
    assert not ok.group("train").placement_group


def test_placement_group_cluster_puts_an_auto_mode_pool_in_a_placement_group_its_nodeclass_selects():
    """The current EKS "Manage EFA devices" page: an Auto Mode NodeClass with placementGroupSelector."""
    layout = layout_of(additionalNodeGroups=[{**TRAIN, "placementGroup": "cluster"}])
    pool = next(p for p in layout.node_pools if p.name == "train")
    assert pool.placement_group and layout.group("train").placement_group
    spec = manifests.node_class_spec(pool, "role", "c", {}, efa_security_group="sg-efa", placement_group="pg-name")
    assert spec["placementGroupSelector"] == {"name": "pg-name"}
    # efa alone: no placement group, no selector (as planned before; no node replaced).
    plain = next(p for p in layout_of(additionalNodeGroups=[TRAIN]).node_pools if p.name == "train")
    assert not plain.placement_group
    assert "placementGroupSelector" not in manifests.node_class_spec(plain, "role", "c", {}, placement_group="pg")


def test_an_auto_mode_pool_launches_into_the_placement_group_its_reservation_was_made_in():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2, "placementGroup": "my-cpg"}
    g = {**TRAIN, "name": "t2", "availabilityZone": "us-east-1a", "capacityReservation": odcr}
    pool = next(p for p in layout_of(additionalNodeGroups=[g]).node_pools if p.name == "t2")
    assert (pool.placement_group, pool.capacity_type) == (True, "reserved")


def test_placement_group_cluster_with_an_on_demand_reservation_is_refused_on_auto_mode_as_on_node_groups():
    odcr = {"id": "cr-0123456789abcdef0", "type": "on-demand", "instanceCount": 2}
    g = {**TRAIN, "availabilityZone": "us-east-1a", "capacityReservation": odcr, "placementGroup": "cluster"}
    found = problems(config(additionalNodeGroups=[g]))
    assert (
        "cannot be used from a placement group this stack creates"
        in found[P + "additionalNodeGroups[0].placementGroup"]
    )
