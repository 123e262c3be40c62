#!/usr/bin/env python3
"""Fail on any checkov finding scan/skips.yaml does not list with a reason, and on a skip that matches nothing.

Usage: scan/gate.py CHECKOV_JSON [--skips SKIPS_YAML] [--allow-unused]
  CHECKOV_JSON: `checkov -o json` output. Exit 1 on a new finding, or (unless --allow-unused, for a scan of some
  stacks only) on a skip that matches no finding.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

import yaml

SKIPS = Path(__file__).resolve().parent / "skips.yaml"


def load_skips(path: Path) -> list[dict]:
    skips = yaml.safe_load(path.read_text()) or []
    for skip in skips:
        if not (skip.get("check") and skip.get("resources") and str(skip.get("reason", "")).strip()):
            raise SystemExit(f"{path}: every skip needs check, resources and a reason: {skip}")
    return skips


def findings(report: object) -> list[tuple[str, str, str]]:
    runs = report if isinstance(report, list) else [report]
    out = []
    for run in runs:
        for f in (run.get("results") or {}).get("failed_checks", []):
            out.append((f["check_id"], f["resource"], f.get("file_path", "")))
    return out


def gate(found: list[tuple[str, str, str]], skips: list[dict]) -> tuple[list[str], list[str]]:
    """(new findings, skips that match nothing)."""
    used: set[int] = set()
    new = []
    for check, resource, where in found:
        hits = [
            i
            for i, s in enumerate(skips)
            if s["check"] == check and any(fnmatch.fnmatchcase(resource, g) for g in s["resources"])
        ]
        used.update(hits)
        if not hits:
            new.append(f"{check} {resource} ({where})")
    stale = [f"{s['check']} {s['resources']}" for i, s in enumerate(skips) if i not in used]
    return sorted(set(new)), stale


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--skips", default=str(SKIPS))
    ap.add_argument("--allow-unused", action="store_true")
    args = ap.parse_args(argv)
    try:
        report = json.loads(Path(args.report).read_text())
    except (OSError, json.JSONDecodeError) as err:
        print(f"no checkov report to judge ({err}): did checkov run?")
        return 1
    found = findings(report)
    new, stale = gate(found, load_skips(Path(args.skips)))
    stale = [] if args.allow_unused else stale
    for line in new:
        print(f"new finding: {line}")
    for line in stale:
        print(f"stale skip (matches no finding; remove it): {line}")
    print(f"checkov: {len(found)} finding(s), {len(found) - len(new)} skipped with a reason, {len(new)} new")
    return 1 if new or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
