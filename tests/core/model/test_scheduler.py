"""The scheduler's NodeResourcesFit scoring (model/scheduler.py), `place`'s ranking by it, and the `scheduler:`
setting, refused while the toolkit's cluster cannot take EKS's scheduler configuration."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mlplatform_core.model import scheduler
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.scheduler import DEFAULT_SCORING, MOST_ALLOCATED, Scoring, best_fit, fit_score
from mlplatform_core.placement.filters import place
from tests.conftest import stack_config
from tests.core.placement.conftest import container, group_with, pod

GIB = 2**30
SMALL = {"cpu": 8000, "memory": 32 * GIB}  # m5.2xlarge-like
LARGE = {"cpu": 16000, "memory": 64 * GIB}
MOST = Scoring(MOST_ALLOCATED, {"cpu": 1, "memory": 1})


def test_least_and_most_allocated_follow_kube_scheduler():
    """(allocatable - requested) * 100 / allocatable and requested * 100 / allocatable, weighted means."""
    req = {"cpu": 2000, "memory": 8 * GIB}
    assert fit_score(req, SMALL) == 75  # cpu 75, memory 75
    assert fit_score(req, SMALL, MOST) == 25
    weighted = Scoring(MOST_ALLOCATED, {"cpu": 3, "memory": 1})
    assert fit_score({"cpu": 4000, "memory": 8 * GIB}, SMALL, weighted) == Fraction(3 * 50 + 25, 4)


def test_most_allocated_prefers_fuller_nodes_and_least_allocated_emptier_ones():
    req = {"cpu": 4000, "memory": 16 * GIB}
    assert fit_score(req, SMALL, MOST) > fit_score(req, LARGE, MOST)
    assert fit_score(req, LARGE) > fit_score(req, SMALL)
    assert best_fit(req, [LARGE, SMALL, None], MOST) == fit_score(req, SMALL, MOST)


def test_a_resource_the_node_lacks_is_not_scored():
    gpu_weighted = Scoring(MOST_ALLOCATED, {"cpu": 1, "memory": 1, "nvidia.com/gpu": 10})
    req = {"cpu": 2000, "memory": 8 * GIB}
    assert fit_score(req, SMALL, gpu_weighted) == fit_score(req, SMALL, MOST)
    gpu_node = {**SMALL, "nvidia.com/gpu": 1}
    assert fit_score({**req, "nvidia.com/gpu": 1}, gpu_node, gpu_weighted) > fit_score(req, SMALL, gpu_weighted)


def test_a_pod_without_requests_is_scored_as_asking_the_nonzero_defaults():
    assert fit_score({}, SMALL, MOST) == fit_score({"cpu": 100, "memory": 200 * 2**20}, SMALL, MOST)


def test_place_ranks_equal_groups_by_the_clusters_scoring():
    """Same affinity, no PreferNoSchedule taint: the default LeastAllocated puts the group with the larger node
    first (its node stays emptier)."""
    assert scheduler.cluster_scoring() == DEFAULT_SCORING
    small = group_with("jupyter", taints=())  # m5.2xlarge
    large = group_with("jobs", instance_types=("m5.4xlarge",), taints=())
    p = pod(containers=[container(requests={"cpu": "2", "memory": "4Gi"})])
    result = place(p, [small, large])
    assert set(result.reachable) == {"jupyter", "jobs"}
    assert result.ranking == ("jobs", "jupyter")
    assert result.group("jobs").fit > result.group("jupyter").fit


def test_the_scheduler_setting_is_validated_then_refused_naming_the_provider():
    raw = stack_config("dev")
    raw["ml-platform-eks:scheduler"] = {"scoring": "MostAllocated", "resourceWeights": {"cpu": 1, "nvidia.com/gpu": 5}}
    with pytest.raises(ConfigError) as exc:
        parse(raw)
    msg = str(exc.value)
    assert "ml-platform-eks:scheduler" in msg and "pulumi-eks" in msg and "kubeSchedulerConfig" in msg
    raw["ml-platform-eks:scheduler"] = {"scoring": "MostAlloc"}
    with pytest.raises(ConfigError, match="MostAllocated"):
        parse(raw)
    raw["ml-platform-eks:scheduler"] = {"resourceWeights": {"cpu": 101}}
    with pytest.raises(ConfigError, match="between 1 and 100"):
        parse(raw)


def test_the_shape_is_ekss(tmp_path):
    """The strategies and bounds are those of botocore's EKS model (KubeSchedulerConfigRequest)."""
    botocore = pytest.importorskip("botocore.loaders")
    shapes = botocore.Loader().load_service_model("eks", "service-2")["shapes"]
    assert "kubeSchedulerConfig" in shapes["CreateClusterRequest"]["members"]
    assert "kubeSchedulerConfig" in shapes["UpdateClusterConfigRequest"]["members"]
    strategy = shapes["ScoringStrategy"]["members"]
    assert set(strategy) == {"type", "resources"}
    assert shapes["ResourceWeightList"]["max"] == scheduler.MAX_RESOURCES
    for name in scheduler.STRATEGIES:
        assert name in shapes[strategy["type"]["shape"]].get("enum", [name])
