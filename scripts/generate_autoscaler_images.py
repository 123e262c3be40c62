#!/usr/bin/env python3
"""Generate the Cluster Autoscaler image per Kubernetes minor (mlplatform_core/data/autoscaler_images.json).

The autoscaler's minor must match the cluster's (its scheduler simulation is version-specific), so each
minor of the EKS calendar (mlplatform_core/data/eks_versions.json) gets the newest patch release of the
same minor, read from the release tags of kubernetes/autoscaler (cluster-autoscaler-1.MINOR.PATCH; the
image registry.k8s.io/autoscaling/cluster-autoscaler is tagged vMAJOR.MINOR.PATCH). Standard library only.

Usage (from the repository root):
  scripts/generate_autoscaler_images.py --fetch              runs git ls-remote against GitHub
  scripts/generate_autoscaler_images.py --tags FILE          `git ls-remote --tags` (or `git tag`) output
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

import upstream

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "mlplatform_core" / "data" / "autoscaler_images.json"
CALENDAR = ROOT / "mlplatform_core" / "data" / "eks_versions.json"
RELEASE = re.compile(r"^cluster-autoscaler-(1)\.(\d+)\.(\d+)$")  # releases only: no -beta, no chart tags


def newest_per_minor(tags: list[str], minors: list[str]) -> dict[str, str]:
    """minor -> image tag of its newest patch release, for the minors that have a release."""
    best: dict[str, tuple[int, int, int]] = {}
    for tag in tags:
        if m := RELEASE.match(tag):
            version = (int(m[1]), int(m[2]), int(m[3]))
            minor = f"{version[0]}.{version[1]}"
            if minor in minors and version > best.get(minor, (0, 0, -1)):
                best[minor] = version
    return {minor: "v{}.{}.{}".format(*v) for minor, v in sorted(best.items(), key=lambda kv: kv[1])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tags", help="`git ls-remote --tags https://github.com/kubernetes/autoscaler.git` output")
    ap.add_argument("--fetch", action="store_true", help="run git ls-remote against GitHub")
    ap.add_argument("--calendar", default=str(CALENDAR), help="the EKS calendar whose minors to cover")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    tags, source = upstream.read_tags("autoscaler-release-tags", args.tags, args.fetch)
    minors = list(json.loads(Path(args.calendar).read_text())["versions"])
    images = newest_per_minor(tags, minors)
    if not images:
        raise SystemExit("no cluster-autoscaler release tag for any minor of the calendar: wrong input?")
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generate_autoscaler_images.py",
        "image": "registry.k8s.io/autoscaling/cluster-autoscaler",
        "source": [source],
    }
    upstream.write_json(Path(args.output), head, "images", images)
    return 0


if __name__ == "__main__":
    sys.exit(main())
