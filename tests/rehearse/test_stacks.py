"""Every AWS resource of every shipped stack, example and partition variant, replayed against moto.

The replay creates each resource as pulumi-aws would call the API (mlplatform/rehearsal), in dependency order
with the real ids moto answers; a refused call, an unmapped AWS type, an input the mapping does not send or an
unresolved reference fails the stack, with every failure named.
"""

from __future__ import annotations

from unittest import mock

import pytest

from mlplatform.rehearsal import NOT_IMPLEMENTED
from mlplatform.rehearsal.gaps import NOT_AWS_PREFIXES
from tests.mlplatform.test_partitions import CASES, planned

from .conftest import EXAMPLES, SHIPPED, plan_run, rehearse

pytestmark = pytest.mark.rehearse


def aws_resources(run) -> list:
    return [r for r in run.resources if r.custom and not r.type.startswith(NOT_AWS_PREFIXES)]


def check(result, run) -> None:
    assert result.ok, "\n" + result.summary()
    # Every AWS resource was created, or (a type moto lacks) its request built and validated: none left out.
    handled = sum(result.created.values()) + sum(result.validated_only.values())
    assert handled == len(aws_resources(run)), result.summary()
    assert set(result.validated_only) <= set(NOT_IMPLEMENTED)


@pytest.mark.parametrize("stack", SHIPPED + EXAMPLES)
def test_every_aws_resource_of_the_stack_replays(endpoint, stack):
    run = plan_run(stack)
    check(rehearse(endpoint, run), run)


# moto's cn-north-1 has two zones (cn-north-1a, cn-north-1b) where AWS has three (a, b, d), and the stacks spread
# over three: the China variants replay in cn-northwest-1, whose three zones moto has as AWS does (a, b, c).
MOTO_REGION = {"cn-north-1": "cn-northwest-1"}


def variant(case: str):
    """tests/mlplatform/test_partitions.py's variant, built the same way, in the region moto can hold it in."""
    stack, region, partition, extra = CASES[case]
    with mock.patch.dict(CASES, {case: (stack, MOTO_REGION.get(region, region), partition, extra)}):
        return planned.__wrapped__(case)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_partition_variant_replays(endpoint, case):
    """GovCloud and China: moto answers in the partition's ARNs and has AWS's managed policies there too."""
    run = variant(case)
    result = rehearse(endpoint, run, label=case)
    check(result, run)
    partition = CASES[case][2]
    attached = [c.params["PolicyArn"] for c in result.calls if c.operation == "AttachRolePolicy"]
    assert attached and all(a.startswith(f"arn:{partition}:iam::aws:policy/") for a in attached)
