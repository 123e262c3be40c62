"""The layout the seeds ask for, as pure data: groups, sizes, labels, taints, ASG tags."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import autoscaler_tags, build_layout, discovery_tags
from mlplatform_core.model.scheduling import (
    ACCELERATOR_LABEL,
    CRITICAL_ADDONS_TAINT,
    ENVIRONMENT_LABEL,
    GPU_PRESENT_LABEL,
    GPU_TAINT,
    LIFECYCLE_LABEL,
    ROLE_LABEL,
    Taint,
)
from tests.conftest import stack_config


def layout_of(stack: str, **overrides):
    raw = stack_config(stack)
    raw.update({f"ml-platform-eks:{k}": v for k, v in overrides.items()})
    return build_layout(parse(raw), stack)


def test_dev_has_the_dev_groups_and_prod_has_no_jupyter():
    assert [g.name for g in layout_of("dev").groups] == ["initial", "jupyter", "jobs", "spot", "gpu"]
    assert [g.name for g in layout_of("prod").groups] == ["initial", "workload", "gpu"]


@pytest.mark.parametrize("stack,size", [("dev", 2), ("prod", 3)])
def test_initial_group_is_static_on_demand_and_reserved(stack, size):
    initial = layout_of(stack).group("initial")
    assert (initial.min_size, initial.desired_size, initial.max_size) == (size, size, size)
    assert not initial.autoscaled
    assert initial.capacity_type == "ON_DEMAND"
    assert CRITICAL_ADDONS_TAINT in initial.taints


def test_workload_groups_autoscale_and_prod_workload_keeps_a_node():
    dev = layout_of("dev")
    assert dev.group("jupyter").autoscaled and dev.group("jobs").autoscaled
    workload = layout_of("prod").group("workload")
    assert workload.autoscaled and workload.min_size >= 1 and workload.capacity_type == "ON_DEMAND"


def test_every_group_has_lifecycle_role_and_environment_labels():
    for stack in ("dev", "prod"):
        for g in layout_of(stack).groups:
            expected = "preemptible" if g.capacity_type == "SPOT" else "non-preemptible"
            assert g.labels[LIFECYCLE_LABEL] == expected
            assert g.labels[ROLE_LABEL] == g.role
            assert g.labels[ENVIRONMENT_LABEL] == stack


def test_spot_group_is_tainted_preemptible_and_scales_from_zero():
    spot = layout_of("dev").group("spot")
    assert spot.capacity_type == "SPOT" and spot.min_size == 0
    assert spot.taints == (Taint(LIFECYCLE_LABEL, "preemptible", "NoSchedule"),)
    assert len(spot.instance_types) > 1


def test_jupyter_group_is_dedicated_by_default_and_any_group_can_be():
    layout = layout_of("dev")
    assert layout.group("jupyter").taints == (Taint(ROLE_LABEL, "jupyter", "NoSchedule"),)
    assert layout.group("jobs").taints == ()
    shared = layout_of("dev", nodeGroups={"jupyter": {"dedicated": False}, "jobs": {"dedicated": True}})
    assert shared.group("jupyter").taints == ()
    assert shared.group("jobs").taints == (Taint(ROLE_LABEL, "jobs", "NoSchedule"),)


def test_spot_taint_is_configurable():
    spot = layout_of("dev", spotTaint={"key": "example.com/spot", "value": "yes", "effect": "NoExecute"}).group("spot")
    assert spot.taints == (Taint("example.com/spot", "yes", "NoExecute"),)


def test_gpu_group_is_dedicated():
    gpu = layout_of("dev").group("gpu")
    assert gpu.gpu and gpu.ami_type == "AL2023_x86_64_NVIDIA"
    assert GPU_TAINT in gpu.taints and gpu.labels[GPU_PRESENT_LABEL] == "true"
    assert all(t.startswith("g5.") for t in gpu.instance_types)


def test_optional_groups_follow_enabled():
    layout = layout_of("dev", nodeGroups={"spot": {"enabled": False}, "gpu": {"enabled": False}})
    assert [g.name for g in layout.groups] == ["initial", "jupyter", "jobs"]
    prod = layout_of("prod", nodeGroups={"spot": {"enabled": True}})
    assert prod.group("spot").capacity_type == "SPOT"


def test_overrides_merge_with_defaults_and_extra_labels_taints():
    layout = layout_of(
        "dev",
        nodeGroups={
            "jobs": {"maxSize": 30, "labels": {"team": "ml"}, "taints": [{"key": "dedicated", "value": "jobs"}]}
        },
    )
    jobs = layout.group("jobs")
    assert (jobs.min_size, jobs.max_size) == (1, 30)
    assert jobs.labels["team"] == "ml" and jobs.labels[LIFECYCLE_LABEL] == "non-preemptible"
    assert Taint("dedicated", "jobs", "NoSchedule") in jobs.taints


def test_additional_groups_get_the_same_rules():
    layout = layout_of(
        "prod",
        additionalNodeGroups=[
            {"name": "gpu-large", "gpu": True, "instanceTypes": ["p4d.24xlarge"], "maxSize": 2},
            {"name": "batch-spot", "capacityType": "SPOT", "instanceTypes": ["c5.4xlarge"], "maxSize": 20},
        ],
    )
    big = layout.group("gpu-large")
    assert big.gpu and GPU_TAINT in big.taints and big.min_size == 0
    batch = layout.group("batch-spot")
    assert batch.labels[LIFECYCLE_LABEL] == "preemptible" and layout.spot_taint in batch.taints


def test_autoscaler_tags_describe_labels_taints_and_gpus():
    layout = layout_of("dev")
    gpu_tags = autoscaler_tags(layout.group("gpu"), layout.cluster_name)
    prefix = "k8s.io/cluster-autoscaler"
    assert gpu_tags[f"{prefix}/node-template/label/{GPU_PRESENT_LABEL}"] == "true"
    assert gpu_tags[f"{prefix}/node-template/label/{ACCELERATOR_LABEL}"] == "nvidia-a10g"
    assert gpu_tags[f"{prefix}/node-template/taint/nvidia.com/gpu"] == "true:NoSchedule"
    assert gpu_tags[f"{prefix}/node-template/resources/nvidia.com/gpu"] == "1"
    spot_tags = autoscaler_tags(layout.group("spot"), layout.cluster_name)
    assert spot_tags[f"{prefix}/node-template/taint/{LIFECYCLE_LABEL}"] == "preemptible:NoSchedule"
    assert spot_tags[f"{prefix}/node-template/label/eks.amazonaws.com/capacityType"] == "SPOT"


def test_discovery_tags_are_left_to_eks():
    """EKS tags every managed node group's ASG for discovery; a Tag resource of ours would delete EKS's on destroy."""
    layout = layout_of("dev")
    discovery = discovery_tags(layout.cluster_name)
    assert discovery == {
        "k8s.io/cluster-autoscaler/enabled": "true",
        f"k8s.io/cluster-autoscaler/{layout.cluster_name}": "owned",
    }
    for group in layout.groups:
        assert not set(discovery) & set(autoscaler_tags(group, layout.cluster_name)), group.name


def test_cluster_name_defaults_to_the_stack_and_can_be_set():
    assert layout_of("dev").cluster_name == "mlp-dev"
    assert layout_of("dev", clusterName="ml-research").cluster_name == "ml-research"
