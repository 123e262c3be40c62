"""The plan's checks of the teams: capacity at max size, unbounded pools, tolerations, priority classes,
LimitRanges; and flavors on every provisioner."""

from __future__ import annotations

import copy

from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.teams.checks import gpu_hours
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

from .conftest import NS, TEAMS, problems, valid, with_teams

EXAMPLE = ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"


def test_more_gpus_than_the_gpu_group_reaches_is_refused_naming_team_and_flavor():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["quotas"]["gpu"]["gpu"] = {"nominal": 3}  # 2 + 3 GPUs; the dev gpu group: 4 x g5.xlarge (1 GPU)
    (msg,) = problems(with_teams(teams=teams))
    assert msg.startswith("ml-platform-eks:teams.nlp.quotas.gpu.gpu")
    assert "vision (2) and nlp (3)" in msg and "5 nvidia.com/gpu" in msg and "flavor gpu" in msg
    assert "4 on 4 nodes" in msg and "maxSize" in msg


def test_raising_the_group_max_size_makes_room():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["quotas"]["gpu"]["gpu"] = {"nominal": 3}
    raw = with_teams(teams=teams)
    raw[NS + "nodeGroups"]["gpu"]["maxSize"] = 5
    assert valid(raw).teams.team("nlp").quota("gpu", "nvidia.com/gpu").nominal == 3


def test_memory_over_capacity_is_refused():
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["jobs"]["memory"] = {"nominal": "2Ti"}
    (msg,) = problems(with_teams(teams=teams))
    assert "vision (2048Gi)" in msg and "memory" in msg and "flavor jobs" in msg


def test_a_spot_flavor_needs_jobs_that_tolerate_spot():
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["spot"] = {"cpu": {"nominal": 4}, "memory": {"nominal": "8Gi"}}
    (msg,) = problems(with_teams(teams=teams))  # dev's preemption mode: prevent
    assert "team vision" in msg and "spot" in msg and "preemptionMode" in msg
    raw = with_teams(teams=teams)
    raw[NS + "workloads"]["preemptionMode"] = "allow"
    spot = valid(raw).teams.flavor("spot")
    assert [t.key for t in spot.node_taints] == ["app.iguazio.com/lifecycle"]  # Kueue keeps intolerant jobs off


def test_the_initial_group_is_no_flavor():
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["initial"] = {"cpu": {"nominal": 1}}
    found = problems(with_teams(teams=teams))
    assert any("team vision" in p and "core services" in p for p in found)


def test_the_mlrun_default_class_must_be_allowed():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["priorityClasses"] = ["high"]
    (msg,) = problems(with_teams(teams=teams))
    assert "team nlp" in msg and "igz-workload-medium" in msg and "defaultPriority" in msg


def test_a_limit_range_default_over_every_quota_is_refused():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["quotas"]["gpu"]["cpu"] = {"nominal": "100m", "borrowingLimit": 0}
    (msg,) = problems(with_teams(teams=teams))
    assert "team nlp" in msg and "namespace nlp" in msg and "defaultRequest" in msg


def test_gpu_hours_follow_the_nominal_quota():
    teams = valid(with_teams()).teams
    (vision,) = gpu_hours(teams.team("vision"), teams)
    assert vision == {
        "flavor": "gpu",
        "resource": "nvidia.com/gpu",
        "nominal": 2,
        "gpuHoursPerMonth": 1460,
        "withBorrowingHoursPerMonth": 2920,
    }


def test_karpenter_pools_are_flavors_by_their_nodes_labels():
    raw = with_teams("dev-karpenter")
    teams = valid(raw).teams
    for f in teams.flavors:
        group = valid(raw).layout.group(f.name)
        assert group.karpenter and f.kind == "Karpenter NodePool"
        pool = next(p for p in valid(raw).layout.node_pools if p.name == f.name)
        assert dict(f.node_labels).items() <= dict(pool.labels).items()  # what the pool's nodes carry
        assert f.capacity is not None


def test_auto_mode_pools_and_the_unbounded_general_purpose_pool():
    raw = with_teams("dev-automode")
    raw[NS + "autoMode"] = {**raw[NS + "autoMode"], "generalPurposePool": True}
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["general-purpose"] = {"cpu": {"nominal": 8}, "memory": {"nominal": "16Gi"}}
    raw[NS + "teams"] = teams
    found = problems(raw)
    assert any("team vision" in p and "no node limit" in p and "borrowingLimit" in p for p in found), found
    teams["vision"]["quotas"]["general-purpose"] = {
        "cpu": {"nominal": 8, "borrowingLimit": 0},
        "memory": {"nominal": "16Gi", "borrowingLimit": "4Gi"},
    }
    flavor = valid(raw).teams.flavor("general-purpose")
    assert dict(flavor.node_labels) == {"karpenter.sh/nodepool": "general-purpose"} and flavor.capacity is None
    assert valid(raw).teams.flavor("gpu").kind == "EKS Auto Mode NodePool"


def test_the_shipped_example_plans_three_teams_in_one_cohort():
    v = validate_stack(read_stack_file(EXAMPLE), "teams")
    assert [t.name for t in v.teams.teams] == ["vision", "nlp", "analytics"]
    assert v.teams.cohorts == ("platform",)
    assert {f.name for f in v.teams.flavors} == {"jobs", "spot", "gpu"}


def test_gpu_hours_use_the_cost_models_month():
    from mlplatform_core.model.cost.prices import HOURS_PER_MONTH as COST_MONTH
    from mlplatform_core.model.teams.checks import HOURS_PER_MONTH

    assert HOURS_PER_MONTH == COST_MONTH
