"""The placement proof on a Karpenter stack: each NodePool is a node template, and every promise still holds."""

from __future__ import annotations

from functools import cache

from mlplatform_core.model import instances
from mlplatform_core.model.config import parse
from mlplatform_core.model.karpenter import capacity
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.ml_settings.mlrun import mlrun_env
from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.model.scheduling import CPU, GPU_RESOURCE, MEMORY
from mlplatform_core.model.workloads import build_workloads
from mlplatform_core.placement.filters import place_spec
from mlplatform_core.placement.invariants import stack_report
from mlplatform_core.placement.templates import node_templates
from tests.conftest import stack_config


@cache
def stack(name: str):
    cfg = parse(stack_config(name))
    return cfg, build_layout(cfg, name)


def templates(name: str):
    return {t.group: t for t in node_templates(stack(name)[1])}


def test_pools_look_like_karpenter_nodes_and_the_initial_group_like_a_managed_one():
    t = templates("dev-karpenter")
    spot = t["spot"].labels
    assert spot["karpenter.sh/capacity-type"] == "spot" and spot["karpenter.sh/nodepool"] == "spot"
    assert spot["karpenter.k8s.aws/ec2nodeclass"] == "spot"
    assert spot["app.iguazio.com/lifecycle"] == "preemptible"
    assert "eks.amazonaws.com/nodegroup" not in spot and "eks.amazonaws.com/capacityType" not in spot
    assert t["jobs"].labels["karpenter.sh/capacity-type"] == "on-demand"
    initial = t["initial"].labels
    assert initial["eks.amazonaws.com/nodegroup"] == "initial" and "karpenter.sh/nodepool" not in initial


def test_a_pool_offers_the_largest_instance_it_may_launch_as_karpenter_counts_it():
    jobs = templates("dev-karpenter")["jobs"]
    assert jobs.largest.instance_type == "m5.4xlarge"
    m5 = instances.lookup("m5.4xlarge")
    alloc = jobs.allocatable
    assert alloc == capacity.allocatable(m5)
    assert alloc[CPU] == m5.allocatable_cpu_millis
    # Karpenter keeps 7.5% of memory back for the VM: less than the managed group's node template says.
    assert alloc[MEMORY] < m5.allocatable_memory_mib * 2**20
    assert templates("dev-karpenter")["gpu"].allocatable[GPU_RESOURCE] == 1
    variant = next(v for v in templates("dev-karpenter")["spot"].variants if v.instance_type == "m7i.4xlarge")
    assert variant.labels["karpenter.k8s.aws/instance-family"] == "m7i"
    assert variant.labels["karpenter.k8s.aws/instance-size"] == "4xlarge"
    assert variant.labels["karpenter.k8s.aws/instance-cpu"] == "16"
    assert variant.labels["karpenter.k8s.aws/instance-category"] == "m"
    assert variant.labels["karpenter.k8s.aws/instance-generation"] == "7"


def test_the_invariants_hold_as_on_the_node_group_stack():
    cfg, layout = stack("dev-karpenter")
    report = stack_report(cfg, layout)
    assert report.ok, report.errors
    by_profile = {p.name: set(r.reachable) for p, r in report.placements}
    dev_cfg, dev_layout = stack("dev")
    for profile, result in stack_report(dev_cfg, dev_layout).placements:
        if profile.name != "cluster-autoscaler":  # Karpenter stacks run no autoscaler
            assert by_profile[profile.name] == set(result.reachable), profile.name
    assert by_profile["karpenter"] == {"initial"}  # the controller, as its chart renders it
    assert "karpenter" not in {p.name for p, _ in stack_report(dev_cfg, dev_layout).placements}
    assert "cluster-autoscaler" not in by_profile


def test_exported_mlrun_and_polyaxon_settings_are_the_node_group_stacks():
    cfg, layout = stack("dev-karpenter")
    dev_cfg, dev_layout = stack("dev")
    assert mlrun_env(layout, build_workloads(cfg)) == mlrun_env(dev_layout, build_workloads(dev_cfg))
    assert polyaxon_environments(layout) == polyaxon_environments(dev_layout)


def test_pods_may_select_karpenter_labels():
    _, layout = stack("dev-karpenter")
    gpu_family = {
        "containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}],
        "nodeSelector": {"karpenter.k8s.aws/instance-family": "g5"},
    }
    assert place_spec(gpu_family, layout).reachable == ("gpu",)
    by_pool = {"containers": [{"name": "c", "image": "x"}], "nodeSelector": {"karpenter.sh/nodepool": "jobs"}}
    assert place_spec(by_pool, layout).reachable == ("jobs",)
    spot = {
        "containers": [{"name": "c", "image": "x"}],
        "nodeSelector": {"karpenter.sh/capacity-type": "spot"},
        "tolerations": [{"key": "app.iguazio.com/lifecycle", "operator": "Exists"}],
    }
    assert place_spec(spot, layout).reachable == ("spot",)
    too_big = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "15500m"}}}]}
    result = place_spec(too_big, layout)
    assert "jobs" in result.reachable  # m5.4xlarge allocates 15890m
    assert result.group("jobs").instance_types == ("m5.4xlarge",)
