"""What a managed node group roll does to capacity (EKS user guide managed-node-update-behavior.adoc, pinned in
mlplatform_core/change/rolls.py): new nodes first, then the old ones drained maxUnavailable at a time."""

from __future__ import annotations

from mlplatform_core.change.node_groups import node_group_changes
from mlplatform_core.change.resources import NODE_GROUP, ROLL, ResourceChange
from mlplatform_core.change.rolls import surge
from mlplatform_core.change.rules import change_violations
from mlplatform_core.model.plan_document import PlanDocument


def doc(max_unavailable: int | None, zones: int | None = 3, force: bool = False) -> PlanDocument:
    group = {"name": "workload", "role": "workload", "maxSize": 10, "maxUnavailable": max_unavailable}
    if zones is not None:  # a document from a toolkit that records the group's AZs
        group |= {"availabilityZones": zones, "forceUpdateVersion": force}
    return PlanDocument.read({"environment": "prod", "nodeGroups": [group], "placement": {"profiles": []}})


def rolled(before: PlanDocument, after: PlanDocument) -> dict:
    change = ResourceChange("urn:ng", NODE_GROUP, "workload", ROLL, ["version"])
    step = {"from": "1.35", "to": "1.35", "minors": 0}
    return {"resources": [], "kubernetesVersion": step, "nodeGroups": node_group_changes(before, after, [change])}


def test_the_scale_up_adds_the_larger_of_twice_the_azs_and_max_unavailable():
    # The guide's example: five AZs and maxUnavailable 1 launch up to 10 nodes; maxUnavailable 20 launches 20.
    assert surge(5, 1) == 10 and surge(5, 20) == 20
    assert surge(None, 1) is None  # unknown, not guessed


def test_a_roll_never_runs_the_group_below_its_size_and_says_how_it_drains():
    (entry,) = rolled(doc(2), doc(2))["nodeGroups"]
    assert (entry["batch"], entry["surge"]) == (2, 6)
    note = entry["note"]
    assert "adds up to 6 new node(s) above the group's size" in note and "2 at a time (5 batch(es))" in note
    assert "never runs below its size (0 nodes below)" in note
    assert "15 minutes" in note and "PodEvictionFailure" in note and "PodDisruptionBudget" in note


def test_the_roll_rule_states_the_scale_up_batches_and_pdb_timeout():
    before, after = doc(1), doc(1)
    (v,) = [v for v in change_violations(rolled(before, after), before, after) if v.rule == "change-node-group-roll"]
    assert v.level == "advisory" and "below its size" in v.message and "runs up to" not in v.message
    assert "up to 10 nodes replaced 1 at a time" in v.message and "adds up to 6 new node(s)" in v.message
    assert "(fields: version)" in v.message


def test_a_forced_update_deletes_pods_after_15_minutes():
    (entry,) = rolled(doc(1), doc(1, force=True))["nodeGroups"]
    assert "deleted even against a PodDisruptionBudget" in entry["note"] and "PodEvictionFailure" not in entry["note"]
