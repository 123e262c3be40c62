#!/usr/bin/env python3
"""Generate the EC2 instance quotas (mlplatform_core/data/ec2_quotas.json) from Service Quotas' own listings.

Standard library only. The EC2 quotas that stop GPU and spot groups first count vCPUs per group of instance
families (Running On-Demand P instances, All G and VT Spot Instance Requests, ...); Capacity Blocks have
quotas of their own, counted in blocks. AWS's documentation names these quotas but not their codes or
defaults, and moto (5.2.5) ships Service Quotas defaults for `vpc` only, so the codes and defaults come from
ListAWSDefaultServiceQuotas answers as they were published. Sources (pinned in scripts/upstream.json):
  ec2-default-quotas             Gruntwork's terraform-aws-utilities docs/quotas.md (2024-02-10): its generator's
                                 table of ListAWSDefaultServiceQuotas (us-east-1), `| service | code | name | code
                                 | default |`: the AWS default of each quota it lists.
  ec2-quota-names                the same repository's modules/request-quota-increase/variables.tf (2026-01-14),
                                 written by the same generator later: every current quota's name and code (the
                                 Capacity Block quotas and the split P Spot quotas are only here; their default is
                                 recorded as unknown).
  awscli-service-quotas-example  AWS's own `get-aws-default-service-quota` example (awscli wheel): the Standard
                                 On-Demand quota's code, name and default, which the Gruntwork table must match.
Which families a quota covers is read from its name (`Standard (A, C, D, H, I, M, R, T, Z)`, `G and VT`,
`P4, P3 and P2`, `P5`) against the families of the instance catalog (mlplatform_core/data/instance_types.json).

Usage (from the repository root):
  scripts/generators/generate_ec2_quotas.py --defaults FILE --names FILE --example FILE
  scripts/generators/generate_ec2_quotas.py --fetch
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "ec2_quotas.json"
CATALOG = ROOT / "mlplatform_core" / "data" / "instance_types.json"

# The three kinds of quota, by the form of their names in Service Quotas.
KINDS = {
    "onDemand": re.compile(r"^Running On-Demand (?P<what>.+) instances$"),
    "spot": re.compile(r"^All (?P<what>.+) Spot Instance Requests$"),
    "capacityBlock": re.compile(r"^Concurrent (?P<what>.+) Capacity Blocks per account$"),
}
UNITS = {"onDemand": "vCPUs", "spot": "vCPUs", "capacityBlock": "Capacity Blocks"}
DEFAULT_ROW = re.compile(r"^\|[^|]*\|\s*ec2\s*\|([^|]+)\|\s*(L-[0-9A-F]{8})\s*\|\s*([0-9.]+)\s*\|")
NAME_LINE = re.compile(r'description\s*=\s*"Quota for \[ec2\]: (?P<name>.+) \((?P<code>L-[0-9A-F]{8})\)"')
EXAMPLE = re.compile(r'"(?P<key>QuotaCode|QuotaName|Value|Adjustable)":\s*(?:"(?P<text>[^"]*)"|(?P<value>[^",\s]+))')


def parse_defaults(text: str) -> dict[str, tuple[str, float]]:
    """code -> (name, default) of the EC2 rows of the ListAWSDefaultServiceQuotas table."""
    out = {}
    for line in text.splitlines():
        if m := DEFAULT_ROW.match(line.strip()):
            out[m[2]] = (m[1].strip(), float(m[3]))
    return out


def parse_names(text: str) -> dict[str, str]:
    """code -> name of every EC2 quota the later listing has."""
    return {m["code"]: m["name"] for m in NAME_LINE.finditer(text)}


def parse_example(text: str) -> dict[str, str]:
    return {m["key"]: m["text"] if m["text"] is not None else m["value"] for m in EXAMPLE.finditer(text)}


def tokens(what: str) -> list[str]:
    """The family tokens of a quota's name: `Standard (A, C)` -> A, C; `G and VT` -> G, VT; `P4, P3 and P2`."""
    if m := re.search(r"\(([^)]*)\)", what):
        what = m[1]
    parts = [p.strip() for p in re.split(r",|\band\b", what)]
    return [p for p in parts if re.fullmatch(r"[A-Za-z]+[0-9A-Za-z-]*", p)]


def family_class(family: str) -> str:
    """The letters before a family's generation: p5en -> p, inf2 -> inf, trn1n -> trn, u-6tb1 -> u."""
    m = re.match(r"[a-z]+", family)
    return m[0] if m else family


def _matches(kind: str, token: str, family: str) -> bool:
    t = token.lower()
    if kind == "capacityBlock":  # one quota per family: Concurrent P5 / P5e / P5en Capacity Blocks
        return family == t
    if any(c.isdigit() for c in t):  # a generation: P4 covers p4d and p4de
        return family.startswith(t)
    return family_class(family) == t


