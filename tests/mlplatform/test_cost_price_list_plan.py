"""`mlplatform plan` of a stack in a region an AWS Price List offer file priced: the cost table and `--json`
carry its node groups, NAT gateways, root volumes and KMS key (a snapshot generated from the hand-made offer
files in tests/data/price_list/, read in place of the shipped one)."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

from mlplatform.cli import main
from mlplatform_core.model import eks_versions
from mlplatform_core.model.cost import prices
from tests.conftest import ROOT
from tests.scripts.test_generators import _prices, load

OFFERS = ROOT / "tests" / "data" / "price_list"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("prices")
    files = [str(OFFERS / "AmazonEC2-eu-west-1.json"), str(OFFERS / "awskms-eu-west-1.json")]
    assert load("generate_prices").main([*_prices(tmp), "--price-list", *files]) == 0
    return (tmp / "prices.json").read_text()


@pytest.fixture
def eu_stack(monkeypatch, generated, tmp_path):
    monkeypatch.setattr(eks_versions, "today", lambda: datetime.date(2026, 11, 22))
    monkeypatch.setattr(prices, "_snapshot", lambda: prices.read_snapshot(generated))
    path = tmp_path / "Pulumi.eu.yaml"
    dev = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    path.write_text(dev.replace("aws:region: us-east-1", "aws:region: eu-west-1"))
    return path


def test_plan_json_prices_the_whole_stack_but_its_public_addresses(eu_stack, capsys):
    assert main(["plan", "--config-file", str(eu_stack), "--json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    lines = {x["name"]: x for x in cost["lines"]}
    assert lines["NAT gateways"]["unitPrice"]["usd"] == 0.048
    assert lines["NAT gateways"]["usdPerMonth"]["min"] == 35.04  # 1 gateway x 0.048 x 730
    ebs = lines["nodes' root volumes (EBS)"]
    assert ebs["unitPrice"]["usd"] == 0.088 and ebs["unitPrice"]["per"] == "GiB-month"
    assert ebs["usdPerMonth"]["min"] == float(Decimal(ebs["quantity"]["min"]) * Decimal("0.088"))
    assert lines["secrets encryption key (KMS)"]["usdPerMonth"] == {"min": 1.0, "desired": 1.0, "max": 1.0}
    assert all(x["unitPrice"]["usd"] is not None for x in cost["lines"] if x["unit"] == "node")
    floor = cost["totals"]["idleFloor"]
    assert floor["unknown"] == ["NAT gateways' public IPv4 addresses"] and floor["lowerBound"]
    assert "eu-west-1" in cost["prices"]["regions"]
    assert {"aws-price-list-ec2", "aws-price-list-kms"} <= {s["role"] for s in cost["prices"]["source"]}


def test_plan_table_shows_the_priced_lines(eu_stack, capsys):
    assert main(["plan", "--config-file", str(eu_stack)]) == 0
    out = capsys.readouterr().out
    assert "eu-west-1, on-demand prices as of 2026-11-20" in out
    assert "NAT gateways' public IPv4 addresses: no public IPv4 address-hour price for eu-west-1" in out
    assert "NAT gateways: no NAT gateway-hour price" not in out
    # Monthly prices say so, and what a line's price leaves out is printed under the table.
    assert "0.088 / GiB-month" in out and "1.00 / key-month" in out
    assert "NAT gateways: plus 0.052 USD per GB processed" in out
    assert "secrets encryption key (KMS): the key rotates yearly" in out
