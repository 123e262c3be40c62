"""The AWS Price List path of the price generator: what it takes from offer files and how it merges them.

The fixtures (tests/data/price_list/) are hand-made files in the offer-file format the AWS Billing user guide
documents ("Reading the service price list file for an AWS service"), written the way AWS writes them (one
key per line, a space either side of each colon); their prices are invented. Next to the rows the estimate
needs they hold the decoys the filter must reject: Windows, dedicated tenancy, SQL Server pre-installed,
a capacity reservation, a Local Zone, a zero rate, gp2 and gp3 IOPS rows, KMS requests and a reserved term.
"""

from __future__ import annotations

import gzip
import importlib
import io
import json
import shutil
import sys

import pytest

from tests.conftest import ROOT
from tests.scripts.test_generators import KARPENTER_PRICES, SCRIPTS, _prices, load

FIXTURES = ROOT / "tests" / "data" / "price_list"
EC2_FILE = FIXTURES / "AmazonEC2-eu-west-1.json"
KMS_FILE = FIXTURES / "awskms-eu-west-1.json"
SNAPSHOT = ROOT / "mlplatform_core" / "data" / "prices.json"

# What the fixture's eu-west-1 rows say, read by eye from the file: Linux, shared tenancy, nothing
# pre-installed, capacity in use, on demand; bare metal at dedicated tenancy (Karpenter's filter).
EU_WEST_1 = {
    "g5.2xlarge": 1.353,
    "g5.xlarge": 1.123,
    "m5.2xlarge": 0.428,
    "m5.4xlarge": 0.856,
    "m5.metal": 5.136,
    "m5.xlarge": 0.214,
    "m5a.2xlarge": 0.384,
    "m5d.2xlarge": 0.504,
    "m6i.2xlarge": 0.428,
}
EU_CHARGES = {"nat_gateway_hour": 0.048, "nat_gateway_gb": 0.052, "ebs_gp3_gb_month": 0.088, "kms_key_month": 1.0}


