"""The consequence of a change for a Karpenter NodePool's nodes, on small plan documents."""

from __future__ import annotations

from mlplatform_core.change.node_groups import node_pool_changes
from mlplatform_core.change.resources import ROLL, ResourceChange
from mlplatform_core.model.plan_document import PlanDocument
from mlplatform_core.model.resource_types import NODE_POOL as POOL


def doc(limits: dict) -> PlanDocument:
    profile = {"name": "mlrun-job-prevent", "reaches": ["jobs"], "preemptionMode": "prevent"}
    return PlanDocument.read({"nodePools": [{"name": "jobs", "limits": limits}], "placement": {"profiles": [profile]}})


def test_a_rolled_pool_drains_at_most_its_node_limit():
    """limits.nodes is the group's maxSize: Karpenter never runs more nodes in the pool, so no more are drained."""
    rolled = [ResourceChange("urn:p", POOL, "nodepool-jobs", ROLL, ["spec.template.spec.requirements"])]
    (entry,) = node_pool_changes(doc({"cpu": "160", "nodes": "10"}), doc({"cpu": "160", "nodes": "10"}), rolled)
    assert entry["action"] == ROLL and entry["nodesAtMost"] == 10
    assert entry["displaced"][0]["workload"] == "mlrun-job-prevent" and "evicted" in entry["displaced"][0]
    (unbounded,) = node_pool_changes(doc({"cpu": "160"}), doc({"cpu": "160"}), rolled)
    assert unbounded["nodesAtMost"] is None  # a pool without a node limit: unknown, not zero
