"""A snapshot generated with AWS Price List offer files prices a stack in their region: its node groups, NAT
gateways, root volumes and KMS key; what the files do not price stays unknown with the reason.

The snapshot is written by scripts/generators/generate_prices.py from the hand-made offer files in
tests/data/price_list/ (invented prices in AWS's format) and read by the toolkit's own loader in place of the shipped
one.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import parse
from mlplatform_core.model.cost import HOURS_PER_MONTH, estimate, prices
from mlplatform_core.model.layout import build_layout
from tests.conftest import ROOT, stack_config
from tests.scripts.test_generators import _prices, load

DAY = datetime.date(2026, 11, 22)
OFFERS = ROOT / "tests" / "data" / "price_list"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("prices")
    files = [str(OFFERS / "AmazonEC2-eu-west-1.json"), str(OFFERS / "awskms-eu-west-1.json")]
    assert load("generate_prices").main([*_prices(tmp), "--price-list", *files]) == 0
    return (tmp / "prices.json").read_text()


@pytest.fixture(autouse=True)
def snapshot(monkeypatch, generated):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)
    monkeypatch.setattr(prices, "_snapshot", lambda: prices.read_snapshot(generated))
    return json.loads(generated, parse_float=Decimal)


def stack_cost(stack: str, region: str = "eu-west-1"):
    raw = stack_config(stack)
    raw["aws:region"] = region
    cfg = parse(raw)
    return estimate(cfg, build_layout(cfg, stack))


def line(cost, label: str):
    return next(x for x in cost.lines if x.label == label)


def test_node_groups_in_the_offer_files_region_are_priced_from_its_rows(snapshot):
    rows = snapshot["on_demand_usd_per_hour"]
    cost = stack_cost("dev")
    for group in cost.groups:
        assert group.price.known, group.label
    initial = line(cost, "node group initial")  # 2 x m5.xlarge
    assert initial.price.usd_per_hour == rows["m5.xlarge"]["eu-west-1"] == Decimal("0.214")
    spot = line(cost, "node group spot")  # the dearest of its types, an upper bound
    assert spot.price.usd_per_hour == max(rows[t]["eu-west-1"] for t in spot.instance_types) == Decimal("0.504")
    assert prices.prices_date("eu-west-1") == "2026-11-20" and prices.prices_date("us-east-1") == "2026-07-20"


@pytest.mark.parametrize(("stack", "gateways"), [("dev", 1), ("prod", 3)])
def test_nat_gateways_ebs_and_the_kms_key_are_priced_where_the_files_price_them(snapshot, stack, gateways):
    charges = snapshot["charges"]["regions"]["eu-west-1"]
    cost = stack_cost(stack)
    nat = line(cost, "NAT gateways")
    assert nat.quantity.min == gateways and nat.price.usd_per_hour == charges["nat_gateway_hour"]
    assert nat.usd_per_hour("min") == gateways * Decimal("0.048")
    assert "plus 0.052 USD per GB processed" in nat.note  # billed by use: named, not added
    ebs = line(cost, "nodes' root volumes (EBS)")
    assert ebs.per == "GiB-month" and ebs.price.usd_per_hour == charges["ebs_gp3_gb_month"] == Decimal("0.088")
    for size in ("min", "max"):  # a GiB-month price spread over the month's hours
        gib = getattr(ebs.quantity, size)
        assert (ebs.usd_per_hour(size) * HOURS_PER_MONTH).quantize(Decimal("0.000001")) == gib * Decimal("0.088")
    kms = line(cost, "secrets encryption key (KMS)")
    assert (kms.usd_per_hour("min") * HOURS_PER_MONTH).quantize(Decimal("0.000001")) == Decimal("1")
    assert "rotates" in kms.note
    # Only the public IPv4 addresses stay unpriced: the floor is a lower bound because of them alone.
    floor = cost.idle_floor
    assert floor.unknown == ("NAT gateways' public IPv4 addresses",)
    priced = [x for x in cost.lines if x.price.known]
    assert floor.usd_per_hour == sum(x.usd_per_hour("min") for x in priced)


def test_the_floor_adds_what_the_shipped_snapshot_left_unknown(snapshot):
    cost = stack_cost("dev")
    groups = sum(g.usd_per_hour("min") for g in cost.groups)
    ebs_gib = line(cost, "nodes' root volumes (EBS)").quantity.min
    expected_month = (Decimal("0.1") + groups + Decimal("0.048")) * HOURS_PER_MONTH + ebs_gib * Decimal("0.088") + 1
    assert cost.idle_floor.usd_per_month.quantize(Decimal("0.01")) == expected_month.quantize(Decimal("0.01"))


def test_a_region_without_offer_files_stays_unknown_and_says_where_prices_are(snapshot):
    # GovCloud: instances priced by Karpenter's table; no offer file and no pricing page's fact for the rest
    cost = stack_cost("dev", region="us-gov-west-1")
    assert line(cost, "node group initial").price.known
    nat = line(cost, "NAT gateways")
    assert not nat.price.known and nat.note is None
    assert nat.price.reason.startswith(
        "no NAT gateway-hour price for us-gov-west-1 in the price snapshot (it has eu-west-1, us-east-1)"
    )
    assert "AWS Price List offer file (AmazonEC2)" in nat.price.reason
    kms = line(cost, "secrets encryption key (KMS)")
    assert not kms.price.known and "awskms" in kms.price.reason and kms.note is None
    assert {"NAT gateways", "nodes' root volumes (EBS)", "secrets encryption key (KMS)"} <= set(cost.idle_floor.unknown)
    other = stack_cost("dev", region="ap-southeast-2")  # in no source at all
    assert not line(other, "node group initial").price.known
    assert "eu-west-1" in line(other, "node group initial").price.reason
