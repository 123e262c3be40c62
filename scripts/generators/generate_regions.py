#!/usr/bin/env python3
"""Generate the AWS region list (mlplatform_core/data/regions.json) from the AWS SDK's endpoint data.

Standard library (and pip, for --fetch). Source (pinned in scripts/upstream.json by the wheel's sha256):
  botocore-endpoints   botocore/data/endpoints.json in the botocore wheel on PyPI: each partition (aws,
                       aws-cn, aws-us-gov, aws-iso*, aws-eusc), its region name pattern and its regions

Usage (from the repository root):
  scripts/generators/generate_regions.py --fetch               pip-downloads the pinned wheel and checks its hash
  scripts/generators/generate_regions.py --endpoints FILE      a local copy of endpoints.json
To refresh: pin a newer botocore version, wheel name and sha256 in scripts/upstream.json, then --fetch.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "regions.json"


def partitions(text: str) -> dict[str, dict]:
    """partition -> its DNS suffix, its region name pattern and its regions (name -> description)."""
    out = {}
    for p in json.loads(text)["partitions"]:
        regions = {name: r.get("description", "") for name, r in sorted(p["regions"].items())}
        out[p["partition"]] = {"dnsSuffix": p["dnsSuffix"], "regionRegex": p["regionRegex"], "regions": regions}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endpoints", help="a local copy of botocore/data/endpoints.json")
    ap.add_argument("--fetch", action="store_true", help="read it from the pinned botocore wheel (PyPI)")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    text, source = upstream.read("botocore-endpoints", args.endpoints, args.fetch)
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_regions.py",
        "source": [source],
    }
    upstream.write_json(Path(args.output), head, "partitions", partitions(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
