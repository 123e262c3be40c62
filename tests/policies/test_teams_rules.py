"""The teams rules (mlplatform_policies/teams.py), on the shipped three-team example (examples/stacks)."""

from __future__ import annotations

from functools import cache

import pytest

from mlplatform.check import policy_resources
from mlplatform.engine import run_stack
from mlplatform_core.model.config import read_stack_file
from tests.conftest import ROOT
from tests.policies.variants import NS, drop, edit, evaluate, messages

CQ = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
LQ = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
RULES = {"team-quota-within-flavor", "team-namespace-local-queue", "prod-team-dev-flavor"}


@cache
def teams_stack() -> tuple:
    return tuple(policy_resources(run_stack("teams", read_stack_file(ROOT / "examples/stacks/Pulumi.teams.yaml"))))


def fired(resources) -> dict[str, str]:
    found = evaluate(list(resources))
    return {rule: messages(found, rule) for rule in RULES if messages(found, rule)}


def test_the_example_passes_every_teams_rule():
    assert {r.type for r in teams_stack()} >= {CQ, LQ}
    assert fired(teams_stack()) == {}


def test_a_quota_over_the_gpu_group_is_caught():
    def more_gpus(props: dict) -> None:
        for res in props["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
            if res["name"] == "nvidia.com/gpu":
                res["nominalQuota"] = "9"

    found = fired(edit(teams_stack(), CQ, "clusterqueue-nlp", more_gpus))
    assert "flavor gpu" in found["team-quota-within-flavor"] and "nlp (9)" in found["team-quota-within-flavor"]


def test_a_team_namespace_without_local_queue_is_caught():
    found = fired(drop(teams_stack(), LQ, lambda r: r.name == "localqueue-nlp-nlp"))
    assert "namespace nlp" in found["team-namespace-local-queue"]


def test_a_prod_team_borrowing_on_the_jobs_group_is_caught():
    def prod(props: dict) -> None:
        props["metadata"].setdefault("labels", {})["mlplatform.io/environment"] = "prod"

    resources = edit(teams_stack(), NS, "namespace-analytics", prod)
    found = fired(resources)
    assert "ClusterQueue analytics" in found["prod-team-dev-flavor"] and "jobs" in found["prod-team-dev-flavor"]

    def no_borrowing(props: dict) -> None:
        for flavor in props["spec"]["resourceGroups"][0]["flavors"]:
            if flavor["name"] == "jobs":
                for res in flavor["resources"]:
                    res["borrowingLimit"] = "0"

    assert "prod-team-dev-flavor" not in fired(edit(resources, CQ, "clusterqueue-analytics", no_borrowing))


def _more_gpus(resources):
    def change(props: dict) -> None:
        for res in props["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
            if res["name"] == "nvidia.com/gpu":
                res["nominalQuota"] = "9"

    return edit(resources, CQ, "clusterqueue-nlp", change)


def _prod_analytics(resources):
    def prod(props: dict) -> None:
        props["metadata"].setdefault("labels", {})["mlplatform.io/environment"] = "prod"

    return edit(resources, NS, "namespace-analytics", prod)


# (rule, stack, breaks, level): the rule passes on the shipped teams example and fails at `level` on the variant.
CASES = [
    ("team-quota-within-flavor", "teams", _more_gpus, "mandatory"),
    (
        "team-namespace-local-queue",
        "teams",
        lambda r: drop(r, LQ, lambda x: x.name == "localqueue-nlp-nlp"),
        "mandatory",
    ),
    ("prod-team-dev-flavor", "teams", _prod_analytics, "mandatory"),
]


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_example_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert rule not in {v.policy for v in evaluate(list(teams_stack()))}
    found = [v for v in evaluate(breaks(list(teams_stack()))) if v.policy == rule]
    assert found, f"{rule} did not fire"
    assert {v.level for v in found} == {level}
    assert all(v.message and v.remediation for v in found)
