"""Prices per region from AWS Price List offer files (the bulk API's JSON), for scripts/generators/generate_prices.py.

Standard library only. An offer file is one JSON object (AWS Billing user guide, "Reading the service price
list file for an AWS service": docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/
reading-service-price-list-file-for-services.html):
  formatVersion, offerCode, version, publicationDate   what the file is and when AWS published it
  products: {sku: {sku, productFamily, attributes}}      one product per SKU; attributes such as regionCode
  terms: {OnDemand|Reserved: {sku: {sku.offerTermCode: {offerTermCode, priceDimensions: {rateCode:
         {unit, beginRange, endRange, pricePerUnit: {USD: "0.1920000000"}}}}}}}
A file holds one region (.../offers/v1.0/aws/<offer>/<version>/<region>/index.json) or every region
(.../<version>/index.json); each product names its region in `regionCode`, so either kind is read the same.

What is taken, per region, and only from on-demand terms:
  EC2 instances   offer AmazonEC2: Karpenter's on-demand filter (aws/karpenter-provider-aws
                  pkg/providers/pricing/pricing.go, UpdateOnDemandPricing): operatingSystem Linux, preInstalledSw
                  NA, capacitystatus Used, marketoption OnDemand, and tenancy Shared for productFamily
                  "Compute Instance" or tenancy Dedicated for "Compute Instance (bare metal)"; USD per hour.
                  The same filter as the Karpenter tables, so a region from either source means the same price.
  NAT gateway     offer AmazonEC2, productFamily "NAT Gateway": usage type <prefix->NatGateway-Hours (per hour)
                  and <prefix->NatGateway-Bytes (per GB processed)
  EBS gp3         offer AmazonEC2, productFamily "Storage", volumeApiName gp3: per GB-month of provisioned storage
  KMS key         offer awskms, productFamily "Encryption Key", usage type <prefix->KMS-Keys: per key-month
  EKS             offer AmazonEKS: the control plane per cluster-hour (usage type <prefix>-AmazonEKS-Hours:perCluster)
                  and the extended-support charge billed on top of it (<prefix>-AmazonEKS-Hours:extendedSupport);
                  the Auto Mode management fee per instance-hour, one product per instance type
                  (eksproducttype "AutoMode", instancetype <type>; productFamily "Compute", unit "hours"), as
                  vantage-sh/ec2instances.info's scraper reads it (scraper/aws/ec2/eks_auto_mode.go and its test);
                  a zero fee is a placeholder and dropped, as there
Currency: the AWS price list prices in USD; the China regions' price list (pricing.cn-north-1.amazonaws.com.cn,
offers/v1.0/cn/...) prices in CNY. A file whose regions are all China regions is read in CNY, every other in USD.
Only products located in an AWS Region count (locationType "AWS Region" where the file says): Local Zones,
Wavelength zones and Outposts have their own products and prices. A price list whose rows no longer single
out one price per item stops the generator instead of picking one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from json_reader import Reader, open_text

OFFER_URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/{offer}/{version}/{where}index.json"
OFFER_URL_CN = "https://pricing.cn-north-1.amazonaws.com.cn/offers/v1.0/cn/{offer}/{version}/{where}index.json"
OFFERS = {"amazonec2": "AmazonEC2", "awskms": "awskms", "amazoneks": "AmazonEKS"}  # offerCode as AWS writes it
EC2 = "ec2"
AUTO_MODE = "eks_auto_mode"


@dataclass(frozen=True)
class Charge:
    """One priced item besides instances: where it is in the price list and the unit its price is per."""

    offer: str  # lower-case offerCode
    family: str | None  # productFamily; None: not checked (the usage type singles the row out)
    usagetype: str  # a regex on the usage type, whose region prefix varies (none in us-east-1, "EU-" ...)
    unit: str | None  # the price dimension's unit; None: not checked
    attributes: Mapping[str, str] = field(default_factory=dict)


CHARGES = {
    "nat_gateway_hour": Charge("amazonec2", "NAT Gateway", r"(^|-)NatGateway-Hours$", "Hrs"),
    "nat_gateway_gb": Charge("amazonec2", "NAT Gateway", r"(^|-)NatGateway-Bytes$", "GB"),
    "ebs_gp3_gb_month": Charge(
        "amazonec2", "Storage", r"(^|-)EBS:VolumeUsage\.gp3$", "GB-Mo", {"volumeApiName": "gp3"}
    ),
    # KMS's unit name is not pinned by a fixture taken from a real file: the usage type singles the row out.
    "kms_key_month": Charge("awskms", "Encryption Key", r"(^|-)KMS-Keys$", None),
    # EKS: usage types as Cost and Usage Reports and the Price List name them (USE1-AmazonEKS-Hours:perCluster);
    # units and families not pinned by a real file: the usage type singles each row out.
    "eks_cluster_hour": Charge("amazoneks", None, r"(^|-)AmazonEKS-Hours:perCluster$", None),
    "eks_extended_support_hour": Charge("amazoneks", None, r"(^|-)AmazonEKS-Hours:extendedSupport$", None),
}
AUTO_MODE_TYPE = "AutoMode"  # AmazonEKS products' eksproducttype of the Auto Mode management fee
# Karpenter's on-demand filter: the attributes every priced instance product has ...
EC2_ATTRIBUTES = {"operatingSystem": "Linux", "preInstalledSw": "NA", "capacitystatus": "Used"}
# ... and the tenancy that goes with each product family (bare metal is listed as Dedicated).
EC2_FAMILIES = {"Compute Instance": "Shared", "Compute Instance (bare metal)": "Dedicated"}


@dataclass
class OfferPrices:
    """What one offer file prices: per region, instance types (USD per hour) and charges (USD per unit)."""

    offer: str  # offerCode as AWS writes it: AmazonEC2, awskms
    version: str
    publication_date: str
    file: str
    ec2: dict[str, dict[str, float]] = field(default_factory=dict)
    charges: dict[str, dict[str, float]] = field(default_factory=dict)
    auto_mode: dict[str, dict[str, float]] = field(default_factory=dict)  # region -> instance type -> fee per hour
    currency: str = "USD"  # CNY for the China regions' price list

    @property
    def regions(self) -> list[str]:
        return sorted({*self.ec2, *self.charges, *self.auto_mode})

    def url(self) -> str:
        """The file's address at its own version (a `current` URL moves; this one does not)."""
        regions = self.regions
        where = f"{regions[0]}/" if len(regions) == 1 else ""
        return (OFFER_URL_CN if self.currency == "CNY" else OFFER_URL).format(
            offer=self.offer, version=self.version, where=where
        )


