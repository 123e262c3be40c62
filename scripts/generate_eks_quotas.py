#!/usr/bin/env python3
"""Generate the EKS service quotas (mlplatform_core/data/eks_quotas.json) from the EKS user guide.

Standard library only. Sources (pinned in scripts/upstream.json):
  eks-service-quotas          the EKS user guide's "View and manage Amazon EKS and Fargate service quotas" page:
                              its table of quotas (name, default per Region, adjustable, description). The table
                              is rendered from Service Quotas and not kept in the guide's git repository, so the
                              page is pinned by its URL and the day it was read; give its table as Markdown
                              (`| Name | Default | Adjustable | Description |`, the page's .md form).
  eks-user-guide-quotas-note  the same page's source in awsdocs/amazon-eks-user-guide: the quotas that are not
                              in Service Quotas (Pod Identity associations per cluster).

Usage (from the repository root):
  scripts/generate_eks_quotas.py --page FILE --user-guide FILE
  scripts/generate_eks_quotas.py --fetch
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from pathlib import Path

import upstream

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "mlplatform_core" / "data" / "eks_quotas.json"
ROW = re.compile(r"^\|([^|]+)\|([^|]+)\|([^|]+)\|([^|]*)\|\s*$")
DEFAULT = re.compile(r"([0-9][0-9,]*)\s*$")
# "* Pod Identity associations per cluster is [.noloc]`1000` in each supported region and this quota isn't adjustable."
NOTE = re.compile(
    r"^\*\s*(?P<name>[A-Z][^*]*?) is (?:\[\.noloc\])?`(?P<value>[0-9,]+)`[^.]*?(?P<fixed>isn't adjustable)?\."
)


def parse_page(text: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for line in text.splitlines():
        m = ROW.match(line.strip())
        if not m:
            continue
        name, default, adjustable, description = (g.strip() for g in m.groups())
        value = DEFAULT.search(default)
        if name in ("Name", "Service quota") or set(name) <= {"-", ":", " "} or not value:
            continue
        out[name] = {
            "default": int(value[1].replace(",", "")),
            "adjustable": adjustable.lower().startswith("yes"),
            "description": description,
        }
    return out


def parse_user_guide(text: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for line in text.splitlines():
        m = NOTE.match(line.strip())
        if m:
            out[m["name"].strip()] = {
                "default": int(m["value"].replace(",", "")),
                "adjustable": not m["fixed"],
                "description": "not in Service Quotas (the user guide's note)",
            }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--page", metavar="FILE", help="the quotas table of the user guide page, as Markdown")
    p.add_argument("--user-guide", metavar="FILE", help="service-quotas.adoc from awsdocs/amazon-eks-user-guide")
    p.add_argument("--fetch", action="store_true")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    page, page_src = upstream.read("eks-service-quotas", args.page, args.fetch)
    guide, guide_src = upstream.read("eks-user-guide-quotas-note", args.user_guide, args.fetch)
    quotas = {**parse_user_guide(guide), **parse_page(page)}
    if not quotas:
        print("no quota found: has the page's format changed?", file=sys.stderr)
        return 1
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generate_eks_quotas.py",
        "source": [page_src, guide_src],
        "fields": {"default": "the AWS default per Region", "adjustable": "whether AWS raises it on request"},
    }
    upstream.write_json(args.output, head, "quotas", quotas)
    print(f"{len(quotas)} EKS quotas -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
