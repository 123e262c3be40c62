"""The cost estimate against what the program creates (tests/core/model/cost/test_cost.py: the estimate alone)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.core.model.cost.test_cost import line, stack_cost
from tests.runs import shipped_run


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_nat_gateways_are_counted_as_the_program_creates_them(stack):
    created = len(shipped_run(stack).of_type("aws:ec2/natGateway:NatGateway"))
    cost = stack_cost(stack)
    assert line(cost, "NAT gateways").quantity.min == created == {"dev": 1, "prod": 3}[stack]
    assert line(cost, "NAT gateways' public IPv4 addresses").quantity.min == created
    # us-east-1: the Amazon VPC pricing page's dated facts (aws-pricing-pages), per gateway and per address
    assert line(cost, "NAT gateways").price.usd_per_hour == Decimal("0.045")
    assert line(cost, "NAT gateways' public IPv4 addresses").price.usd_per_hour == Decimal("0.005")
    assert "0.045 USD per GB processed" in line(cost, "NAT gateways").note  # billed by use: named, not added
    assert "NAT gateways" not in cost.idle_floor.unknown
