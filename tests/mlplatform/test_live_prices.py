"""`plan --prices live`: the AWS Price List API (boto3's pricing client) fills what the snapshot lacks, cached
on disk with its date. Driven through botocore's Stubber with answers of the real GetProducts shape."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import boto3
import pytest
from botocore.stub import ANY, Stubber

from mlplatform.live_prices import CHARGE_QUERIES, read_live
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.cost import estimate
from mlplatform_core.model.cost.prices import priced_with
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config

DAY = datetime.date(2026, 11, 26)


def product(family: str, attributes: dict, usd: str, unit: str) -> str:
    """One GetProducts PriceList entry as AWS sends it: a JSON document of product and terms."""
    sku = "SKU123"
    return json.dumps(
        {
            "product": {
                "productFamily": family,
                "attributes": {"locationType": "AWS Region", **attributes},
                "sku": sku,
            },
            "serviceCode": "AmazonEC2",
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "offerTermCode": "JRTCKXETXF",
                        "sku": sku,
                        "effectiveDate": "2026-11-01T00:00:00Z",
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": unit,
                                "endRange": "Inf",
                                "description": "...",
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "beginRange": "0",
                                "pricePerUnit": {"USD": usd},
                            }
                        },
                    }
                }
            },
            "version": "20261120000000",
            "publicationDate": "2026-11-20T00:00:00Z",
        }
    )


ANSWERS = {
    "m5.xlarge": product(
        "Compute Instance", {"instanceType": "m5.xlarge", "regionCode": "eu-west-1"}, "0.2140000000", "Hrs"
    ),
    "nat_gateway_hour": product("NAT Gateway", {"usagetype": "EU-NatGateway-Hours"}, "0.0480000000", "Hrs"),
    "nat_gateway_gb": product("NAT Gateway", {"usagetype": "EU-NatGateway-Bytes"}, "0.0480000000", "GB"),
    "ebs_gp3_gb_month": product(
        "Storage", {"usagetype": "EU-EBS:VolumeUsage.gp3", "volumeApiName": "gp3"}, "0.0880000000", "GB-Mo"
    ),
    "kms_key_month": product("Encryption Key", {"usagetype": "eu-west-1-KMS-Keys"}, "1.0000000000", "Keys"),
    "public_ipv4_hour": product(
        "VPC Public IPv4 Address", {"usagetype": "EU-PublicIPv4:InUseAddress"}, "0.0050000000", "Hrs"
    ),
}


def stubbed(types: list[str], keys: list[str]):
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    for t in types:
        both = [ANSWERS[t], ANSWERS["nat_gateway_gb"]]  # a query can return rows another price list row matches
        stub.add_response(
            "get_products",
            {"PriceList": both[:1], "FormatVersion": "aws_v1"},
            {"ServiceCode": "AmazonEC2", "Filters": ANY},
        )
    for key in keys:
        rows = [ANSWERS["nat_gateway_hour"], ANSWERS["nat_gateway_gb"]] if key.startswith("nat") else [ANSWERS[key]]
        stub.add_response(
            "get_products",
            {"PriceList": rows, "FormatVersion": "aws_v1"},
            {"ServiceCode": CHARGE_QUERIES[key].service, "Filters": ANY},
        )
    return client, stub


def test_live_prices_fill_what_the_snapshot_lacks_and_are_cached_with_their_date(tmp_path):
    keys = [k for k in CHARGE_QUERIES if not k.startswith("eks_")]  # the commercial control plane is known
    client, stub = stubbed(["m5.xlarge"], keys)
    with stub:
        live = read_live("eu-west-1", ["m5.xlarge"], client=client, folder=tmp_path, today=DAY)
    stub.assert_no_pending_responses()
    assert live.on_demand == {"m5.xlarge": Decimal("0.2140000000")} and live.date == "2026-11-26"
    assert live.charges["nat_gateway_hour"] == Decimal("0.048") and live.charges["nat_gateway_gb"] == Decimal("0.048")
    assert live.charges["public_ipv4_hour"] == Decimal("0.005") and live.charges["kms_key_month"] == Decimal(1)
    assert "AWS Price List API" in live.how and str(tmp_path) in live.how
    cached = json.loads((tmp_path / "eu-west-1.json").read_text())
    assert cached["date"] == "2026-11-26" and cached["on_demand"] == {"m5.xlarge": "0.2140000000"}
    # The next plan within a week reads the cache: no call at all (a Stubber with no responses would fail).
    quiet, idle = stubbed([], [])
    with idle:
        again = read_live(
            "eu-west-1", ["m5.xlarge"], client=quiet, folder=tmp_path, today=DAY + datetime.timedelta(days=3)
        )
    assert again.on_demand == live.on_demand and again.date == "2026-11-26" and "cached in" in again.how


def test_the_estimate_uses_live_prices_and_says_so():
    raw = stack_config("dev")
    raw["aws:region"] = "eu-west-1"
    cfg = parse(raw)
    layout = build_layout(cfg, "dev")
    live_charges = {k: Decimal("0.05") for k in CHARGE_QUERIES}
    from mlplatform_core.model.cost.prices import LivePrices

    live = LivePrices("eu-west-1", "2026-11-26", {"m5.xlarge": Decimal("0.214")}, live_charges, "test")
    with priced_with(live):
        cost = estimate(cfg, layout)
    initial = next(x for x in cost.lines if x.label == "node group initial")
    assert initial.price.usd_per_hour == Decimal("0.214") and cost.live is live
    nat = next(x for x in cost.lines if x.name == "NAT gateways")
    assert nat.price.known and "AWS Price List API, 2026-11-26" in nat.basis
    # outside the block, the snapshot alone: eu-west-1 is unknown there, and says which source is missing
    plain = estimate(cfg, layout)
    assert not next(x for x in plain.lines if x.label == "node group initial").price.known and plain.live is None


def test_an_answer_that_is_not_one_price_stays_unknown(tmp_path):
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    two = [
        product("Compute Instance", {"instanceType": "m5.xlarge"}, "0.2140000000", "Hrs"),
        product("Compute Instance", {"instanceType": "m5.xlarge"}, "0.3000000000", "Hrs"),
    ]
    stub.add_response(
        "get_products", {"PriceList": two, "FormatVersion": "aws_v1"}, {"ServiceCode": "AmazonEC2", "Filters": ANY}
    )
    for key in CHARGE_QUERIES:
        stub.add_response(
            "get_products",
            {"PriceList": [], "FormatVersion": "aws_v1"},
            {"ServiceCode": CHARGE_QUERIES[key].service, "Filters": ANY},
        )
    with stub:
        live = read_live("eu-west-1", ["m5.xlarge"], client=client, folder=tmp_path, today=DAY)
    assert live.on_demand == {} and live.charges == {}
    assert "m5.xlarge" in json.loads((tmp_path / "eu-west-1.json").read_text())["none"]


def test_without_credentials_live_prices_are_bad_input(tmp_path):
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    stub.add_client_error("get_products", "AccessDeniedException", "User is not authorized")
    with stub, pytest.raises(ConfigError, match="--prices live: the AWS Price List API could not be read"):
        read_live("eu-west-1", ["m5.xlarge"], client=client, folder=tmp_path, today=DAY)


def test_plan_prices_live_says_where_its_prices_came_from(tmp_path, monkeypatch, capsys):
    from mlplatform import live_prices
    from mlplatform.cli import main
    from tests.conftest import ROOT

    stack = tmp_path / "Pulumi.eu.yaml"
    stack.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace("us-east-1", "eu-west-1"))
    monkeypatch.setenv("MLPLATFORM_PRICE_CACHE", str(tmp_path / "cache"))
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    stub.add_client_error("get_products", "ThrottlingException", "Rate exceeded")
    monkeypatch.setattr(live_prices, "_client", lambda: client)
    with stub:
        assert main(["plan", "--config-file", str(stack), "--prices", "live"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --prices live: the AWS Price List API could not be read (ThrottlingException")
    assert "Rate exceeded" in err and "credentials" in err
    # answered from a cache of the same week: the plan prices eu-west-1 and says so
    (tmp_path / "cache").mkdir(exist_ok=True)
    answers = {"m5.xlarge": "0.214", "m5.2xlarge": "0.428", "m5a.2xlarge": "0.384", "m5d.2xlarge": "0.504"}
    answers |= {"m6i.2xlarge": "0.428", "g5.xlarge": "1.123"}
    cache = {"date": datetime.date.today().isoformat(), "region": "eu-west-1", "on_demand": answers}
    cache["charges"] = dict.fromkeys(CHARGE_QUERIES, "0.05")
    (tmp_path / "cache" / "eu-west-1.json").write_text(json.dumps(cache))
    assert main(["plan", "--config-file", str(stack), "--prices", "live", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["cost"]
    assert doc["livePrices"]["date"] == cache["date"] and "cached in" in doc["livePrices"]["how"]
    assert doc["totals"]["idleFloor"]["unknown"] == []


def eks_row(attributes: dict, usd: str) -> str:
    doc = json.loads(product("Compute", attributes, usd, "Hrs"))
    doc["serviceCode"] = "AmazonEKS"
    return json.dumps(doc)


def test_live_prices_answer_govclouds_control_plane_and_auto_mode_fees(tmp_path):
    # us-gov-west-1: EC2 and the charges aside, the snapshot has no control plane of its own (the commercial
    # statement is not GovCloud's price) and no Auto Mode fee: AmazonEKS answers both.
    client = boto3.client("pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(client)
    fee = {"eksproducttype": "AutoMode", "instancetype": "m5.2xlarge", "regionCode": "us-gov-west-1"}
    stub.add_response(
        "get_products",
        {"PriceList": [eks_row({**fee, "usagetype": "UGW1-AutoMode-m5.2xlarge"}, "0.0580000000")]},
        {
            "ServiceCode": "AmazonEKS",
            "Filters": [
                {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "us-gov-west-1"},
                {"Type": "TERM_MATCH", "Field": "eksproducttype", "Value": "AutoMode"},
                {"Type": "TERM_MATCH", "Field": "instancetype", "Value": "m5.2xlarge"},
            ],
        },
    )
    for key in [k for k in CHARGE_QUERIES if not k.startswith("eks_")]:
        stub.add_response(
            "get_products", {"PriceList": []}, {"ServiceCode": CHARGE_QUERIES[key].service, "Filters": ANY}
        )
    cluster = eks_row({"usagetype": "UGW1-AmazonEKS-Hours:perCluster"}, "0.1200000000")
    extended = eks_row({"usagetype": "UGW1-AmazonEKS-Hours:extendedSupport"}, "0.6000000000")
    for _ in ("eks_cluster_hour", "eks_extended_support_hour"):  # both rows answer each query: the regex picks
        stub.add_response(
            "get_products", {"PriceList": [cluster, extended]}, {"ServiceCode": "AmazonEKS", "Filters": ANY}
        )
    with stub:
        live = read_live("us-gov-west-1", [], client=client, folder=tmp_path, today=DAY, auto_mode_types=["m5.2xlarge"])
    stub.assert_no_pending_responses()
    assert live.auto_mode == {"m5.2xlarge": Decimal("0.058")}
    assert live.charges["eks_cluster_hour"] == Decimal("0.12")
    assert live.charges["eks_extended_support_hour"] == Decimal("0.6")
    assert json.loads((tmp_path / "us-gov-west-1.json").read_text())["auto_mode"] == {"m5.2xlarge": "0.0580000000"}
    # the estimate takes them: the control plane and the fee of the jupyter pool of an Auto Mode stack
    raw = stack_config("dev-automode")
    raw["aws:region"] = "us-gov-west-1"
    cfg = parse(raw)
    with priced_with(live):
        cost = estimate(cfg, build_layout(cfg, "dev-automode"))
    plane = next(x for x in cost.lines if x.name == "EKS control plane")
    assert plane.price.usd_per_hour == Decimal("0.12")
    jupyter = next(x for x in cost.lines if x.name == "EKS Auto Mode fee, NodePool jupyter")
    assert jupyter.price.usd_per_hour == Decimal("0.058") and "AWS Price List API, 2026-11-26" in jupyter.basis
