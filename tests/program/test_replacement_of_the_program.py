"""The generated replacement facts against the resources the program registers (tests/core/change/
test_replacement_data.py: the facts alone)."""

from __future__ import annotations

from mlplatform_core.change import replacement
from tests.core.change.test_replacement_data import DATA
from tests.runs import shipped_run


def test_nothing_the_program_registers_is_left_unread(prod_run):
    assert DATA["notRead"] == []
    for run in (prod_run, shipped_run("dev-karpenter")):  # both provisioners (cached runs)
        for r in run.resources:
            if r.custom and not r.type.startswith("pulumi:providers:"):
                assert replacement.facts(r.type).known, r.type


def test_a_priority_class_value_is_immutable_and_the_program_replaces_it(prod_run):
    facts = replacement.facts("kubernetes:scheduling.k8s.io/v1:PriorityClass")
    # pulumi-kubernetes would try an update (its list has no PriorityClass); the API server refuses it.
    assert {"value", "preemptionPolicy"} <= set(facts.immutable)
    assert "value" not in facts.force_new
    classes = [r for r in prod_run.resources if r.type == "kubernetes:scheduling.k8s.io/v1:PriorityClass"]
    assert classes and all(set(facts.immutable) <= set(r.replace_on_changes) for r in classes)


def test_the_foundation_the_gate_protects_has_facts(prod_run):
    registered = {r.type for r in prod_run.resources}
    for token in ("aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup", "aws:ec2/vpc:Vpc", "aws:kms/key:Key"):
        assert token in registered and replacement.facts(token).known, token
