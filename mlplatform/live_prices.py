"""`plan --prices live`: prices the snapshot lacks, read from the AWS Price List API, cached on disk with their date.

The AWS Price List Query API (boto3's `pricing` client, endpoint us-east-1: AWS Billing user guide,
"Using the AWS Price List Query API") answers GetProducts with product/terms JSON documents, the same
shape as the offer files (scripts/lib/price_list.py). The products taken are the offer files' (Karpenter's
on-demand filter for instances; the NAT gateway, EBS gp3 and KMS rows; the public IPv4 address row of
AmazonVPC; AmazonEKS's cluster-hour and extended-support rows where the snapshot has no control-plane price
(GovCloud), and its Auto Mode fee per instance type, eksproducttype AutoMode, for Auto Mode stacks), priced
from their on-demand terms in USD. The China regions are not in this API (their own price list, in CNY).
Answers are cached per region with the day they were read (~/.cache/mlplatform/prices, or
MLPLATFORM_PRICE_CACHE), reused for MAX_AGE_DAYS, and the plan says where its prices came from. Needs AWS
credentials (any principal may call pricing:GetProducts).
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from mlplatform_core.model.config import ConfigError, Problem
from mlplatform_core.model.cost.prices import LivePrices, control_plane
from mlplatform_core.model.cost.prices import charge as snapshot_charge

MAX_AGE_DAYS = 7
PRICING_REGION = "us-east-1"  # the Price List Query API's endpoint (also ap-south-1 and eu-central-1)


class LivePricesError(ConfigError):
    """The Price List API could not answer (no credentials, denied, throttled): the plan stops, exit 2."""

    def __str__(self) -> str:
        return "; ".join(f"{p.path}: {p.message}" for p in self.problems)


@dataclass(frozen=True)
class _Query:
    service: str
    filters: dict[str, str]
    usagetype: str | None = None  # a regex on the usage type, whose region prefix varies
    unit: str | None = None


_EC2 = {"operatingSystem": "Linux", "preInstalledSw": "NA", "capacitystatus": "Used", "tenancy": "Shared"}
CHARGE_QUERIES = {
    "nat_gateway_hour": _Query("AmazonEC2", {"productFamily": "NAT Gateway"}, r"(^|-)NatGateway-Hours$", "Hrs"),
    "nat_gateway_gb": _Query("AmazonEC2", {"productFamily": "NAT Gateway"}, r"(^|-)NatGateway-Bytes$", "GB"),
    "ebs_gp3_gb_month": _Query("AmazonEC2", {"productFamily": "Storage", "volumeApiName": "gp3"}, None, "GB-Mo"),
    "kms_key_month": _Query("awskms", {"productFamily": "Encryption Key"}, r"(^|-)KMS-Keys$"),
    "public_ipv4_hour": _Query(
        "AmazonVPC", {"productFamily": "VPC Public IPv4 Address"}, r"(^|-)PublicIPv4:InUseAddress$", "Hrs"
    ),
    # Asked only where the snapshot has no control-plane price (another partition): see _wanted.
    "eks_cluster_hour": _Query("AmazonEKS", {}, r"(^|-)AmazonEKS-Hours:perCluster$"),
    "eks_extended_support_hour": _Query("AmazonEKS", {}, r"(^|-)AmazonEKS-Hours:extendedSupport$"),
}


def _wanted(region: str, key: str) -> bool:
    """A charge the snapshot does not price in the region (the control plane: no price of its own at all)."""
    if key.startswith("eks_"):
        return not control_plane(region, False).known
    return not snapshot_charge(region, key).known


def cache_dir() -> Path:
    return Path(os.environ.get("MLPLATFORM_PRICE_CACHE") or Path.home() / ".cache" / "mlplatform" / "prices")


def _on_demand_usd(document: str, usagetype: str | None, unit: str | None) -> Decimal | None:
    """The USD on-demand price of one GetProducts answer (a JSON document), if it is the row wanted."""
    item = json.loads(document)
    attrs = item.get("product", {}).get("attributes", {})
    if attrs.get("locationType", "AWS Region") != "AWS Region":
        return None
    if usagetype is not None and not re.search(usagetype, str(attrs.get("usagetype", ""))):
        return None
    for term in item.get("terms", {}).get("OnDemand", {}).values():
        for dim in term.get("priceDimensions", {}).values():
            usd = dim.get("pricePerUnit", {}).get("USD")
            if usd is not None and (unit is None or dim.get("unit") == unit) and Decimal(usd) > 0:
                return Decimal(usd)
    return None


def _query(
    client: Any, service: str, filters: dict[str, str], usagetype: str | None, unit: str | None
) -> Decimal | None:
    pages = client.get_paginator("get_products").paginate(
        ServiceCode=service,
        Filters=[{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in filters.items()],
    )
    found = {p for page in pages for doc in page.get("PriceList", []) if (p := _on_demand_usd(doc, usagetype, unit))}
    return found.pop() if len(found) == 1 else None  # none, or rows that no longer single out one price


def _read_cache(path: Path, today: datetime.date) -> dict[str, Any]:
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if (today - datetime.date.fromisoformat(cached["date"])).days <= MAX_AGE_DAYS:
            return cached
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return {}


def read_live(
    region: str,
    instance_types: Iterable[str],
    client: Any = None,
    folder: Path | None = None,
    today: datetime.date | None = None,
    auto_mode_types: Iterable[str] = (),
) -> LivePrices:
    """Live prices of `instance_types`, the Auto Mode fee of `auto_mode_types` and the charges in `region`:
    from the cache when it is recent enough, else from the Price List API (and then cached). Raises
    ConfigError when AWS cannot be asked."""
    today = today or datetime.date.today()
    path = (folder or cache_dir()) / f"{region}.json"
    cached = _read_cache(path, today)
    on_demand = {k: Decimal(v) for k, v in cached.get("on_demand", {}).items()}
    charges = {k: Decimal(v) for k, v in cached.get("charges", {}).items()}
    fees = {k: Decimal(v) for k, v in cached.get("auto_mode", {}).items()}
    none_before = set(cached.get("none", []))
    missing = [t for t in dict.fromkeys(instance_types) if t not in on_demand and t not in none_before]
    fees_missing = [t for t in dict.fromkeys(auto_mode_types) if t not in fees and f"auto_mode:{t}" not in none_before]
    todo = [k for k in CHARGE_QUERIES if k not in charges and k not in none_before and _wanted(region, k)]
    if not missing and not fees_missing and not todo and cached:
        return LivePrices(region, cached["date"], on_demand, charges, f"cached in {path}", fees)
    from botocore.exceptions import BotoCoreError, ClientError

    client = client or _client()
    none: list[str] = list(cached.get("none", []))
    try:
        _ask(client, region, (missing, fees_missing, todo), (on_demand, fees, charges), none)
    except (BotoCoreError, ClientError) as exc:  # no credentials, denied, throttled: no live prices
        raise LivePricesError(
            [
                Problem(
                    "--prices live",
                    f"the AWS Price List API could not be read ({type(exc).__name__}: {exc}); it needs AWS "
                    "credentials allowed pricing:GetProducts, or drop --prices live for the snapshot's prices",
                )
            ]
        ) from None
    date = today.isoformat()
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = {
        "date": date,
        "region": region,
        "on_demand": {k: str(v) for k, v in sorted(on_demand.items())},
        "charges": {k: str(v) for k, v in sorted(charges.items())},
        "auto_mode": {k: str(v) for k, v in sorted(fees.items())},
        "none": sorted(set(none)),
    }
    path.write_text(json.dumps(cache, indent=1), encoding="utf-8")
    return LivePrices(region, date, on_demand, charges, f"read from the AWS Price List API, cached in {path}", fees)


def _ask(
    client: Any,
    region: str,
    wanted: tuple[list[str], list[str], list[str]],
    found: tuple[dict[str, Decimal], dict[str, Decimal], dict[str, Decimal]],
    none: list[str],
) -> None:
    """Ask the Price List API for the `wanted` instance types, Auto Mode fees and charges, adding each answer
    to `found` (on-demand prices, fees, charges) and each question with no single answer to `none`."""
    missing, fees_missing, todo = wanted
    on_demand, fees, charges = found
    for itype in missing:
        filters = {"regionCode": region, "instanceType": itype, **_EC2}
        if (usd := _query(client, "AmazonEC2", filters, None, "Hrs")) is not None:
            on_demand[itype] = usd
        else:
            none.append(itype)
    for itype in fees_missing:
        filters = {"regionCode": region, "eksproducttype": "AutoMode", "instancetype": itype}
        if (usd := _query(client, "AmazonEKS", filters, None, None)) is not None:
            fees[itype] = usd
        else:
            none.append(f"auto_mode:{itype}")
    for key in todo:
        q = CHARGE_QUERIES[key]
        if (usd := _query(client, q.service, {"regionCode": region, **q.filters}, q.usagetype, q.unit)) is not None:
            charges[key] = usd
        else:
            none.append(key)


def _client() -> Any:
    try:
        import boto3
    except ImportError:  # pragma: no cover - a dependency of the package
        raise LivePricesError([Problem("--prices live", "needs boto3 (pip install boto3)")]) from None
    return boto3.client("pricing", region_name=PRICING_REGION)
