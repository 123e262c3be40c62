#!/usr/bin/env python3
"""Generate the EKS Kubernetes version calendar (mlplatform_core/data/eks_versions.json) from upstream data.

Standard library only. Sources (pinned in scripts/upstream.json):
  endoflife-eks            endoflife-date/endoflife.date products/amazon-eks.md: release, end of standard
                           support (eol) and end of extended support (eoes) per minor, scraped from AWS
  eks-user-guide-versions  awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc: the
                           release calendar as AWS publishes it; authoritative where the two overlap

Usage (from the repository root):
  scripts/generators/generate_eks_versions.py --fetch
  scripts/generators/generate_eks_versions.py --endoflife FILE [--aws-docs FILE]
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "eks_versions.json"
MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        start=1,
    )
}
FIELDS = (("eks_release", "releaseDate"), ("end_of_standard_support", "eol"), ("end_of_extended_support", "eoes"))
OLDEST = (1, 23)  # extended support (and so this calendar's model) starts at 1.23


def parse_endoflife(text: str) -> dict[str, dict[str, str]]:
    """The `releases:` list of the page's YAML front matter (flat scalar keys only)."""
    front = text.split("---", 2)[1]
    out: dict[str, dict[str, str]] = {}
    current = None
    for line in front.split("\nreleases:", 1)[1].splitlines():
        line = line.split(" #", 1)[0].rstrip()
        if m := re.match(r'^\s*-\s*releaseCycle:\s*"?([0-9.]+)"?', line):
            current = out.setdefault(m[1], {})
        elif (m := re.match(r'^\s+(\w+):\s*"?([^"]*)"?\s*$', line)) and current is not None:
            current[m[1]] = m[2]
    return out


def _aws_date(text: str) -> str | None:
    text = text.strip().replace("\\", "")
    if m := re.match(r"([A-Z][a-z]+) (\d{1,2}), (\d{4})$", text):
        return datetime.date(int(m[3]), MONTHS[m[1]], int(m[2])).isoformat()
    return None  # month-only ("approximate") dates are not precise enough to bill by


def parse_aws_calendar(text: str) -> dict[str, dict[str, str | None]]:
    """The asciidoc table whose header starts with `Kubernetes version` (one cell per line)."""
    for table in text.split("|===")[1::2]:
        cells = [c.strip()[1:].strip() for c in table.splitlines() if c.strip().startswith("|")]
        if cells and cells[0].startswith("Kubernetes version"):
            rows = [cells[i : i + 5] for i in range(5, len(cells), 5)]
            return {
                r[0].strip("`"): {
                    "upstream_release": _aws_date(r[1]),
                    "eks_release": _aws_date(r[2]),
                    "end_of_standard_support": _aws_date(r[3]),
                    "end_of_extended_support": _aws_date(r[4]),
                }
                for r in rows
                if len(r) == 5
            }
    raise SystemExit("no `Kubernetes version` calendar table in the AWS page: the upstream format changed")


def build(eol: dict, aws: dict) -> tuple[dict[str, dict], list[str]]:
    versions, disagreements = {}, []
    for version in set(eol) | set(aws):
        if tuple(map(int, version.split("."))) < OLDEST:
            continue
        e, a = eol.get(version, {}), aws.get(version, {})
        rec = {}
        for field, eol_key in FIELDS:
            ours, theirs = a.get(field), e.get(eol_key) or None
            if ours and theirs and ours != theirs:
                disagreements.append(f"{version} {field}: AWS {ours}, endoflife.date {theirs}")
            rec[field] = ours or theirs
        rec["from"] = "aws" if a else "endoflife.date"
        versions[version] = rec
    return versions, disagreements


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--endoflife", metavar="FILE")
    p.add_argument("--aws-docs", metavar="FILE")
    p.add_argument("--fetch", action="store_true", help="download the files that were not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    eol_text, eol_src = upstream.read("endoflife-eks", args.endoflife, args.fetch, args.ref)
    sources, aws = [eol_src], {}
    if args.aws_docs or args.fetch:
        aws_text, aws_src = upstream.read("eks-user-guide-versions", args.aws_docs, args.fetch, args.ref)
        aws = parse_aws_calendar(aws_text)
        sources.append(aws_src)
    versions, disagreements = build(parse_endoflife(eol_text), aws)
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_eks_versions.py",
        "source": sources,
        "fields": {
            "eks_release": "the day EKS offered the minor",
            "end_of_standard_support": "from this day the cluster bills at the extended-support price",
            "end_of_extended_support": "from this day EKS upgrades the cluster itself",
            "from": "aws: the AWS calendar; endoflife.date: newer minors it lists",
        },
        # Kept visible: where the two sources differ, the AWS calendar is used.
        "disagreements": disagreements,
    }
    upstream.write_json(args.output, head, "versions", versions)
    print(f"{len(versions)} Kubernetes minors -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
