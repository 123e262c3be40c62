#!/usr/bin/env python3
"""Generate the MIG profiles per NVIDIA GPU (mlplatform_core/data/mig_profiles.json) from the GPU operator's
default mig-parted configuration.

Needs PyYAML (a dependency of the project). Source (pinned in scripts/upstream.json):
  nvidia-mig-parted-config  NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml: the ConfigMap
                            `default-mig-parted-config` whose config.yaml names one mig-parted config per MIG
                            profile (`all-<profile>`: every GPU split into that profile, and how many fit), an
                            `all-balanced` config per GPU model, and comments naming the GPU models.

What the snapshot holds, read as data (nothing typed by hand):
  gpus      one entry per `all-balanced` entry: the GPU models its comment names, its PCI device filter and
            the balanced mix of profiles (which fixes the GPU's smallest memory slice, `1g.<n>gb`);
  profiles  per plain profile `<g>g.<n>gb` (media-extension and graphics variants left out): each entry of its
            `all-<profile>` config with the count per GPU, the device filter, and the GPU models the nearest
            comment names with where that comment sits (`entry`, `config`, or an earlier `section` comment,
            which the file does not always keep in step with its configs: the toolkit checks every profile
            against the GPU's memory slices before trusting a name, mlplatform_core/model/mig.py).

Usage (from the repository root):
  scripts/generators/generate_mig_profiles.py --fetch
  scripts/generators/generate_mig_profiles.py --configmap FILE
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream
import yaml

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "mig_profiles.json"
PROFILE = re.compile(r"^[0-9]+g\.[0-9]+gb$")
BALANCED = "all-balanced"
CONFIG_INDENT = 2  # config names sit two spaces into config.yaml's `mig-configs:` mapping


def _names(comment: str) -> list[str]:
    return [n.strip() for n in comment.lstrip("#").split(",") if n.strip()]


def _filters(value: object) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in (value if isinstance(value, list) else [value])]


def comments(text: str) -> dict[str, dict]:
    """Per config name: the comment right above it (`config`), the nearest comment above at config level
    (`section`), and per entry (in order) the comment right above the entry."""
    out: dict[str, dict] = {}
    section: str | None = None
    pending: str | None = None  # a comment line immediately before the current line
    current: dict | None = None
    for line in text.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if not stripped:
            pending = None
            continue
        if stripped.startswith("#"):
            pending = stripped
            if indent == CONFIG_INDENT:
                section = stripped
            continue
        if indent == CONFIG_INDENT and stripped.endswith(":"):
            current = {"config": pending, "section": section, "entries": []}
            out[stripped[:-1].strip().strip('"')] = current
        elif current is not None and stripped.startswith("- "):
            current["entries"].append(pending)
        pending = None
    return out


def build(configmap_text: str) -> tuple[list[dict], dict[str, list[dict]]]:
    data = yaml.safe_load(configmap_text)["data"]["config.yaml"]
    configs = yaml.safe_load(data)["mig-configs"]
    notes = comments(data)

    def named(config: str, i: int) -> tuple[list[str], str | None]:
        note = notes.get(config, {})
        entries = note.get("entries", [])
        for where, comment in (
            ("entry", entries[i] if i < len(entries) else None),
            ("config", note.get("config")),
            ("section", note.get("section")),
        ):
            if comment:
                return _names(comment), where
        return [], None

    gpus = []
    for i, entry in enumerate(configs.get(BALANCED) or []):
        names, _ = named(BALANCED, i)
        gpus.append(
            {
                "names": names,
                "deviceFilter": _filters(entry.get("device-filter")),
                "balanced": {str(k): int(v) for k, v in (entry.get("mig-devices") or {}).items()},
            }
        )
    profiles: dict[str, list[dict]] = {}
    for config, entries in configs.items():
        if not config.startswith("all-") or config == BALANCED:
            continue
        for i, entry in enumerate(entries or []):
            devices = entry.get("mig-devices") or {}
            if len(devices) != 1:
                continue
            ((profile, count),) = devices.items()
            if not PROFILE.match(str(profile)) or config != f"all-{profile}":
                continue
            names, where = named(config, i)
            filters = _filters(entry.get("device-filter"))
            row = {"count": int(count), "deviceFilter": filters, "gpus": names, "namedBy": where}
            profiles.setdefault(str(profile), []).append(row)
    return gpus, profiles


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--configmap", metavar="FILE", help="a local copy of 0400_configmap.yaml")
    p.add_argument("--fetch", action="store_true", help="download the pinned file")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commit")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    text, source = upstream.read("nvidia-mig-parted-config", args.configmap, args.fetch, args.ref)
    gpus, profiles = build(text)
    if not gpus or not profiles:
        print("no all-balanced entries or no single-profile configs: has the file's format changed?", file=sys.stderr)
        return 1
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_mig_profiles.py",
        "source": [source],
        "gpus": gpus,
    }
    upstream.write_json(args.output, head, "profiles", profiles)
    print(f"{len(gpus)} GPU models, {len(profiles)} MIG profiles -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
