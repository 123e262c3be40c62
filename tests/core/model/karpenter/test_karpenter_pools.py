"""provisioner: karpenter: the layout's groups as NodePoolSpecs, and every Karpenter mistake refused by key."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlplatform_core.model import addon_versions, instances
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.karpenter import capacity, release
from mlplatform_core.model.karpenter import pools as karpenter_pools
from mlplatform_core.model.layout import INITIAL, build_layout
from mlplatform_core.model.scheduling import ACCELERATOR_LABEL, GPU_TAINT, LIFECYCLE_LABEL, ROLE_LABEL, Taint
from tests.conftest import stack_config

P = "ml-platform-eks:"


def karpenter_config(**overrides) -> dict:
    """The shipped Karpenter example stack with some top-level settings replaced."""
    raw = stack_config("dev-karpenter")
    raw.update({f"{P}{k}": v for k, v in overrides.items()})
    return raw


def layout_of(**overrides):
    return build_layout(parse(karpenter_config(**overrides)), "dev-karpenter")


def problems(raw: dict, stack: str = "dev-karpenter") -> dict[str, str]:
    with pytest.raises(ConfigError) as exc:
        build_layout(parse(raw), stack)
    return {p.path: p.message for p in exc.value.problems}


def pools(**overrides):
    return {p.name: p for p in layout_of(**overrides).node_pools}


def test_every_group_but_the_initial_one_becomes_a_pool():
    layout = layout_of()
    assert layout.provisioner == "karpenter"
    assert [p.name for p in layout.node_pools] == ["jupyter", "jobs", "spot", "gpu"]
    assert [g.name for g in layout.managed_groups] == [INITIAL]
    for g in layout.groups:
        assert g.karpenter == (g.name != INITIAL)
        if g.karpenter:  # scale-from-zero is native: no minimum, no desired size to keep
            assert (g.min_size, g.desired_size) == (0, 0)


def test_node_group_stacks_have_no_pools():
    cfg = parse(stack_config("dev"))
    layout = build_layout(cfg, "dev")
    assert layout.provisioner == "nodeGroups" and layout.node_pools == ()
    assert not any(g.karpenter for g in layout.groups)


def test_requirements_come_from_the_group():
    p = pools()
    assert [str(r) for r in p["jobs"].requirements] == [
        "karpenter.sh/capacity-type In [on-demand]",
        "kubernetes.io/arch In [amd64]",
        "kubernetes.io/os In [linux]",
        "node.kubernetes.io/instance-type In [m5.2xlarge, m5.4xlarge]",
    ]
    spot = {r.key: r.values for r in p["spot"].requirements}
    assert spot["karpenter.sh/capacity-type"] == ("spot",)
    assert spot["karpenter.k8s.aws/instance-family"] == ("m5", "m5a", "m6i", "m6a", "m7i")
    assert spot["karpenter.k8s.aws/instance-size"] == ("2xlarge", "4xlarge")
    assert "node.kubernetes.io/instance-type" not in spot
    gpu = {r.key: r.values for r in p["gpu"].requirements}
    assert gpu["karpenter.k8s.aws/instance-gpu-manufacturer"] == ("nvidia",)
    assert gpu["node.kubernetes.io/instance-type"] == ("g5.xlarge", "g5.2xlarge")


def test_family_pools_may_launch_every_catalog_type_of_their_families_and_sizes():
    spot = pools()["spot"]
    expected = sorted(
        t.name
        for t in instances.catalog().values()
        if t.family in {"m5", "m5a", "m6i", "m6a", "m7i"} and t.name.split(".")[1] in {"2xlarge", "4xlarge"}
    )
    assert sorted(spot.instance_types) == expected and len(expected) == 10
    # The group in the layout sees the same types: placement and exported settings follow the pool.
    assert layout_of().group("spot").instance_types == spot.instance_types


def gpu_by_family(*families: str) -> dict:
    raw = karpenter_config(karpenter={"nodePools": {"gpu": {"instanceFamilies": list(families)}}})
    gpu = raw[f"{P}nodeGroups"]["gpu"]
    raw[f"{P}nodeGroups"]["gpu"] = {k: v for k, v in gpu.items() if k != "instanceTypes"}  # by family instead
    return raw


def test_a_gpu_pool_by_family_names_the_model_of_the_families_it_launches():
    # The gpu group's default type is an A10G (g5); a pool of g6 families launches L4 nodes and says so.
    layout = build_layout(parse(gpu_by_family("g6")), "dev-karpenter")
    (pool,) = [p for p in layout.node_pools if p.name == "gpu"]
    assert pool.labels[ACCELERATOR_LABEL] == "nvidia-l4" == layout.group("gpu").labels[ACCELERATOR_LABEL]
    assert {instances.lookup(t).gpu_name for t in pool.instance_types} == {"l4"}


def test_a_gpu_pool_by_family_refuses_families_of_several_models():
    found = problems(gpu_by_family("g5", "g6"))
    assert "families g5, g6 mix GPU models (a10g, l4)" in found[f"{P}karpenter.nodePools.gpu.instanceFamilies"]


def test_labels_and_taints_are_the_groups():
    layout = layout_of()
    for pool in layout.node_pools:
        group = layout.group(pool.name)
        assert dict(pool.labels) == dict(group.labels) and pool.taints == group.taints
    p = pools()
    assert p["spot"].labels[LIFECYCLE_LABEL] == "preemptible"
    assert Taint(LIFECYCLE_LABEL, "preemptible", "NoSchedule") in p["spot"].taints
    assert GPU_TAINT in p["gpu"].taints and p["gpu"].labels["nvidia.com/gpu.present"] == "true"
    assert Taint(ROLE_LABEL, "jupyter", "NoSchedule") in p["jupyter"].taints


def test_limits_are_max_size_nodes_of_the_largest_type_karpenter_may_launch():
    p = pools()
    # jobs: maxSize 10, largest m5.4xlarge (16 vCPU, 65536 MiB less Karpenter's 7.5% VM overhead).
    m5_4xl = instances.lookup("m5.4xlarge")
    assert capacity.capacity_memory_mib(m5_4xl) == 65536 - 4916
    assert dict(p["jobs"].limits) == {"cpu": "160", "memory": f"{10 * (65536 - 4916)}Mi", "nodes": "10"}
    gpu = p["gpu"].limits  # g5.2xlarge: 8 vCPU, 1 GPU; maxSize 4
    assert (gpu["cpu"], gpu["nvidia.com/gpu"], gpu["nodes"]) == ("32", "4", "4")
    assert "nvidia.com/gpu" not in p["jobs"].limits


def test_graviton_capacity_loses_the_cma_reservation_too():
    t = instances.lookup("m7g.2xlarge")
    mib = t.memory_mib - 64
    assert capacity.capacity_memory_mib(t) == mib - -(-mib * 75 // 1000)


def test_disruption_respects_ml_work():
    p = pools()
    for name in ("jobs", "gpu", "jupyter"):  # jobs and GPU training are not restarted when a node goes
        assert p[name].consolidation_policy == "WhenEmpty", name
    assert p["spot"].consolidation_policy == "WhenEmptyOrUnderutilized"
    for pool in p.values():
        assert pool.consolidate_after == "10m" and pool.expire_after == "720h"
        assert [b.to_dict() for b in pool.budgets] == [{"nodes": "10%"}, {"nodes": "1", "reasons": ["Drifted"]}]
    assert p["spot"].weight > p["jobs"].weight  # spot first for pods that tolerate both, like the autoscaler


def test_pool_settings_override_the_defaults():
    p = pools(
        karpenter={
            "nodePools": {
                "jupyter": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "expireAfter": "Never", "weight": 7},
                "jobs": {"consolidateAfter": "30m", "limits": {"cpu": "64", "memory": "256Gi"}},
                "spot": {"instanceFamilies": ["c6i"], "instanceSizes": ["4xlarge"]},
            }
        }
    )
    assert (p["jupyter"].consolidation_policy, p["jupyter"].expire_after, p["jupyter"].weight) == (
        "WhenEmptyOrUnderutilized",
        "Never",
        7,
    )
    assert p["jobs"].consolidate_after == "30m"
    assert (p["jobs"].limits["cpu"], p["jobs"].limits["memory"], p["jobs"].limits["nodes"]) == ("64", "256Gi", "10")
    assert p["spot"].instance_types == ("c6i.4xlarge",)


def test_node_class_baseline_per_ami_family():
    p = pools()
    # Unset amiVersion: the AL2023 release pinned for the minor (generated), not `latest`, which drifts every node.
    pin = addon_versions.of_minor("1.35")["al2023Ami"]
    assert p["jobs"].ami_alias == f"al2023@{pin}" and p["jobs"].ami_family == "AL2023"
    assert all(pool.ami_alias == f"al2023@{pin}" for pool in p.values())
    assert [d.to_dict()["deviceName"] for d in p["jobs"].block_devices] == ["/dev/xvda"]
    assert p["gpu"].block_devices[0].size_gib == 200  # the GPU group's disk
    assert all(p.imds_hop_limit == 1 for p in p.values())
    bottlerocket = pools(
        nodeGroups={**stack_config("dev-karpenter")[f"{P}nodeGroups"], "jobs": {"amiType": "BOTTLEROCKET_x86_64"}},
        karpenter={"amiVersion": "latest"},
    )["jobs"]
    assert bottlerocket.ami_alias == "bottlerocket@latest" and bottlerocket.ami_family == "Bottlerocket"
    # Bottlerocket: a small OS volume, the group's disk as the data volume (Karpenter's own default layout).
    assert [(d.device_name, d.size_gib) for d in bottlerocket.block_devices] == [("/dev/xvda", 4), ("/dev/xvdb", 100)]


def test_arm_families_pick_an_arm_ami():
    groups = stack_config("dev-karpenter")[f"{P}nodeGroups"]
    p = pools(
        nodeGroups={**groups, "jobs": {"maxSize": 4}},
        additionalNodeGroups=[{"name": "graviton", "maxSize": 3}],
        karpenter={"nodePools": {"graviton": {"instanceFamilies": ["m7g", "c7g"], "instanceSizes": ["xlarge"]}}},
    )
    g = p["graviton"]
    assert g.arch == "arm64" and set(g.instance_types) == {"m7g.xlarge", "c7g.xlarge"}
    assert ("kubernetes.io/arch", "In", ("arm64",)) in [(r.key, r.operator, r.values) for r in g.requirements]


def test_the_release_supports_every_minor_eks_creates_clusters_on():
    low, high = release.kubernetes_range()
    assert release.version() == "1.14.1" and (low, high) == ("1.26", "1.36")
    for minor in ("1.29", "1.33", "1.35", "1.36"):
        assert release.compatibility_error(minor) is None
    err = release.compatibility_error("1.37")
    assert "1.37" in err and "1.26 to 1.36" in err and "1.14.1" in err


def test_an_unsupported_kubernetes_minor_is_refused_at_its_key(monkeypatch):
    monkeypatch.setattr(release, "kubernetes_range", lambda: ("1.26", "1.34"))
    found = problems(karpenter_config())
    assert "supports Kubernetes 1.26 to 1.34" in found[f"{P}kubernetesVersion"]


def test_a_karpenter_stack_without_an_initial_group_is_refused():
    groups = stack_config("dev-karpenter")[f"{P}nodeGroups"]
    found = problems(karpenter_config(nodeGroups={**groups, "initial": {**groups["initial"], "enabled": False}}))
    assert f"{P}nodeGroups.initial.enabled" in found


def test_the_initial_group_never_gets_a_pool():
    found = problems(karpenter_config(karpenter={"nodePools": {"initial": {"weight": 5}}}))
    assert "stays a static managed node group" in found[f"{P}karpenter.nodePools.initial"]


def test_requirements_that_match_no_catalog_type_are_refused():
    found = problems(
        karpenter_config(karpenter={"nodePools": {"spot": {"instanceFamilies": ["m5"], "instanceSizes": ["nano"]}}})
    )
    assert "match no instance type in the catalog" in found[f"{P}karpenter.nodePools.spot.instanceFamilies"]
    found = problems(karpenter_config(karpenter={"nodePools": {"spot": {"instanceFamilies": ["m55"]}}}))
    assert "not an instance family in the catalog" in found[f"{P}karpenter.nodePools.spot.instanceFamilies[0]"]


def test_limits_smaller_than_one_node_are_refused():
    found = problems(karpenter_config(karpenter={"nodePools": {"jobs": {"limits": {"cpu": "4", "memory": "8Gi"}}}}))
    cpu = found[f"{P}karpenter.nodePools.jobs.limits.cpu"]
    assert "smaller than one node" in cpu and "m5.2xlarge" in cpu and "8 vCPU" in cpu
    assert "smaller than one node" in found[f"{P}karpenter.nodePools.jobs.limits.memory"]
    with pytest.raises(ConfigError) as exc:
        parse(karpenter_config(karpenter={"nodePools": {"gpu": {"limits": {"nvidia.com/gpu": 0.5}}}}))
    (problem,) = exc.value.problems
    assert problem.path == f"{P}karpenter.nodePools.gpu.limits" and "whole number" in problem.message


def test_every_karpenter_mistake_of_a_file_is_reported_at_once():
    groups = stack_config("dev-karpenter")[f"{P}nodeGroups"]
    found = problems(
        karpenter_config(
            nodeGroups={**groups, "jobs": {**groups["jobs"], "minSize": 2, "labels": {"karpenter.sh/custom": "x"}}},
            tags={"kubernetes.io/cluster/other": "owned"},
            karpenter={
                "replicas": 3,
                "nodePools": {
                    "nosuch": {},
                    "jobs": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "limits": {"nvidia.com/gpu": 1}},
                    "gpu": {"instanceFamilies": ["m5"]},
                    "jupyter": {"instanceSizes": ["xlarge"]},
                },
            },
        )
    )
    expected = {
        f"{P}nodeGroups.jobs.minSize": "has no minSize",
        f"{P}nodeGroups.jobs.labels.karpenter.sh/custom": "reserves",
        f"{P}tags.kubernetes.io/cluster/other": "Karpenter sets",
        f"{P}karpenter.replicas": "initial group has 2",
        f"{P}karpenter.nodePools.nosuch": "not an enabled group",
        f"{P}karpenter.nodePools.jobs.consolidationPolicy": "MLRun does not restart",
        f"{P}karpenter.nodePools.jobs.limits.nvidia.com/gpu": "no GPUs",
        f"{P}karpenter.nodePools.gpu.instanceFamilies": "set together with",
        f"{P}karpenter.nodePools.jupyter.instanceSizes": "needs instanceFamilies",
    }
    for key, fragment in expected.items():
        assert fragment in found.get(key, ""), (key, found)


def test_gpu_and_cpu_pools_keep_to_their_kind_of_family():
    groups = stack_config("dev-karpenter")[f"{P}nodeGroups"]
    no_types = {k: {kk: vv for kk, vv in v.items() if kk != "instanceTypes"} for k, v in groups.items()}
    found = problems(
        karpenter_config(
            nodeGroups={**groups, "gpu": no_types["gpu"], "jobs": no_types["jobs"]},
            karpenter={"nodePools": {"gpu": {"instanceFamilies": ["g5", "m5"]}, "jobs": {"instanceFamilies": ["p4d"]}}},
        )
    )
    assert "NVIDIA GPU families" in found[f"{P}karpenter.nodePools.gpu.instanceFamilies[1]"]
    assert "accelerators" in found[f"{P}karpenter.nodePools.jobs.instanceFamilies[0]"]


def test_families_of_two_architectures_are_refused():
    found = problems(
        karpenter_config(
            additionalNodeGroups=[{"name": "mixed", "maxSize": 2}],
            karpenter={"nodePools": {"mixed": {"instanceFamilies": ["m6i", "m7g"]}}},
        )
    )
    assert "mix arm64 and x86_64" in found[f"{P}karpenter.nodePools.mixed.instanceFamilies"]


def test_karpenter_settings_without_the_karpenter_provisioner_are_not_dropped_silently():
    raw = stack_config("dev")
    raw[f"{P}karpenter"] = {"replicas": 1}
    assert "provisioner is nodeGroups" in problems(raw, "dev")[f"{P}karpenter"]


def test_bad_pool_settings_are_refused_by_the_settings_model():
    for pool_settings, key in [
        ({"consolidateAfter": "10 minutes"}, "consolidateAfter"),
        ({"expireAfter": "forever"}, "expireAfter"),
        ({"consolidationPolicy": "Always"}, "consolidationPolicy"),
        ({"limits": {"pods": 10}}, "limits"),
        ({"instanceFamilies": ["M5"]}, "instanceFamilies"),
        ({"weight": 0}, "weight"),
    ]:
        with pytest.raises(ConfigError) as exc:
            parse(karpenter_config(karpenter={"nodePools": {"jobs": pool_settings}}))
        assert any(key in p.path for p in exc.value.problems), (pool_settings, exc.value)
    with pytest.raises(ConfigError, match="provisioner"):
        parse(karpenter_config(provisioner="fargate"))


def test_the_pool_builder_knows_the_layouts_initial_group():
    assert karpenter_pools.INITIAL == INITIAL


def test_a_migrating_stack_keeps_its_groups_as_managed_node_groups():
    groups = stack_config("dev-karpenter")[f"{P}nodeGroups"]
    layout = layout_of(
        nodeGroups={**groups, "jobs": {**groups["jobs"], "minSize": 2}},
        karpenter={"keepNodeGroups": True},
    )
    managed = {g.name: g for g in layout.managed_groups}
    assert list(managed) == ["initial", "jupyter", "jobs", "spot", "gpu"]
    assert not any(g.karpenter for g in managed.values())
    assert managed["jobs"].min_size == 2  # while migrating, minSize still sizes the kept group
    assert layout.group("jobs").karpenter and len(layout.node_pools) == 4  # placement proves the pools


FAMILIES = sorted(capacity.known_families())
SIZES = ["large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "metal", "nano"]


@settings(max_examples=40, deadline=None)
@given(
    families=st.lists(st.sampled_from(FAMILIES), min_size=1, max_size=4, unique=True),
    sizes=st.none() | st.lists(st.sampled_from(SIZES), min_size=1, max_size=3, unique=True),
    cpu=st.none() | st.integers(min_value=1, max_value=512),
)
def test_any_family_choice_builds_a_pool_that_keeps_to_it_or_is_refused_by_its_key(families, sizes, cpu):
    pool_settings = {"instanceFamilies": families, **({"instanceSizes": sizes} if sizes else {})}
    if cpu is not None:
        pool_settings["limits"] = {"cpu": str(cpu)}
    raw = karpenter_config(karpenter={"nodePools": {"spot": pool_settings}})
    try:
        spot = {p.name: p for p in build_layout(parse(raw), "dev-karpenter").node_pools}["spot"]
    except ConfigError as exc:
        assert all(p.path.startswith(f"{P}karpenter.nodePools.spot") for p in exc.problems), exc
        return
    assert spot.instance_types
    for name in spot.instance_types:
        family, _, size = name.partition(".")
        assert family in families and (sizes is None or size in sizes)
        assert not instances.lookup(name).accelerated  # a spot pool without GPUs
    smallest_cpu = min(instances.lookup(t).vcpu for t in spot.instance_types if instances.lookup(t).known)
    assert int(spot.limits["cpu"]) >= smallest_cpu


@pytest.mark.parametrize(
    "jobs_ami, setting, refused",
    [
        ("BOTTLEROCKET_x86_64", None, "pool runs Bottlerocket, whose releases the toolkit does not pin"),
        ("BOTTLEROCKET_x86_64", "v20260714", "run AL2023 and Bottlerocket"),
        ("AL2023_x86_64_STANDARD", "v1.26.2", "is not a AL2023 AMI release such as v20260714"),
    ],
)
def test_an_ami_release_must_name_the_pools_family(jobs_ami, setting, refused):
    groups = {**stack_config("dev-karpenter")[f"{P}nodeGroups"], "jobs": {"amiType": jobs_ami}}
    karpenter = {"amiVersion": setting} if setting else {}
    with pytest.raises(ConfigError) as info:
        pools(nodeGroups=groups, karpenter=karpenter)
    assert f"{P}karpenter.amiVersion" in str(info.value) and refused in str(info.value)


def test_an_explicit_release_or_latest_is_taken_as_written():
    assert {p.ami_alias for p in pools(karpenter={"amiVersion": "v20250101"}).values()} == {"al2023@v20250101"}
    assert {p.ami_alias for p in pools(karpenter={"amiVersion": "latest"}).values()} == {"al2023@latest"}
