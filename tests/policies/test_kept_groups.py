"""The pack and the plan agree on which node groups the Cluster Autoscaler scales: a group of several sizes in a
stack that runs it. A migration to Karpenter or Auto Mode keeps the managed node groups (keepNodeGroups) but runs
no autoscaler, so the kept groups need none of its scale-from-zero tags (docs/karpenter.md step 1)."""

from __future__ import annotations

import pytest

from mlplatform.check import policy_resources
from mlplatform.engine import run_stack
from mlplatform.reports.plan_document import node_groups
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_policies.rule import load_rules
from tests.conftest import stack_config
from tests.policies.variants import DEV_POLICY_CONFIG, TAG, evaluate

RULE = "autoscaler-asg-tags"
STACKS = {
    "nodeGroups": {},
    "karpenter, keepNodeGroups": {"provisioner": "karpenter", "karpenter": {"keepNodeGroups": True}},
    "autoMode, keepNodeGroups": {"provisioner": "autoMode", "autoMode": {"keepNodeGroups": True}},
}


def _flagged(resources) -> set[str]:
    """The groups the rule takes for autoscaled: with every ASG Tag resource gone, those it says lack tags."""
    untagged = [r for r in resources if r.type != TAG]
    found = [v for v in evaluate(untagged, DEV_POLICY_CONFIG) if v.policy == RULE and "is autoscaled" in v.message]
    return {v.resource_name for v in found}


@pytest.mark.parametrize("edits", STACKS.values(), ids=STACKS.keys())
def test_the_pack_reads_autoscaled_as_the_plan_does(edits):
    raw = stack_config("dev")
    raw.update({f"ml-platform-eks:{k}": v for k, v in edits.items()})
    run = run_stack("dev", raw)
    layout = build_layout(parse(raw), "dev")
    planned = {g.name for g in node_groups(run, autoscaler=layout.runs_cluster_autoscaler) if g.autoscaled}
    assert planned == (set() if edits else {"jupyter", "jobs", "spot", "gpu"})
    resources = policy_resources(run)
    assert RULE not in {v.policy for v in evaluate(resources, DEV_POLICY_CONFIG)}
    assert _flagged(resources) == planned
    # The split stack's cluster program, as `pulumi preview --policy-pack` sees it alone: the node groups are
    # there, the autoscaler (or its absence) is in the Kubernetes layer; what provisions instead is marked here.
    (cluster,) = [p for p in run.programs if any(r.type == "aws:eks/nodeGroup:NodeGroup" for r in p.resources)]
    assert _flagged(policy_resources(cluster)) == planned


def test_the_remediation_names_what_a_stack_file_sets():
    (rule,) = [r for r in load_rules() if r.name == RULE]
    assert "nodeGroups" in rule.remediation and "minSize = maxSize" in rule.remediation
    assert "mlplatform_program" not in rule.remediation and "components." not in rule.remediation