def script(name: str):
    """A module of scripts/lib imported by name, as the generator imports it (dataclasses need sys.modules)."""
    sys.path.insert(0, str(SCRIPTS / "lib"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(SCRIPTS / "lib"))


@pytest.fixture(scope="module")
def price_list():
    return script("price_list")


def test_an_ec2_offer_file_yields_linux_shared_on_demand_prices_and_the_charges(price_list):
    offer = price_list.read_offer(EC2_FILE)
    assert (offer.offer, offer.version) == ("AmazonEC2", "20261120000000")
    assert offer.publication_date == "2026-11-20T00:00:00Z"
    # m5.xlarge is also listed for Windows (0.398), dedicated (0.235), SQL Std (0.694), a capacity reservation
    # (0.199), a Local Zone (0.257) and a 1-year reservation (0.134): only the on-demand Linux row counts.
    assert offer.ec2 == {"eu-west-1": EU_WEST_1}
    assert "m5.large" not in offer.ec2["eu-west-1"]  # its only row has a zero rate: a placeholder, not a price
    # NAT in the Region (not the Local Zone's 0.061), gp3 storage (not gp2's 0.11, not gp3 IOPS).
    ec2_charges = ("nat_gateway_hour", "nat_gateway_gb", "ebs_gp3_gb_month")
    assert offer.charges == {"eu-west-1": {k: EU_CHARGES[k] for k in ec2_charges}}
    assert offer.url() == (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/20261120000000/eu-west-1/index.json"
    )


def test_a_kms_offer_file_yields_the_key_month_not_the_requests(price_list):
    offer = price_list.read_offer(KMS_FILE)
    assert (offer.offer, offer.ec2, offer.charges) == ("awskms", {}, {"eu-west-1": {"kms_key_month": 1.0}})


def test_a_gzipped_offer_file_reads_the_same(price_list, tmp_path):
    packed = tmp_path / "AmazonEC2-eu-west-1.json.gz"
    with EC2_FILE.open("rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)
    offer = price_list.read_offer(packed)
    assert (offer.ec2, offer.charges) == (price_list.read_offer(EC2_FILE).ec2, price_list.read_offer(EC2_FILE).charges)


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_the_streaming_reader_sees_what_a_whole_file_parse_sees(chunk):
    # Chunk boundaries fall inside keys, strings, numbers and whitespace: the walk must not notice.
    json_reader = script("json_reader")
    text = EC2_FILE.read_text() + " "
    text = text.replace('"disclaimer" :', '"numbers" : [1, -2.5e3, 1234567890123, true, null],\n  "disclaimer" :')
    reader = json_reader.Reader(io.StringIO(text), chunk=chunk)
    seen = {}
    for key in reader.members():
        if key == "terms":
            seen[key] = {}
            for term_type in reader.members():
                if term_type == "Reserved":
                    reader.skip()
                else:
                    seen[key][term_type] = {sku: reader.value() for sku in reader.members()}
        else:
            seen[key] = reader.value()
    whole = json.loads(text)
    del whole["terms"]["Reserved"]
    assert seen == whole


def _offer_text(**changes: str) -> str:
    text = EC2_FILE.read_text()
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        # The Windows decoy turned Linux: two products, two prices for m5.xlarge -> no guessing.
        ('"operatingSystem" : "Windows"', '"operatingSystem" : "Linux"', "two prices"),
        # A unit the filter does not expect: the format moved under the generator.
        ('"unit" : "GB-Mo"', '"unit" : "GiB-Mo"', "expected 'GB-Mo'"),
        ('"formatVersion" : "v1.0"', '"formatVersion" : "v2.0"', "not an AWS Price List offer file v1.0"),
        ('"offerCode" : "AmazonEC2"', '"offerCode" : "AmazonS3"', "offerCode 'AmazonS3'"),
        ('"capacitystatus" : "Used"', '"capacitystatus" : "UnusedCapacityReservation"', "no Linux on-demand"),
    ],
)
def test_a_changed_price_list_stops_the_generator(price_list, tmp_path, old, new, error):
    path = tmp_path / "offer.json"
    path.write_text(_offer_text(**{old: new}))
    with pytest.raises(SystemExit, match=error):
        price_list.read_offer(path)


def _snapshot(tmp_path, *offer_files) -> dict:
    gen = load("generate_prices")
    args = _prices(tmp_path)
    assert gen.main([*args, "--price-list", *map(str, offer_files)]) == 0
    return json.loads((tmp_path / "prices.json").read_text())


def test_offer_file_regions_add_to_and_replace_the_karpenter_ones(tmp_path):
    # A us-east-1 offer file (the fixture moved to us-east-1) replaces Karpenter's us-east-1 table whole.
    us_east_1 = tmp_path / "AmazonEC2-us-east-1.json"
    us_east_1.write_text(_offer_text(**{'"regionCode" : "eu-west-1"': '"regionCode" : "us-east-1"'}))
    data = _snapshot(tmp_path, EC2_FILE, KMS_FILE, us_east_1)
    regions = data["ec2_on_demand"]["regions"]
    assert regions["eu-west-1"] == {
        "from": "aws-price-list-ec2",
        "price_list_generated_at": "2026-11-20T00:00:00Z",
        "offer_version": "20261120000000",
        "instance_types": len(EU_WEST_1),
    }
    assert regions["us-gov-west-1"]["from"] == "karpenter-prices-aws-us-gov"  # no offer file: Karpenter's stays
    rows = data["on_demand_usd_per_hour"]
    assert {t: r["eu-west-1"] for t, r in rows.items() if "eu-west-1" in r} == EU_WEST_1
    assert rows["m5.xlarge"]["us-east-1"] == 0.214  # the offer file's, not Karpenter's 0.192
    assert "us-east-1" not in rows["m8i.large"]  # only Karpenter had it: a replaced region keeps no old price
    assert rows["m8i.large"] == {"us-gov-west-1": 0.10584}
    assert data["charges"]["regions"]["eu-west-1"] == EU_CHARGES
    # no offer file for us-east-1: the pricing pages' dated facts stay (an offer file of a region replaces them)
    assert data["charges"]["regions"]["us-east-1"]["kms_key_month"] == 1.0
    by_role = {}
    for s in data["source"]:
        by_role.setdefault(s["role"], []).append(s)
    assert [s["regions"] for s in by_role["aws-price-list-ec2"]] == [["eu-west-1"], ["us-east-1"]]
    (kms,) = by_role["aws-price-list-kms"]
    assert kms == {
        "role": "aws-price-list-kms",
        "url": "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/awskms/20261115000000/eu-west-1/index.json",
        "file": "awskms-eu-west-1.json",
        "version": "20261115000000",
        "publication_date": "2026-11-15T00:00:00Z",
        "regions": ["eu-west-1"],
        "license": "AWS site terms (prices are taken as facts)",
    }


