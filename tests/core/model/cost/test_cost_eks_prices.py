"""The EKS charges beyond the commercial control plane: the Auto Mode management fee per NodePool and instance
type, the control plane per region (GovCloud, China in CNY) from AmazonEKS offer files, and what stays unknown
in the shipped snapshot, which has none of those files: never a number from another region or partition.

The generated snapshot is written by scripts/generators/generate_prices.py from the hand-made offer files in
tests/data/price_list/ (invented prices in AWS's format) and read by the toolkit's loader in place of the
shipped one.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import parse
from mlplatform_core.model.cost import estimate, prices
from mlplatform_core.model.cost.auto_mode_fee import AUTO_MODE_FEE
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.regions import known_regions
from tests.conftest import ROOT, stack_config
from tests.scripts.test_generators import _prices, load

DAY = datetime.date(2026, 11, 22)  # Kubernetes 1.35 in standard support, 1.33 in extended support
OFFERS = ROOT / "tests" / "data" / "price_list"
FILES = ("AmazonEC2-eu-west-1.json", "awskms-eu-west-1.json", "AmazonEKS-eu-west-1.json", "AmazonEKS-cn-north-1.json")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("prices")
    assert load("generate_prices").main([*_prices(tmp), "--price-list", *(str(OFFERS / f) for f in FILES)]) == 0
    return (tmp / "prices.json").read_text()


@pytest.fixture
def with_offer_files(monkeypatch, generated):
    monkeypatch.setattr(prices, "_snapshot", lambda: prices.read_snapshot(generated))


@pytest.fixture(autouse=True)
def on_day(monkeypatch):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)


def stack_cost(stack: str, region: str, **settings: object):
    raw = stack_config(stack)
    raw["aws:region"] = region
    raw.update({f"ml-platform-eks:{k}": v for k, v in settings.items()})
    if region.startswith("cn-"):  # China stacks mirror the add-ons' images (docs/addons.md, "China")
        raw.setdefault("ml-platform-eks:imageRegistry", f"111122223333.dkr.ecr.{region}.amazonaws.com.cn/mirror")
    cfg = parse(raw)
    return estimate(cfg, build_layout(cfg, stack))


def fees(cost) -> dict[str, object]:
    return {x.name.removeprefix(f"{AUTO_MODE_FEE}, NodePool "): x for x in cost.lines if x.kind == AUTO_MODE_FEE}


# --- the Auto Mode fee ------------------------------------------------------------------------------


def test_auto_mode_pools_pay_the_fee_of_their_types_on_top_of_the_instances(with_offer_files):
    cost = stack_cost("dev-automode", "eu-west-1")
    fee = fees(cost)
    assert set(fee) == {"jupyter", "jobs", "spot", "gpu"}
    # one type: its fee; several: the highest, an upper bound like the pool's nodes
    assert fee["jupyter"].price.usd_per_hour == Decimal("0.0514") and fee["jupyter"].quantity == (0, 0, 5)
    assert fee["jobs"].price.usd_per_hour == Decimal("0.1027") and fee["jobs"].bound == "upper"
    assert fee["gpu"].price.usd_per_hour == Decimal("0.1624")
    assert "AmazonEKS, price list of 2026-11-18" in fee["jupyter"].basis and "NodePool jupyter" in fee["jupyter"].note
    # the spot pool may launch types the file has no fee for: no bound while one is unpriced (a spot
    # instance pays the fee too: the price list has one fee per type, whatever the purchase option)
    assert not fee["spot"].price.known and "no upper bound while a type is unpriced" in fee["spot"].price.reason
    # counted in the ceiling: each pool's nodes at the max times their fee
    ceiling = cost.total("max")
    assert "EKS Auto Mode fee, NodePool jupyter" not in ceiling.unknown
    assert "EKS Auto Mode fee, NodePool spot" in ceiling.unknown
    without = sum((x.usd_per_hour("max") or 0) for x in cost.lines if x.kind != AUTO_MODE_FEE)
    fee_sum = sum(fee[p].usd_per_hour("max") for p in ("jupyter", "jobs", "gpu"))
    assert fee_sum == 5 * Decimal("0.0514") + 10 * Decimal("0.1027") + 4 * Decimal("0.1624")
    assert ceiling.usd_per_hour == without + fee_sum


def test_a_region_without_the_fee_names_the_missing_source_and_borrows_no_other_regions():
    # the shipped snapshot: no AmazonEKS offer file, so us-east-1's fee is unknown, not guessed from EC2 prices
    cost = stack_cost("dev-automode", "us-east-1")
    for name, line in fees(cost).items():
        assert not line.price.known, name
        assert "AmazonEKS" in line.price.reason and "--prices live" in line.price.reason
        assert line.usd_per_hour("min") == 0  # no nodes at the idle floor: nothing owed, known or not
    assert "EKS Auto Mode fee, NodePool gpu" in cost.ceiling.unknown and cost.ceiling.lower_bound


def test_only_auto_mode_stacks_pay_the_fee(with_offer_files):
    assert fees(stack_cost("dev-karpenter", "eu-west-1")) == {} and fees(stack_cost("dev", "eu-west-1")) == {}


def test_a_china_fee_stays_in_cny(with_offer_files):
    fee = fees(stack_cost("dev-automode", "cn-north-1"))["jupyter"]
    assert fee.price.usd_per_hour is None and fee.price.other == ("CNY", Decimal("0.3129"))


# --- the control plane per region and partition ------------------------------------------------------


def test_an_eks_offer_file_prices_the_control_plane_of_its_region(with_offer_files):
    standard = next(x for x in stack_cost("dev", "eu-west-1").lines if x.name == "EKS control plane")
    assert standard.price.usd_per_hour == Decimal("0.11")  # the region's own row, not the statement's 0.10
    extended = stack_cost("dev", "eu-west-1", kubernetesVersion="1.33")
    line = next(x for x in extended.lines if x.name == "EKS control plane")
    assert line.price.usd_per_hour == Decimal("0.66")  # extended support bills its charge on top of the hour


def test_china_prices_the_control_plane_in_cny_never_in_usd(with_offer_files):
    cost = stack_cost("dev", "cn-north-1")
    plane = next(x for x in cost.lines if x.name == "EKS control plane")
    assert plane.price.usd_per_hour is None and plane.price.other == ("CNY", Decimal("0.688"))
    assert "EKS control plane" in cost.idle_floor.unknown  # not in the USD total
    # the generated snapshot has no CNY EC2 table (Karpenter's cn table is not given): the plane alone, in CNY
    assert cost.other_currencies("min") == {"CNY": Decimal("0.688")}


@pytest.mark.parametrize("region", ["us-gov-west-1", "us-gov-east-1", "cn-north-1", "cn-northwest-1"])
def test_govcloud_and_china_say_which_price_list_is_missing(region):
    cost = stack_cost("dev", region)
    by_name = {x.name: x for x in cost.lines}
    plane = by_name["EKS control plane"]
    assert not plane.price.known and plane.price.other is None  # the commercial 0.10 is not their price
    partition = "GovCloud" if region.startswith("us-gov") else "China"
    assert partition in plane.price.reason and "AmazonEKS offer file" in plane.price.reason
    for name in ("NAT gateways", "NAT gateways' public IPv4 addresses", "nodes' root volumes (EBS)"):
        line = by_name[name]
        assert not line.price.known and f"for {region}" in line.price.reason and "us-east-1" in line.price.reason
    assert by_name["secrets encryption key (KMS)"].price.reason.startswith(f"no KMS key-month price for {region}")
    if partition == "China":  # the us-east-1 Price List API has no China prices: only China offer files
        assert "offers/v1.0/cn" in by_name["NAT gateways"].price.reason
    else:
        assert "--prices live" in by_name["NAT gateways"].price.reason


# --- EC2 in every commercial region -------------------------------------------------------------------


def test_every_commercial_region_without_prices_says_so_and_never_shows_another_regions_price():
    priced = set(prices.priced_regions())
    commercial = sorted(r for r, p in known_regions().items() if p == "aws" and r not in priced)
    assert len(commercial) > 25  # the region data knows them all (botocore's endpoints)
    us_east_1 = prices.on_demand("us-east-1", "m5.xlarge")
    for region in commercial:
        price = prices.on_demand(region, "m5.xlarge")
        assert price.usd_per_hour is None and price.other is None, region
        assert f"no EC2 prices for {region} in the price snapshot" in price.reason
        assert "--price-list" in price.reason  # where the prices would come from
        assert price != us_east_1


def test_a_china_pool_of_several_types_is_bounded_by_its_dearest_type_in_cny():
    # the shipped snapshot's cn-north-1 table (CNY): a pool may launch either type, so the dearest, in CNY
    cost = stack_cost("dev-automode", "cn-north-1")
    jobs = next(x for x in cost.lines if x.label == "node pool jobs")  # m5.2xlarge, m5.4xlarge
    assert jobs.price.usd_per_hour is None and jobs.bound == "upper"
    assert jobs.price.other == ("CNY", Decimal("8.106"))  # m5.4xlarge; never converted to USD
    assert cost.other_currencies("max")["CNY"] >= 10 * Decimal("8.106")
