"""`mlplatform plan` shows what a stack costs: the cost table with its idle floor and ceiling, and `--json`'s `cost`."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

from mlplatform.cli import main
from mlplatform_core.model import eks_versions
from tests.conftest import ROOT

DAY = datetime.date(2026, 11, 22)
ROWS = json.loads((ROOT / "mlplatform_core" / "data" / "prices.json").read_text())["on_demand_usd_per_hour"]


@pytest.fixture(autouse=True)
def on_day(monkeypatch):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)


def usd(instance_type: str) -> Decimal:
    return Decimal(str(ROWS[instance_type]["us-east-1"]))


def monthly(per_hour: Decimal) -> str:
    return f"{(per_hour * 730).quantize(Decimal('0.01')):,}"


def plan(capsys, *argv) -> str:
    assert main(["plan", *argv]) == 0
    return capsys.readouterr().out


# The shipped stacks at their min and max (README: "What a stack costs"): the control plane plus the groups.
EXPECTED = {
    "dev": (
        Decimal("0.1") + 2 * usd("m5.xlarge") + 2 * usd("m5.2xlarge"),
        Decimal("0.1")
        + 2 * usd("m5.xlarge")
        + 15 * usd("m5.2xlarge")
        + 10 * max(usd(t) for t in ("m5.2xlarge", "m5a.2xlarge", "m5d.2xlarge", "m6i.2xlarge"))
        + 4 * usd("g5.xlarge"),
    ),
    "prod": (
        Decimal("0.1") + 3 * usd("m5.2xlarge") + 2 * usd("m5.4xlarge"),
        Decimal("0.1") + 3 * usd("m5.2xlarge") + 20 * usd("m5.4xlarge") + 8 * usd("g5.2xlarge"),
    ),
}


# What the stacks create besides nodes, priced in us-east-1 by the pricing pages' dated facts: NAT gateways and
# their public IPv4 addresses per hour, gp3 root volumes per GiB-month (min, max) and one KMS key per month.
NETWORK = {"dev": (1, 400, 3500), "prod": (3, 500, 3900)}


def with_network(stack: str) -> tuple[Decimal, Decimal]:
    nats, gib_min, gib_max = NETWORK[stack]
    fixed = nats * (Decimal("0.045") + Decimal("0.005")) + Decimal(1) / 730
    floor, ceiling = EXPECTED[stack]
    return floor + fixed + gib_min * Decimal("0.08") / 730, ceiling + fixed + gib_max * Decimal("0.08") / 730


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_plan_prints_the_idle_floor_and_the_ceiling(capsys, stack, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    out = plan(capsys, stack)
    floor, ceiling = with_network(stack)
    assert "Cost (USD per month of 730 h; us-east-1, on-demand prices as of 2026-07-20)" in out
    # Exact: the control plane, every group, NAT gateways, public IPv4, EBS and KMS all have a price here.
    assert f"idle floor {monthly(floor)} USD/month" in out and "idle floor >=" not in out
    assert f"ceiling {monthly(ceiling)} USD/month" in out
    assert "0.045 / gateway-hour" in out and "0.005 / address-hour" in out
    assert "not included: data transfer" in out


def test_plan_says_spot_is_priced_at_on_demand(capsys):
    out = plan(capsys, "dev")
    assert "m5d.2xlarge on-demand, an upper bound for spot" in out
    assert "<= : node group spot: m5d.2xlarge on-demand, an upper bound for spot (the data has no spot prices)" in out


def test_karpenter_pools_are_upper_bounds_for_the_types_they_may_launch_not_for_spot(capsys):
    out = plan(capsys, "dev-karpenter")
    assert "<= : node pool jobs: m5.4xlarge on-demand, the highest of its types\n" in out
    assert "<= : node pool spot: m7i.4xlarge on-demand, an upper bound for spot (the data has no spot prices)" in out
    assert "node pool jobs: m5.4xlarge on-demand, the highest of its types (the data has no spot prices)" not in out


def test_unit_prices_name_their_period(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    out = plan(capsys, "dev")
    assert "0.192 / node-hour" in out and "0.10 / cluster-hour" in out and "USD per unit" in out


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_plan_json_carries_the_cost_with_units_and_the_price_date(capsys, stack):
    doc = json.loads(plan(capsys, stack, "--json"))
    cost = doc["cost"]
    assert cost["currency"] == "USD" and cost["hoursPerMonth"] == 730 and cost["units"]["usdPerMonth"]
    assert cost["prices"]["date"] == "2026-07-20" and cost["region"] == "us-east-1" and cost["on"] == "2026-11-22"
    assert {s["role"] for s in cost["prices"]["source"]} >= {"karpenter-prices-aws", "eks-control-plane-pricing"}
    groups = {x["name"]: x for x in cost["lines"] if x["unit"] == "node"}
    assert list(groups) == [g["name"] for g in doc["nodeGroups"]]  # every group the program creates, in order
    for g in doc["nodeGroups"]:
        line = groups[g["name"]]
        assert line["quantity"] == {"min": g["minSize"], "desired": g["desiredSize"], "max": g["maxSize"]}
        assert line["instanceTypes"] == g["instanceTypes"]
        price = Decimal(str(line["unitPrice"]["usd"]))
        assert line["usdPerMonth"] == {
            k: float((price * n * 730).quantize(Decimal("0.01"))) for k, n in line["quantity"].items()
        }
    floor, ceiling = with_network(stack)
    totals = cost["totals"]
    assert totals["idleFloor"]["usdPerMonth"] == float((floor * 730).quantize(Decimal("0.01")))
    assert totals["ceiling"]["usdPerMonth"] == float((ceiling * 730).quantize(Decimal("0.01")))
    assert not totals["idleFloor"]["lowerBound"] and totals["idleFloor"]["unknown"] == []
    nat = next(x for x in cost["lines"] if x["kind"] == "NAT gateway")
    assert nat["unitPrice"]["usd"] == 0.045 and nat["usdPerMonth"]["min"] == round(0.045 * 730 * NETWORK[stack][0], 2)
    pages = [s for s in cost["prices"]["source"] if s["role"] == "aws-pricing-pages"]
    assert {s["url"] for s in pages} >= {"https://aws.amazon.com/vpc/pricing/", "https://aws.amazon.com/ebs/pricing/"}


def test_plan_json_control_plane_follows_the_kubernetes_version(tmp_path, capsys):
    src = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    path = tmp_path / "Pulumi.old.yaml"
    path.write_text(src.replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.33"'))
    old = json.loads(plan(capsys, "--config-file", str(path), "--json"))["cost"]
    new = json.loads(plan(capsys, "dev", "--json"))["cost"]
    cp_old, cp_new = (next(x for x in c["lines"] if x["kind"] == "EKS control plane") for c in (old, new))
    assert cp_new["usdPerMonth"]["min"] == 73.0 and cp_old["usdPerMonth"]["min"] == 438.0
    assert "extended support" in cp_old["unitPrice"]["basis"]
    assert old["totals"]["idleFloor"]["usdPerMonth"] - new["totals"]["idleFloor"]["usdPerMonth"] == pytest.approx(365)


def test_plan_in_a_region_without_prices_reports_unknown(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    src = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    path = tmp_path / "Pulumi.eu.yaml"
    path.write_text(src.replace("aws:region: us-east-1", "aws:region: eu-west-1"))
    out = plan(capsys, "--config-file", str(path))
    assert "eu-west-1: no EC2 prices in the snapshot" in out
    assert (
        "node group initial, node group jupyter, node group jobs, node group spot, node group gpu: no EC2 prices" in out
    )
    assert "idle floor >= 73.00 USD/month" in out
