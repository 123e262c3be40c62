#!/usr/bin/env python3
"""Generate the price snapshot (mlplatform_core/data/prices.json) from upstream data.

Standard library only. Sources (pinned in scripts/upstream.json):
  karpenter-prices-aws         aws/karpenter-provider-aws pkg/providers/pricing/zz_generated.pricing_aws.go:
                               EC2 on-demand prices (Linux, shared tenancy, USD per hour) that Karpenter
                               generates from the AWS Price List API; upstream generates us-east-1 only
  karpenter-prices-aws-us-gov  the same file for GovCloud (us-gov-east-1, us-gov-west-1)
  eks-control-plane-pricing    the AWS Containers blog post that states the EKS control-plane price per
                               cluster-hour in standard and in extended support (a page, not a git file)

Nothing else is priced: spot prices, NAT gateways, public IPv4 addresses, EBS and KMS have no
authoritative committed dataset, so the snapshot names them under `unknown` with the reason and the
toolkit reports them as unknown. The China file (cn-north-1) is not read: it is in CNY and stale upstream.

It also writes the policy pack's copy (policies/mlplatform_policies/prices.json): the same prices plus
the support dates of each Kubernetes minor from mlplatform_core/data/eks_versions.json, because the pack
runs in its own venv without the toolkit. A test keeps the two equal; after a refresh of the EKS calendar
run `scripts/generate_prices.py --pack-only` to bring the pack's copy up to date.

Usage (from the repository root):
  scripts/generate_prices.py --fetch                       # the pinned upstream commits and the AWS page
  scripts/generate_prices.py --fetch --ref main            # refresh; then pin the commits in upstream.json
  scripts/generate_prices.py --karpenter-prices FILE --karpenter-prices-us-gov FILE --eks-pricing FILE
  scripts/generate_prices.py --pack-only                   # re-derive the pack's copy from the snapshots
"""

from __future__ import annotations

import argparse
import datetime
import html
import json
import re
import sys
from pathlib import Path

import upstream

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "mlplatform_core" / "data" / "prices.json"
PACK_OUTPUT = ROOT / "policies" / "mlplatform_policies" / "prices.json"
CALENDAR = ROOT / "mlplatform_core" / "data" / "eks_versions.json"
ITEMS = "on_demand_usd_per_hour"

UNKNOWN = {
    "ec2_spot": "no authoritative dataset commits spot prices (Karpenter seeds none and reads them live from "
    "EC2 DescribeSpotPriceHistory); a spot node costs at most its on-demand price, the default maximum price",
    "ec2_other_regions": "Karpenter's price generator commits only us-east-1 for the commercial partition and "
    "us-gov-east-1/us-gov-west-1 for GovCloud; other regions need the AWS Price List API",
    "nat_gateway": "no authoritative machine-readable price for NAT gateway hours or processed GB in any "
    "committed dataset (only third-party blogs)",
    "public_ipv4": "no authoritative machine-readable price for public IPv4 addresses (the NAT gateways' "
    "Elastic IPs) in any committed dataset",
    "ebs": "no authoritative machine-readable price for EBS volumes (GB-month) in any committed dataset",
    "kms_key": "no authoritative machine-readable price for a KMS key (per month) in any committed dataset",
    "eks_control_plane_other_partitions": "the AWS statement gives one list price for the commercial "
    "partition; GovCloud, China (CNY) and ISO regions have their own price lists",
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


def build(tables: list[tuple[dict, str, dict[str, dict[str, float]]]], eks: dict[str, float], sources: list[dict]):
    """The snapshot's head and rows: one row per instance type, its price in every region that has one."""
    regions, rows = {}, {}
    for source, stamp, by_region in tables:
        for region, prices in sorted(by_region.items()):
            regions[region] = {"from": source["role"], "price_list_generated_at": stamp, "instance_types": len(prices)}
            for itype, price in prices.items():
                rows.setdefault(itype, {})[region] = price
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generate_prices.py",
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
        "unknown": UNKNOWN,
    }
    return head, rows


def support_dates() -> dict[str, dict[str, str]]:
    """When each Kubernetes minor leaves standard and extended support (the toolkit's EKS calendar)."""
    versions = json.loads(CALENDAR.read_text(encoding="utf-8"))["versions"]
    return {
        minor: {k: v[k] for k in ("end_of_standard_support", "end_of_extended_support")}
        for minor, v in versions.items()
    }


def write_pack(snapshot: Path, pack: Path) -> None:
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    head = {k: v for k, v in data.items() if k != ITEMS}
    head["derived_from"] = ["mlplatform_core/data/prices.json", "mlplatform_core/data/eks_versions.json"]
    head["eks_support"] = support_dates()
    upstream.write_json(pack, head, ITEMS, data[ITEMS])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--karpenter-prices", metavar="FILE", help="zz_generated.pricing_aws.go")
    p.add_argument("--karpenter-prices-us-gov", metavar="FILE", help="zz_generated.pricing_aws_us_gov.go")
    p.add_argument("--eks-pricing", metavar="FILE", help="the AWS post (HTML, or its text)")
    p.add_argument("--fetch", action="store_true", help="download the files that were not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("--pack-only", action="store_true", help="only re-derive the pack's copy from the snapshots")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    p.add_argument("--pack-output", type=Path, default=PACK_OUTPUT)
    args = p.parse_args(argv)
    if not args.pack_only:
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
        head, rows = build(tables, eks, sources)
        upstream.write_json(args.output, head, ITEMS, rows)
        print(
            f"{len(rows)} instance types in {len(head['ec2_on_demand']['regions'])} regions -> {args.output}",
            file=sys.stderr,
        )
    write_pack(args.output, args.pack_output)
    print(f"the policy pack's copy -> {args.pack_output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
