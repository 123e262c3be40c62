"""The node-group layout rules (mlplatform_policies/layout.py) on the shipped stacks and broken variants."""

from __future__ import annotations

import pytest

from tests.conftest import stack_config
from tests.policies.variants import (
    DELETE,
    DEV_POLICY_CONFIG,
    NG,
    TAG,
    assert_rule_case,
    configured,
    drop,
    edit,
    evaluate,
    mandatory,
    messages,
    set_at,
    shipped,
)

PROD_SPOT_WORKLOAD = {
    "nodeGroups": {
        **stack_config("prod")["ml-platform-eks:nodeGroups"],
        "workload": {"instanceTypes": ["m5.4xlarge"], "minSize": 2, "maxSize": 20, "capacityType": "SPOT"},
    }
}


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level); a function so the runs happen inside the tests.
    yield "initial-node-group", prod, lambda r: edit(r, NG, "initial", set_at(["capacityType"], "SPOT")), "mandatory"
    yield (
        "node-lifecycle-label",
        dev,
        lambda r: edit(r, NG, "jobs", set_at(["labels", "app.iguazio.com/lifecycle"], "preemptible")),
        "mandatory",
    )
    yield "spot-node-taint", dev, lambda r: edit(r, NG, "spot", set_at(["taints"], [])), "mandatory"
    yield (
        "gpu-node-group-dedicated",
        prod,
        lambda r: edit(r, NG, "gpu", set_at(["amiType"], "AL2023_x86_64_STANDARD")),
        "mandatory",
    )
    yield (
        "gpu-types-only-in-gpu-groups",
        dev,
        lambda r: edit(r, NG, "jobs", set_at(["instanceTypes"], ["m5.2xlarge", "g5.2xlarge"])),
        "mandatory",
    )
    yield (
        "node-group-scaling-bounds",
        dev,
        lambda r: edit(r, NG, "jobs", set_at(["scalingConfig"], {"minSize": 4, "maxSize": 3, "desiredSize": 3})),
        "mandatory",
    )
    yield "autoscaled-desired-size-ignored", prod, lambda r: edit(r, NG, "workload", ignore_changes=()), "mandatory"
    yield (
        "autoscaler-asg-tags",
        dev,
        lambda r: drop(
            r, TAG, lambda t: t.name == "gpu-asg-k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"
        ),
        "mandatory",
    )
    yield (
        "gpu-accelerator-label",
        prod,
        lambda r: edit(r, NG, "gpu", set_at(["labels", "k8s.amazonaws.com/accelerator"], DELETE)),
        "mandatory",
    )
    yield (
        "no-dev-groups-in-prod",
        prod,
        lambda r: edit(r, NG, "workload", set_at(["labels", "mlplatform.io/node-role"], "jupyter")),
        "mandatory",
    )
    yield "prod-workload-on-demand", prod, lambda r: configured(prod, **PROD_SPOT_WORKLOAD), "advisory"


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


def test_initial_group_rule_names_each_broken_property():
    broken = edit(
        shipped("prod"),
        NG,
        "initial",
        lambda p: (
            p.update(capacityType="SPOT", taints=[]),
            p["scalingConfig"].update(minSize=1, maxSize=3, desiredSize=1),
        ),
    )
    text = messages(evaluate(broken), "initial-node-group")
    assert "must be ON_DEMAND" in text and "must be static" in text
    assert "needs at least 2" in text and "CriticalAddonsOnly" in text


def test_initial_group_minimum_follows_the_environment_and_the_policy_config():
    one_node = configured(
        "dev",
        nodeGroups={
            **stack_config("dev")["ml-platform-eks:nodeGroups"],
            "initial": {"instanceTypes": ["m5.xlarge"], "minSize": 1, "maxSize": 1, "desiredSize": 1},
        },
    )
    assert "initial-node-group" not in mandatory(evaluate(one_node, DEV_POLICY_CONFIG))  # 1 is enough in dev
    stricter = {**DEV_POLICY_CONFIG, "initial-node-group": {"minNodes": 2}}
    assert "initial-node-group" in mandatory(evaluate(one_node, stricter))


def test_missing_initial_group_is_reported():
    no_initial = edit(shipped("dev"), NG, "initial", set_at(["labels", "mlplatform.io/node-role"], "core"))
    assert "no node group is labelled" in messages(evaluate(no_initial, DEV_POLICY_CONFIG), "initial-node-group")


@pytest.mark.parametrize("role,flagged", [("jobs", True), ("jupyter", True), ("nightly-jobs", False)])
def test_prod_refuses_the_dev_layouts_roles(role, flagged):
    relabelled = edit(shipped("prod"), NG, "workload", set_at(["labels", "mlplatform.io/node-role"], role))
    assert ("no-dev-groups-in-prod" in mandatory(evaluate(relabelled))) is flagged


def test_dev_group_names_are_matched_by_word():
    def renamed(role: str):
        return edit(shipped("prod"), NG, "workload", set_at(["labels", "mlplatform.io/node-role"], role))

    assert "no-dev-groups-in-prod" in mandatory(evaluate(renamed("jupyter-gpu")))
    assert "no-dev-groups-in-prod" not in mandatory(evaluate(renamed("devops")))
    # Dev clusters may have them.
    assert "no-dev-groups-in-prod" not in {v.policy for v in evaluate(shipped("dev"), DEV_POLICY_CONFIG)}
