"""The GPU-capacity, node-health and Pod Identity rules (mlplatform_policies/gpu_capacity.py)."""

from __future__ import annotations

import json

import pytest

from tests.policies.variants import NG, assert_rule_case, edit, set_at

ROLE = "aws:iam/role:Role"
UNSCOPED = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "pods.eks.amazonaws.com"},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
            }
        ],
    }
)


def _block(props: dict) -> None:
    props["capacityType"] = "CAPACITY_BLOCK"
    props["scalingConfig"]["minSize"] = 1


CASES = [
    (
        "node-auto-repair",
        "dev",
        lambda r: edit(r, NG, "jobs", set_at(["nodeRepairConfig", "enabled"], False)),
        "advisory",
    ),
    ("capacity-block-scales-to-zero", "prod", lambda r: edit(r, NG, "gpu", _block), "mandatory"),
    (
        "pod-identity-trust-scoped",
        "dev",
        lambda r: edit(r, ROLE, "platform-autoscaler", set_at(["assumeRolePolicy"], UNSCOPED)),
        "mandatory",
    ),
]


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)
