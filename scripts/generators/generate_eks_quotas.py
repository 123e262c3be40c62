#!/usr/bin/env python3
"""Generate the EKS service quotas (mlplatform_core/data/eks_quotas.json) from the EKS user guide.

Standard library only. Sources (pinned in scripts/upstream.json):
  eks-service-quotas          the EKS user guide's "View and manage Amazon EKS and Fargate service quotas" page:
                              its table of quotas (name, default per Region, adjustable, description). The table
                              is rendered from Service Quotas and not kept in the guide's git repository, so the
                              page is pinned by its URL and the day it was read; give its table as Markdown
                              (`| Name | Default | Adjustable | Description |`, the page's .md form).
  eks-user-guide-quotas-note  the same page's source in awsdocs/amazon-eks-user-guide: the quotas that are not
                              in Service Quotas (Pod Identity associations per cluster). That repository stopped
                              at 2024-12-18 (its note still says 1000).
  eks-pod-identities          the EKS user guide's "Learn how EKS Pod Identity grants pods access to AWS
                              services" page (pod-identities.html, pinned by URL and day read): its considerations
                              give the current Pod Identity associations per cluster (5,000), which override the
                              stale note; the note's "isn't adjustable" stands unless the page says otherwise.

Usage (from the repository root):
  scripts/generators/generate_eks_quotas.py --page FILE --user-guide FILE --pod-identities FILE
  scripts/generators/generate_eks_quotas.py --fetch
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


# The pod-identities page's considerations, as prose: "... up to 5,000 EKS Pod Identity associations per cluster ..."
# or "Pod Identity associations per cluster: 5,000" (the number before or after the quota's name, in one sentence).
POD_IDENTITY = re.compile(
    r"(?:(?P<before>[0-9][0-9,]*)\s+(?:EKS\s+)?Pod Identity associations per cluster"
    r"|Pod Identity associations per cluster[^.0-9]{0,40}?(?P<after>[0-9][0-9,]*))(?P<rest>[^.]*)",
    re.IGNORECASE,
)
POD_IDENTITY_QUOTA = "Pod Identity associations per cluster"


def parse_pod_identities(text: str) -> dict[str, dict]:
    """The Pod Identity associations quota from the pod-identities page (empty when the page does not give it)."""
    m = POD_IDENTITY.search(re.sub(r"[`*]|\[\.noloc\]", "", text))
    if not m:
        return {}
    value = int((m["before"] or m["after"]).replace(",", ""))
    entry: dict = {"default": value, "description": "not in Service Quotas (the pod-identities page)"}
    rest = m["rest"].lower()
    if re.search(r"(?:isn't|is not|not|cannot be) (?:adjustable|increased|adjusted)", rest):
        entry["adjustable"] = False
    elif "adjustable" in rest:
        entry["adjustable"] = True
    return {POD_IDENTITY_QUOTA: entry}


def merge_notes(guide: dict[str, dict], pod_identities: dict[str, dict]) -> dict[str, dict]:
    """The user guide's notes, each value the pod-identities page states overriding the (older) note's."""
    out = {k: dict(v) for k, v in guide.items()}
    for name, entry in pod_identities.items():
        base = out.get(name, {"adjustable": False})
        out[name] = {**base, **entry}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--page", metavar="FILE", help="the quotas table of the user guide page, as Markdown")
    p.add_argument("--user-guide", metavar="FILE", help="service-quotas.adoc from awsdocs/amazon-eks-user-guide")
    p.add_argument("--pod-identities", metavar="FILE", help="the pod-identities page of the EKS user guide")
    p.add_argument("--fetch", action="store_true")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    page, page_src = upstream.read("eks-service-quotas", args.page, args.fetch)
    guide, guide_src = upstream.read("eks-user-guide-quotas-note", args.user_guide, args.fetch)
    pods, pods_src = upstream.read("eks-pod-identities", args.pod_identities, args.fetch)
    pod_identity = parse_pod_identities(pods)
    if not pod_identity:
        print("no Pod Identity associations quota on the pod-identities page: has its text changed?", file=sys.stderr)
        return 1
    quotas = {**merge_notes(parse_user_guide(guide), pod_identity), **parse_page(page)}
    if not quotas:
        print("no quota found: has the page's format changed?", file=sys.stderr)
        return 1
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_eks_quotas.py",
        "source": [page_src, guide_src, pods_src],
        "fields": {"default": "the AWS default per Region", "adjustable": "whether AWS raises it on request"},
    }
    upstream.write_json(args.output, head, "quotas", quotas)
    print(f"{len(quotas)} EKS quotas -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
