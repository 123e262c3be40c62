#!/usr/bin/env python3
"""Generate the price snapshot (mlplatform_core/data/prices.json) from upstream data.

Standard library only. Sources (pinned in scripts/upstream.json):
  karpenter-prices-aws         aws/karpenter-provider-aws pkg/providers/pricing/zz_generated.pricing_aws.go:
                               EC2 on-demand prices (Linux, shared tenancy, USD per hour) that Karpenter
                               generates from the AWS Price List API; upstream generates us-east-1 only
  karpenter-prices-aws-us-gov  the same file for GovCloud (us-gov-east-1, us-gov-west-1)
  eks-control-plane-pricing    the AWS Containers blog post that states the EKS control-plane price per
                               cluster-hour in standard and in extended support (a page, not a git file)
  aws-price-list-ec2           optional, --price-list: AWS Price List offer files of AmazonEC2 (one region's
                               index.json, or all regions'): EC2 on-demand prices with Karpenter's filter, NAT
                               gateway per hour and per GB processed, EBS gp3 per GB-month (scripts/lib/price_list.py)
  aws-price-list-kms           optional, --price-list: offer files of awskms: a KMS key per month
  aws-price-list-eks           optional, --price-list: offer files of AmazonEKS: the control plane per cluster-hour
                               and its extended-support charge, the Auto Mode management fee per instance type
  aws-price-list-cn            optional, --price-list: the China regions' offer files (AmazonEC2, awskms,
                               AmazonEKS), in CNY: kept apart from USD (`ec2_on_demand_cny`, `charges_cny`)
  aws-pricing-pages            prices only AWS's pricing pages state (NAT gateway, public IPv4, EBS gp3, KMS key),
                               recorded in scripts/upstream.json as dated facts with each page's URL; an offer
                               file of the same region replaces them
  karpenter-prices-aws-cn      Karpenter's table for the China partition (cn-north-1), in CNY: kept apart
                               (`ec2_on_demand_cny`), never mixed with USD

Without offer files the snapshot has Karpenter's regions and the pricing pages' charges only. An offer
file's region replaces the Karpenter table of that region (same filter, newer data) and adds its charges;
the snapshot's `source` records each file's offer, version and publicationDate. Spot prices are never priced:
the snapshot names them under `unknown` with the reason and the toolkit reports them as unknown.


Usage (from the repository root):
  scripts/generators/generate_prices.py --fetch                       # the pinned upstream commits and the AWS page
  scripts/generators/generate_prices.py --fetch --ref main            # refresh; then pin the commits in upstream.json
  scripts/generators/generate_prices.py --karpenter-prices FILE --karpenter-prices-us-gov FILE --eks-pricing FILE
  scripts/generators/generate_prices.py --fetch --price-list price-list/*.json  # plus every region the offer files have

Offer files are streamed (scripts/lib/json_reader.py): memory stays near what is kept, not the file's size
(hundreds of MB per region; a 930 MB file in this format read in about 20 MB resident); docs/development.md,
"Prices for every region", has the commands that download them.
"""

from __future__ import annotations

import argparse
import datetime
import html
import re
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import price_list
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "prices.json"
ITEMS = "on_demand_usd_per_hour"
OFFER_ROLES = {"AmazonEC2": "aws-price-list-ec2", "awskms": "aws-price-list-kms", "AmazonEKS": "aws-price-list-eks"}
CN_ROLE = "aws-price-list-cn"  # any offer file of the China regions' price list (CNY)