def covered(
    kind: str, quota_tokens: dict[str, list[str]], families: list[str], named: set[str]
) -> dict[str, list[str]]:
    """code -> the catalog families it covers, among the quotas of one kind. A family whose letters no quota of
    any kind names (`named`) falls to the longest letter-only token its letters start with (im4gn and is4gen
    are I, gr6 is G); one a quota names (hpc, inf, trn) never does, so HPC types are no Standard Spot request."""
    out: dict[str, list[str]] = {code: [] for code in quota_tokens}
    for fam in families:
        hits = [code for code, toks in quota_tokens.items() if any(_matches(kind, t, fam) for t in toks)]
        if not hits and kind != "capacityBlock" and family_class(fam) not in named:
            cls = family_class(fam)
            prefixes = [
                (len(t), code)
                for code, toks in quota_tokens.items()
                for t in toks
                if t.isalpha() and cls.startswith(t.lower())
            ]
            hits = [max(prefixes)[1]] if prefixes else []
        if len(hits) > 1:
            raise SystemExit(f"{fam}: covered by several {kind} quotas {hits}: has a quota's name changed?")
        for code in hits:
            out[code].append(fam)
    return out


def build(defaults: dict[str, tuple[str, float]], names: dict[str, str], families: list[str]) -> dict[str, dict]:
    by_kind: dict[str, dict[str, list[str]]] = {k: {} for k in KINDS}
    quotas: dict[str, dict] = {}
    for code, name in names.items():
        for kind, pattern in KINDS.items():
            if m := pattern.match(name):
                default = defaults.get(code)
                quotas[code] = {
                    "name": name,
                    "kind": kind,
                    "unit": UNITS[kind],
                    "default": int(default[1]) if default else None,
                    "tokens": tokens(m["what"]),
                }
                by_kind[kind][code] = quotas[code]["tokens"]
    named = {t.lower() for toks in by_kind.values() for ts in toks.values() for t in ts if t.isalpha()}
    for kind, quota_tokens in by_kind.items():
        for code, fams in covered(kind, quota_tokens, families, named).items():
            quotas[code]["families"] = sorted(fams)
    return quotas


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--defaults", metavar="FILE", help="docs/quotas.md of gruntwork-io/terraform-aws-utilities")
    p.add_argument("--names", metavar="FILE", help="modules/request-quota-increase/variables.tf of the same")
    p.add_argument("--example", metavar="FILE", help="awscli/examples/service-quotas/get-aws-default-service-quota.rst")
    p.add_argument("--fetch", action="store_true")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    defaults_text, defaults_src = upstream.read("ec2-default-quotas", args.defaults, args.fetch)
    names_text, names_src = upstream.read("ec2-quota-names", args.names, args.fetch)
    example_text, example_src = upstream.read("awscli-service-quotas-example", args.example, args.fetch)
    defaults, names, example = parse_defaults(defaults_text), parse_names(names_text), parse_example(example_text)
    # AWS's own answer for the Standard quota must be what the published table says: the table is trusted for
    # the others only if it agrees with AWS where both speak.
    code = example.get("QuotaCode", "")
    if code not in defaults or defaults[code][1] != float(example.get("Value", "nan")):
        print(f"the AWS CLI's example ({example}) disagrees with the defaults table on {code}", file=sys.stderr)
        return 1
    if names.get(code) != example.get("QuotaName"):
        named = example.get("QuotaName")
        print(f"the AWS CLI's example names {code} {named!r}, not {names.get(code)!r}", file=sys.stderr)
        return 1
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))["instance_types"]
    families = sorted({t.split(".", 1)[0] for t in catalog})
    quotas = build(defaults, names, families)
    if not any(q["kind"] == "onDemand" for q in quotas.values()):
        print("no Running On-Demand quota found: has the listing's format changed?", file=sys.stderr)
        return 1
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_ec2_quotas.py",
        "source": [defaults_src, names_src, example_src],
        "fields": {
            "name": "the quota's name in Service Quotas (service code ec2)",
            "kind": "onDemand (running On-Demand vCPUs), spot (vCPUs of Spot requests), capacityBlock (concurrent "
            "Capacity Blocks per account)",
            "default": "the AWS default of ListAWSDefaultServiceQuotas (us-east-1, ec2-default-quotas' day); null "
            "when that listing did not have the quota",
            "families": "the instance catalog's families the quota counts (from the quota's name)",
            "tokens": "the family names the quota's name lists",
        },
    }
    upstream.write_json(args.output, head, "quotas", quotas)
    print(f"{len(quotas)} EC2 instance quotas -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