def test_two_offer_files_for_one_region_are_refused(tmp_path):
    copy = tmp_path / "again.json"
    copy.write_text(EC2_FILE.read_text())
    with pytest.raises(SystemExit, match=r"AmazonEC2 eu-west-1 is in both AmazonEC2-eu-west-1\.json and again\.json"):
        _snapshot(tmp_path, EC2_FILE, copy)


def test_a_file_without_an_aws_region_product_is_skipped(tmp_path, price_list):
    # The region index may list zones that are not AWS Regions: such a file adds nothing and stops nothing.
    zones = tmp_path / "AmazonEC2-zones.json"
    zones.write_text(_offer_text(**{'"locationType" : "AWS Region"': '"locationType" : "AWS Local Zone"'}))
    assert price_list.read_offer(zones).regions == []
    data = _snapshot(tmp_path, zones, KMS_FILE)
    assert "eu-west-1" not in data["ec2_on_demand"]["regions"]
    assert [s["role"] for s in data["source"] if s["role"].startswith("aws-price-list")] == ["aws-price-list-kms"]


def test_without_offer_files_the_snapshot_is_karpenters_alone(tmp_path):
    gen = load("generate_prices")
    assert gen.main(_prices(tmp_path)) == 0
    data = json.loads((tmp_path / "prices.json").read_text())
    # only the pricing pages' dated facts (us-east-1)
    assert set(data["charges"]["regions"]) == {"us-east-1"} and "eu-west-1" not in data["ec2_on_demand"]["regions"]
    assert "us-east-1" in KARPENTER_PRICES and data["on_demand_usd_per_hour"]["m5.xlarge"]["us-east-1"] == 0.192


def test_the_shipped_snapshot_is_what_the_generator_writes_from_its_karpenter_sources(tmp_path):
    # Rebuilt from the snapshot's own Karpenter tables and sources (the upstream files are not here): if the
    # generator's output and the committed file part ways, the committed file was not regenerated.
    gen, upstream = load("generate_prices"), load("upstream")
    data = json.loads(SNAPSHOT.read_text())
    regions = data["ec2_on_demand"]["regions"]
    tables = []
    for source in data["source"]:
        mine = {r: v for r, v in regions.items() if v["from"] == source["role"]}
        if mine:
            stamp = next(iter(mine.values()))["price_list_generated_at"]
            rows = data["on_demand_usd_per_hour"]
            tables.append((source, stamp, {r: {t: p[r] for t, p in rows.items() if r in p} for r in mine}))
    assert [t[0]["role"] for t in tables] == ["karpenter-prices-aws", "karpenter-prices-aws-us-gov"]
    eks = {k: data["eks_control_plane"][k] for k in ("standard_support", "extended_support")}
    cn = data["ec2_on_demand_cny"]
    cn_source = next(s for s in data["source"] if s["role"] == "karpenter-prices-aws-cn")
    cny = (cn_source, cn_source["generated_at"], cn["prices"])
    pages, _ = gen.page_charges(upstream.manifest()[gen.PAGES_ROLE])
    head, rows = gen.build(tables, eks, data["source"], generated=data["generated"], pages=pages, cny=cny)
    upstream.write_json(tmp_path / "prices.json", head, gen.ITEMS, rows)
    assert (tmp_path / "prices.json").read_bytes() == SNAPSHOT.read_bytes()