UNKNOWN = {
    "ec2_spot": "no authoritative dataset commits spot prices (Karpenter seeds none and reads them live from "
    "EC2 DescribeSpotPriceHistory); a spot node costs at most its on-demand price, the default maximum price",
    "ec2_other_regions": "Karpenter's price generator commits only us-east-1 for the commercial partition and "
    "us-gov-east-1/us-gov-west-1 for GovCloud; other regions come from the AWS Price List offer files "
    "(scripts/generators/generate_prices.py --price-list; docs/development.md: Prices for every region)",
    "nat_gateway": "the Amazon VPC pricing page (aws-pricing-pages) states it for the regions in `charges`; "
    "others need an AWS Price List offer file (AmazonEC2) or `plan --prices live`",
    "public_ipv4": "the Amazon VPC pricing page states it for the regions in `charges` (aws-pricing-pages); "
    "other regions need an AWS Price List offer file (AmazonVPC) or `plan --prices live`",
    "ebs": "the Amazon EBS pricing page (aws-pricing-pages) states it for the regions in `charges`; others "
    "need an AWS Price List offer file (AmazonEC2) or `plan --prices live`",
    "kms_key": "the AWS KMS pricing page (aws-pricing-pages) states it for the regions in `charges`; others "
    "need an AWS Price List offer file (awskms) or `plan --prices live`",
    "ec2_cny": "China regions are priced in CNY by their own price list (Karpenter's cn-north-1 table; the China "
    "offer files, offers/v1.0/cn); CNY is shown as CNY and never added to USD totals",
    "eks_control_plane_other_partitions": "the AWS statement gives one list price for the commercial "
    "partition; GovCloud, China (CNY) and ISO regions have their own price lists",
    "eks_control_plane_aws-us-gov": "the AWS statement (eks-control-plane-pricing) prices the commercial "
    "partition only; AWS GovCloud (US) has its own price list: the AmazonEKS offer file of the region "
    "(--price-list) or `plan --prices live` answers it",
    "eks_control_plane_aws-cn": "the AWS statement (eks-control-plane-pricing) prices the commercial partition "
    "only; the China regions are priced in CNY by their own price list (pricing.cn-north-1.amazonaws.com.cn): "
    "an AmazonEKS offer file of the region (--price-list) answers it, the Price List API of us-east-1 does not",
    "charges_aws-cn": "the China regions have their own price list, in CNY (pricing.cn-north-1.amazonaws.com.cn, "
    "offers/v1.0/cn): an offer file of the region (--price-list) answers it, the AWS Price List API of us-east-1 "
    "(`plan --prices live`) does not",
    "eks_auto_mode": "EKS bills a management fee per instance Auto Mode launches, by instance type and region "
    '(EKS user guide automode/auto-mng.adoc, "Pricing": "a separate fee, in addition to the standard EC2 '
    'instance charges"); only the AWS Price List has it (offer AmazonEKS, eksproducttype AutoMode, one '
    "product per instance type): give its offer file to scripts/generators/generate_prices.py --price-list, or ask "
    "`plan --prices live`",
}


# --- parsers ------------------------------------------------------------------------------------


def parse_karpenter_prices(text: str) -> tuple[str, dict[str, dict[str, float]]]:
    """(generated-at timestamp, {region: {instance type: USD per hour}}) from a zz_generated.pricing_*.go file.

    The file is one Go map literal: a `"<region>": {` line opens a region, `"type": price,` pairs follow
    (several per line, under `// <family> family` comments) and a lone `},` closes it.
    """
    stamp = re.search(r"^// generated at (\S+) for \S+$", text, re.M)
    if not stamp or not re.search(r"^var InitialOnDemandPrices\w* = map\[string\]map", text, re.M):
        raise SystemExit("not a Karpenter price table (no `generated at` line or InitialOnDemandPrices map)")
    regions: dict[str, dict[str, float]] = {}
    current: dict[str, float] | None = None
    for line in text.splitlines():
        if m := re.match(r'^\t"([a-z]{2}(?:-[a-z]+)+-\d)": \{$', line):
            current = regions.setdefault(m[1], {})
        elif current is not None and re.match(r"^\t\},?$", line):
            current = None
        elif current is not None:
            for itype, price in re.findall(r'"([a-z0-9-]+\.[a-z0-9-]+)": ([0-9]+\.[0-9]+)', line):
                current[itype] = float(price)
    if not regions or not all(regions.values()):
        raise SystemExit("a Karpenter price table without regions or prices: the upstream format changed")
    return stamp[1], regions