# --- which products are priced ------------------------------------------------------------------


def _in_region(attrs: Mapping[str, Any]) -> str | None:
    region = attrs.get("regionCode")
    if not isinstance(region, str) or attrs.get("locationType", "AWS Region") != "AWS Region":
        return None
    return region


def product_key(product: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(region, what, name) of a product the estimate prices: what is `ec2` (name: the instance type) or a
    charge (name: the charge's key); None for every other product. The product families tell the offers
    apart, so a product is matched before the file's offerCode is checked."""
    attrs = product.get("attributes") or {}
    family = product.get("productFamily")
    region = _in_region(attrs)
    if region is None:
        return None
    if family in EC2_FAMILIES:
        wanted = {**EC2_ATTRIBUTES, "tenancy": EC2_FAMILIES[family]}
        if all(attrs.get(k) == v for k, v in wanted.items()) and attrs.get("marketoption", "OnDemand") == "OnDemand":
            return (region, EC2, attrs["instanceType"]) if attrs.get("instanceType") else None
        return None
    if attrs.get("eksproducttype") == AUTO_MODE_TYPE:
        return (region, AUTO_MODE, attrs["instancetype"]) if attrs.get("instancetype") else None
    for key, charge in CHARGES.items():
        if (
            charge.family in (None, family)
            and re.search(charge.usagetype, str(attrs.get("usagetype", "")))
            and all(attrs.get(k) == v for k, v in charge.attributes.items())
        ):
            return region, key, key
    return None


def on_demand_usd(
    terms: Mapping[str, Any], unit: str | None, label: str, drop_zero: bool = False, currency: str = "USD"
) -> float | None:
    """The price in one SKU's on-demand terms (USD, or the file's currency): the first tier (beginRange 0)
    of every dimension, in the expected unit; None when there is none. Different prices for one SKU stop the
    generator."""
    found = set()
    for term in terms.values():
        for dim in (term.get("priceDimensions") or {}).values():
            usd = (dim.get("pricePerUnit") or {}).get(currency)
            if usd is None or dim.get("beginRange", "0") not in ("0", "0.0"):
                continue
            if unit is not None and dim.get("unit") != unit:
                raise SystemExit(f"{label}: priced per {dim.get('unit')!r}, expected {unit!r}: the price list changed")
            if float(usd) or not drop_zero:
                found.add(float(usd))
    if len(found) > 1:
        raise SystemExit(f"{label}: several on-demand prices {sorted(found)} in one SKU: the price list changed")
    return found.pop() if found else None


# --- reading a file -----------------------------------------------------------------------------


def read_offer(path: Path) -> OfferPrices:
    """One offer file, streamed: products first (kept only when priced), then only their on-demand terms."""
    head: dict[str, Any] = {}
    keys: dict[str, tuple[str, str, str]] = {}  # sku -> (region, what, name)
    pending: dict[str, Any] = {}  # on-demand terms met before the products (not so in AWS's files)
    seen_products, located = False, 0
    with open_text(path) as stream:
        reader = Reader(stream)
        for top in reader.members():
            if top == "products":
                for sku in reader.members():
                    product = reader.value()
                    located += _in_region(product.get("attributes") or {}) is not None
                    if key := product_key(product):
                        keys[sku] = key
                seen_products = True
            elif top == "terms":
                for term_type in reader.members():
                    if term_type != "OnDemand":  # Reserved terms are most of the file: walked, never held
                        reader.skip()
                        continue
                    for sku in reader.members():
                        if seen_products and sku not in keys:
                            reader.skip()
                        else:
                            pending[sku] = reader.value()
            elif top in ("formatVersion", "offerCode", "version", "publicationDate"):
                head[top] = reader.value()
            else:
                reader.skip()
    return _prices(path, head, keys, pending, located)


def _prices(
    path: Path, head: Mapping[str, Any], keys: Mapping[str, tuple], terms: Mapping[str, Any], located: int
) -> OfferPrices:
    missing = [k for k in ("formatVersion", "offerCode", "version", "publicationDate") if not head.get(k)]
    if missing or head["formatVersion"] != "v1.0":
        wrong = missing or ["formatVersion"]
        raise SystemExit(f"{path}: not an AWS Price List offer file v1.0 (missing or not v1.0: {', '.join(wrong)})")
    code = str(head["offerCode"]).lower()
    if code not in OFFERS:
        raise SystemExit(f"{path}: offerCode {head['offerCode']!r}; this generator reads {', '.join(OFFERS.values())}")
    out = OfferPrices(OFFERS[code], str(head["version"]), str(head["publicationDate"]), path.name)
    # The China regions' price list is in CNY: a file of China regions alone is read in CNY.
    located_regions = {region for region, _, _ in keys.values()}
    if located_regions and all(r.startswith("cn-") for r in located_regions):
        out.currency = "CNY"
    chosen: dict[tuple[str, str, str], tuple[float, str]] = {}
    for sku, key in sorted(keys.items()):
        region, what, name = key
        if ({EC2: "amazonec2", AUTO_MODE: "amazoneks"}.get(what) or CHARGES[what].offer) != code:
            continue
        label = f"{path.name} {region} {name} (SKU {sku})"
        money = out.currency
        if what == EC2:  # a zero on-demand rate is a placeholder, not a price (Karpenter's onDemandPage drops it)
            usd = on_demand_usd(terms.get(sku) or {}, "Hrs", label, drop_zero=True, currency=money)
        elif what == AUTO_MODE:  # likewise a zero fee (vantage-sh's scraper drops it too)
            usd = on_demand_usd(terms.get(sku) or {}, None, label, drop_zero=True, currency=money)
        else:
            usd = on_demand_usd(terms.get(sku) or {}, CHARGES[what].unit, label, currency=money)
        if usd is None:
            continue
        if key in chosen and chosen[key][0] != usd:
            raise SystemExit(
                f"{path.name}: {region} {name} has two prices, {chosen[key][0]} (SKU {chosen[key][1]}) and {usd} "
                f"(SKU {sku}): the filter no longer singles out one product"
            )
        chosen[key] = (usd, sku)
        table = {EC2: out.ec2, AUTO_MODE: out.auto_mode}.get(what, out.charges)
        table.setdefault(region, {})[name] = usd
    if not located:  # a file of Local Zones or Wavelength zones only: nothing of an AWS Region to price
        return out
    if code == "amazonec2" and not out.ec2:
        raise SystemExit(f"{path}: no Linux on-demand instance price in this AmazonEC2 offer file: the format changed")
    if code == "awskms" and not out.charges:
        raise SystemExit(f"{path}: no KMS key price in this awskms offer file: the format changed")
    if code == "amazoneks" and not (out.charges or out.auto_mode):
        raise SystemExit(
            f"{path}: no EKS cluster-hour or Auto Mode price in this AmazonEKS offer file: the format changed"
        )
    return out