EKS_FILE = FIXTURES / "AmazonEKS-eu-west-1.json"
EKS_CN_FILE = FIXTURES / "AmazonEKS-cn-north-1.json"
# The fixture's Auto Mode rows (eksproducttype AutoMode, one per instancetype), read by eye.
EU_AUTO_MODE = {
    "g5.2xlarge": 0.1624,
    "g5.xlarge": 0.1348,
    "m5.2xlarge": 0.0514,
    "m5.4xlarge": 0.1027,
    "m6i.2xlarge": 0.0514,
}


def test_an_eks_offer_file_yields_the_control_plane_and_the_auto_mode_fee_per_type(price_list):
    offer = price_list.read_offer(EKS_FILE)
    assert (offer.offer, offer.currency) == ("AmazonEKS", "USD")
    # the cluster-hour and the extended-support charge on top of it; not Hybrid Nodes' or Fargate's rows
    assert offer.charges == {"eu-west-1": {"eks_cluster_hour": 0.11, "eks_extended_support_hour": 0.55}}
    # m5.large's only fee is a zero placeholder; the Local Zone's m5.2xlarge (0.0617) is not the Region's
    assert offer.auto_mode == {"eu-west-1": EU_AUTO_MODE}
    assert offer.url().endswith("/offers/v1.0/aws/AmazonEKS/20261118000000/eu-west-1/index.json")


def test_a_china_offer_file_is_read_in_cny(price_list):
    offer = price_list.read_offer(EKS_CN_FILE)
    assert offer.currency == "CNY"
    assert offer.charges == {"cn-north-1": {"eks_cluster_hour": 0.688, "eks_extended_support_hour": 3.44}}
    assert offer.auto_mode == {"cn-north-1": {"m5.2xlarge": 0.3129}}
    assert offer.url() == (
        "https://pricing.cn-north-1.amazonaws.com.cn/offers/v1.0/cn/AmazonEKS/20261117000000/cn-north-1/index.json"
    )


def test_an_eks_file_without_its_rows_stops_the_generator(price_list, tmp_path):
    text = EKS_FILE.read_text().replace('"eksproducttype" : "AutoMode"', '"eksproducttype" : "Renamed"')
    text = text.replace("AmazonEKS-Hours", "AmazonEKS-Hrs")
    path = tmp_path / "eks.json"
    path.write_text(text)
    with pytest.raises(SystemExit, match="no EKS cluster-hour or Auto Mode price"):
        price_list.read_offer(path)


def test_eks_and_china_offer_files_fill_the_snapshot_apart_from_usd(tmp_path):
    data = _snapshot(tmp_path, EKS_FILE, EKS_CN_FILE)
    assert data["charges"]["regions"]["eu-west-1"] == {"eks_cluster_hour": 0.11, "eks_extended_support_hour": 0.55}
    assert "cn-north-1" not in data["charges"]["regions"]  # CNY never among the USD charges
    assert data["charges_cny"]["regions"] == {
        "cn-north-1": {"eks_cluster_hour": 0.688, "eks_extended_support_hour": 3.44}
    }
    auto = data["eks_auto_mode"]
    assert auto["prices"] == {"eu-west-1": EU_AUTO_MODE} and auto["prices_cny"] == {
        "cn-north-1": {"m5.2xlarge": 0.3129}
    }
    assert auto["regions"]["eu-west-1"] == {
        "from": "aws-price-list-eks",
        "price_list_generated_at": "2026-11-18T00:00:00Z",
        "offer_version": "20261118000000",
        "currency": "USD",
        "instance_types": len(EU_AUTO_MODE),
    }
    assert auto["regions"]["cn-north-1"]["from"] == "aws-price-list-cn"
    (cn,) = [s for s in data["source"] if s["role"] == "aws-price-list-cn"]
    assert cn["currency"] == "CNY" and cn["url"].startswith("https://pricing.cn-north-1.amazonaws.com.cn/")