def _text(page: str) -> str:
    """The page's words: tags dropped, entities decoded, whitespace collapsed (works on HTML and plain text)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def parse_eks_pricing(page: str) -> dict[str, float]:
    """The two control-plane prices from the AWS post; refuses to guess when the wording changed."""
    text = _text(page)
    extended = re.search(r"extended support window will be charged a total of \$([0-9.]+) per cluster per hour", text)
    standard = re.search(
        r"standard support is unchanged\W+you will continue to pay \$([0-9.]+) per cluster per hour", text
    )
    if not (extended and standard):
        raise SystemExit("the EKS pricing page no longer states both prices in the expected words: the format changed")
    return {"standard_support": float(standard[1]), "extended_support": float(extended[1])}


# --- outputs ------------------------------------------------------------------------------------

# What the `charges` block prices per region (keys as scripts/lib/price_list.py names them) and per what.
CHARGE_UNITS = {
    "nat_gateway_hour": "USD per NAT gateway-hour",
    "nat_gateway_gb": "USD per GB processed by a NAT gateway",
    "ebs_gp3_gb_month": "USD per GB-month of EBS gp3 storage (provisioned size)",
    "kms_key_month": "USD per KMS key-month (a customer managed key)",
    "public_ipv4_hour": "USD per public IPv4 address-hour (a NAT gateway's Elastic IP)",
    "eks_cluster_hour": "USD per EKS cluster-hour in standard support (AmazonEKS offer file)",
    "eks_extended_support_hour": "USD per EKS cluster-hour billed on top of it in extended support (AmazonEKS)",
}
PAGES_ROLE = "aws-pricing-pages"


def page_charges(pin: dict) -> tuple[dict[str, dict[str, float]], list[dict]]:
    """({region: {charge: USD}}, source records) from the pricing pages' dated facts in scripts/upstream.json."""
    charges: dict[str, dict[str, float]] = {}
    sources = []
    for key, fact in sorted(pin["facts"].items()):
        if key not in CHARGE_UNITS:
            raise SystemExit(f"{PAGES_ROLE}: {key} is not a charge the snapshot knows ({', '.join(CHARGE_UNITS)})")
        for region, price in fact["prices"].items():
            charges.setdefault(region, {})[key] = float(price)
        record = {"role": PAGES_ROLE, "charge": key, "url": fact["url"], "date": pin["date"]}
        if "effective" in fact:
            record["effective"] = fact["effective"]
        sources.append({**record, "regions": sorted(fact["prices"]), "license": pin["license"]})
    return charges, sources


