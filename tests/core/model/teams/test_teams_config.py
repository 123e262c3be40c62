"""`teams:` in the stack config: its shape, its errors, and a stack without it unchanged."""

from __future__ import annotations

import copy

from mlplatform_core.model.teams import manifests
from mlplatform_core.model.validation import validate_stack
from tests.conftest import stack_config

from .conftest import TEAMS, problems, valid, with_teams


def test_a_stack_without_teams_has_no_kueue():
    v = validate_stack(stack_config("dev"), "dev")
    assert v.teams is None


def test_teams_become_flavors_queues_and_priorities():
    teams = valid(with_teams()).teams
    assert [f.name for f in teams.flavors] == ["jobs", "gpu"]
    assert [t.name for t in teams.teams] == ["vision", "nlp"]
    vision = teams.team("vision")
    assert vision.flavors == ("gpu", "jobs")  # the order the stack lists them: Kueue tries them in turn
    assert vision.quota("gpu", "nvidia.com/gpu").nominal == 2
    assert vision.quota("gpu", "memory").nominal == 24 * 2**30
    assert teams.team("nlp").priority_classes == ("igz-workload-low", "igz-workload-medium")
    assert teams.team_of("nlp").name == "nlp" and teams.team_of("mlrun") is None
    kinds = [o["kind"] for o in manifests(teams)]
    assert (
        kinds
        == ["ResourceFlavor"] * 2
        + ["Cohort"]
        + ["WorkloadPriorityClass"] * 3
        + ["ClusterQueue"] * 2
        + ["LocalQueue"] * 2
    )


def test_unknown_group_names_team_setting_value_and_the_groups():
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["gpus"] = teams["vision"]["quotas"].pop("gpu")
    (msg,) = problems(with_teams(teams=teams))
    assert "teams.vision.quotas.gpus" in msg and "did you mean gpu?" in msg and "jobs" in msg


def test_a_namespace_of_two_teams_is_refused():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["namespaces"] = ["nlp", "vision"]
    (msg,) = problems(with_teams(teams=teams))
    assert "team nlp" in msg and "vision" in msg and "already team vision's" in msg


def test_unknown_priority_class_lists_the_valid_ones():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["priorityClasses"] = ["lwo"]
    (msg,) = problems(with_teams(teams=teams))
    assert "teams.nlp.priorityClasses[0]" in msg.replace(".0", "[0]") or "priorityClasses" in msg
    assert "did you mean low?" in msg and "high" in msg


def test_a_namespace_without_limit_range_is_refused():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["namespaces"] = ["robots"]
    (msg,) = problems(with_teams(teams=teams))
    assert "robots" in msg and "workloads.namespaces" in msg


def test_gpu_quota_on_a_cpu_group_and_bad_amounts_are_refused():
    teams = copy.deepcopy(TEAMS)
    teams["vision"]["quotas"]["jobs"]["gpu"] = {"nominal": 1}
    teams["nlp"]["quotas"]["gpu"]["gpu"] = {"nominal": "1.5"}
    found = problems(with_teams(teams=teams))
    assert any("jobs has no GPUs" in p for p in found)
    assert any("teams.nlp.quotas.gpu" in p and "1.5" in p for p in found)


def test_lending_more_than_nominal_is_refused():
    teams = copy.deepcopy(TEAMS)
    teams["nlp"]["quotas"]["gpu"]["gpu"] = {"nominal": 1, "lendingLimit": 2}
    (msg,) = problems(with_teams(teams=teams))
    assert "lendingLimit" in msg and "nominal" in msg


def test_gpu_quota_without_cpu_and_memory_is_refused():
    teams = copy.deepcopy(TEAMS)
    del teams["nlp"]["quotas"]["gpu"]["memory"]
    (msg,) = problems(with_teams(teams=teams))
    assert "teams.nlp.quotas.gpu" in msg and "memory" in msg
