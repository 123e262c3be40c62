"""The add-on and storage rules (mlplatform_policies/addons.py) on the shipped stacks and broken variants."""

from __future__ import annotations

import pytest

from tests.policies.variants import SC, assert_rule_case, edit, set_at


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level); a function so the runs happen inside the tests.
    yield (
        "eks-addons-preserved",
        prod,
        lambda r: edit(r, "aws:eks/addon:Addon", "platform-coredns", set_at(["preserve"], False)),
        "mandatory",
    )
    yield (
        "ebs-storage-classes-encrypted",
        dev,
        lambda r: edit(r, SC, None, set_at(["parameters", "encrypted"], "false")),
        "mandatory",
    )


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)