def build(
    tables: list[tuple[dict, str, dict[str, dict[str, float]]]],
    eks: dict[str, float],
    sources: list[dict],
    offers: Sequence[price_list.OfferPrices] = (),
    generated: str | None = None,
    pages: dict[str, dict[str, float]] | None = None,
    cny: tuple[dict, str, dict[str, dict[str, float]]] | None = None,
):
    """The snapshot's head and rows: one row per instance type, its price in every region that has one.

    Karpenter's tables first; an offer file's region then replaces that region's whole table (a type the
    newer price list no longer sells must not keep an old price) and adds the region's charges."""
    regions: dict[str, dict] = {}
    by_region: dict[str, dict[str, float]] = {}
    for source, stamp, tables_by_region in tables:
        for region, prices in sorted(tables_by_region.items()):
            regions[region] = {"from": source["role"], "price_list_generated_at": stamp, "instance_types": len(prices)}
            by_region[region] = prices
    # The pages' facts first: an offer file of the same region (machine-readable, versioned) replaces them.
    charges: dict[str, dict[str, float]] = {region: dict(found) for region, found in (pages or {}).items()}
    read: dict[tuple[str, str], str] = {}  # (offer, region) -> file: two files for one region are refused
    cny_tables = dict(cny[2]) if cny is not None else {}
    cny_regions = {r: {"from": cny[0]["role"], "price_list_generated_at": cny[1]} for r in cny_tables} if cny else {}
    charges_cny: dict[str, dict[str, float]] = {}
    auto_mode: dict[str, dict] = {"regions": {}, "prices": {}, "prices_cny": {}}
    for offer in offers:
        for region in offer.regions:
            if (offer.offer, region) in read:
                raise SystemExit(f"{offer.offer} {region} is in both {read[offer.offer, region]} and {offer.file}")
            read[offer.offer, region] = offer.file
        for region, fees in sorted(offer.auto_mode.items()):
            auto_mode["regions"][region] = {
                "from": offer_role(offer),
                "price_list_generated_at": offer.publication_date,
                "offer_version": offer.version,
                "currency": offer.currency,
                "instance_types": len(fees),
            }
            auto_mode["prices_cny" if offer.currency == "CNY" else "prices"][region] = dict(sorted(fees.items()))
        if offer.currency == "CNY":  # the China price list: CNY, never among the USD rows and charges
            for region, prices in sorted(offer.ec2.items()):
                cny_tables[region] = prices
                cny_regions[region] = {
                    "from": CN_ROLE,
                    "price_list_generated_at": offer.publication_date,
                    "offer_version": offer.version,
                }
            for region, found in offer.charges.items():
                charges_cny.setdefault(region, {}).update(found)
            continue
        for region, prices in sorted(offer.ec2.items()):
            regions[region] = {
                "from": OFFER_ROLES[offer.offer],
                "price_list_generated_at": offer.publication_date,
                "offer_version": offer.version,
                "instance_types": len(prices),
            }
            by_region[region] = prices
        for region, found in offer.charges.items():
            charges.setdefault(region, {}).update(found)
    rows: dict[str, dict[str, float]] = {}
    for region, prices in sorted(by_region.items()):
        for itype, price in prices.items():
            rows.setdefault(itype, {})[region] = price
    head = {
        "generated": generated or datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_prices.py",
        "source": sources,
        "currency": "USD",
        "ec2_on_demand": {
            "what": "EC2 on-demand price, Linux, shared tenancy (bare metal: dedicated), no pre-installed software "
            "(Karpenter's Price List filter)",
            "unit": "USD per instance-hour",
            "regions": regions,
        },
        "eks_control_plane": {
            **eks,
            "unit": "USD per cluster-hour",
            "effective": "2024-04-01",
            "partition": "aws",
            "note": "the extended-support price is the total per cluster-hour, not a surcharge on the standard one",
        },
        "ec2_on_demand_cny": _cny_block(cny_regions, cny_tables),
        "charges": {
            "what": "on-demand prices of what a stack creates besides instances, per region: AWS Price List offer "
            "files, else the pricing pages' dated facts (aws-pricing-pages)",
            "units": CHARGE_UNITS,
            "regions": charges,
        },
        "charges_cny": {
            "what": "the same charges in the China regions, in CNY (their own price list): never added to USD",
            "units": {k: v.replace("USD", "CNY", 1) for k, v in CHARGE_UNITS.items()},
            "regions": charges_cny,
        },
        "eks_auto_mode": {
            "what": "the EKS Auto Mode management fee per instance Auto Mode launches, on top of the instance's "
            "EC2 price (AmazonEKS offer files, eksproducttype AutoMode)",
            "unit": "USD per instance-hour (prices_cny: CNY per instance-hour)",
            **auto_mode,
        },
        "unknown": UNKNOWN,
    }
    return head, rows


def _cny_block(regions: dict[str, dict], by_region: dict[str, dict[str, float]]) -> dict:
    """The China partition's table, apart: CNY per instance-hour, never mixed with the USD rows."""
    if not by_region:
        return {"unit": "CNY per instance-hour", "regions": {}, "prices": {}}
    return {
        "what": "EC2 on-demand price in the China partition, Linux, shared tenancy (Karpenter's Price List filter)",
        "unit": "CNY per instance-hour",
        "regions": {r: regions[r] for r in sorted(by_region)},
        "prices": {r: dict(sorted(p.items())) for r, p in sorted(by_region.items())},
    }


def offer_role(offer: price_list.OfferPrices) -> str:
    """The scripts/upstream.json pin an offer file is read under: its offer's, or the China price list's."""
    return CN_ROLE if offer.currency == "CNY" else OFFER_ROLES[offer.offer]


def offer_source(offer: price_list.OfferPrices) -> dict:
    """An offer file's provenance record: its pin, the file's own version, publication date and regions."""
    role = offer_role(offer)
    pin = upstream.manifest()[role]
    return {
        "role": role,
        "url": offer.url(),
        "file": offer.file,
        "version": offer.version,
        "publication_date": offer.publication_date,
        "regions": offer.regions,
        **({"currency": offer.currency} if offer.currency != "USD" else {}),
        "license": pin["license"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--karpenter-prices", metavar="FILE", help="zz_generated.pricing_aws.go")
    p.add_argument("--karpenter-prices-us-gov", metavar="FILE", help="zz_generated.pricing_aws_us_gov.go")
    p.add_argument("--eks-pricing", metavar="FILE", help="the AWS post (HTML, or its text)")
    p.add_argument("--karpenter-prices-cn", metavar="FILE", help="zz_generated.pricing_aws_cn.go (CNY)")
    p.add_argument(
        "--price-list",
        metavar="FILE",
        nargs="+",
        default=[],
        help="AWS Price List offer files (AmazonEC2 or awskms index.json, one region or all; .gz read as is)",
    )
    p.add_argument("--fetch", action="store_true", help="download the files that were not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    tables, sources = [], []
    for role, local in (
        ("karpenter-prices-aws", args.karpenter_prices),
        ("karpenter-prices-aws-us-gov", args.karpenter_prices_us_gov),
    ):
        text, src = upstream.read(role, local, args.fetch, args.ref)
        stamp, by_region = parse_karpenter_prices(text)
        tables.append((src, stamp, by_region))
        sources.append({**src, "generated_at": stamp})
    page, src = upstream.read("eks-control-plane-pricing", args.eks_pricing, args.fetch, args.ref)
    eks = parse_eks_pricing(page)
    sources.append(src)
    cny = None
    if args.karpenter_prices_cn or args.fetch:
        text, src = upstream.read("karpenter-prices-aws-cn", args.karpenter_prices_cn, args.fetch, args.ref)
        stamp, cn_tables = parse_karpenter_prices(text)
        cny = (src, stamp, cn_tables)
        sources.append({**src, "generated_at": stamp, "currency": "CNY"})
    pages, page_sources = page_charges(upstream.manifest()[PAGES_ROLE])
    sources += page_sources
    offers = []
    for path in args.price_list:
        offer = price_list.read_offer(Path(path))
        if not offer.regions:  # a region index may list zones that are not AWS Regions
            print(f"{path}: skipped, no product located in an AWS Region", file=sys.stderr)
            continue
        offers.append(offer)
        print(f"{path}: {offer.offer} {offer.version}, {', '.join(offer.regions)}", file=sys.stderr)
    offers.sort(key=lambda o: (o.offer, o.regions, o.file))
    sources += [offer_source(o) for o in offers]
    head, rows = build(tables, eks, sources, offers, pages=pages, cny=cny)
    upstream.write_json(args.output, head, ITEMS, rows)
    print(
        f"{len(rows)} instance types in {len(head['ec2_on_demand']['regions'])} regions, other charges in "
        f"{len(head['charges']['regions'])} -> {args.output}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
