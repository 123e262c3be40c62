#!/usr/bin/env python3
"""Generate the node labels the pinned NVIDIA GPU operator keys on (mlplatform_core/data/gpu_operator_labels.json).

Standard library only. Source (pinned in scripts/upstream.json):
  gpu-operator-state-manager  NVIDIA/gpu-operator controllers/state_manager.go at the release the toolkit pins
                              (addon_versions.json): `gpuNodeLabels`, the NFD PCI labels by which the operator
                              recognises a GPU node, `commonGPULabelKey`/`commonGPULabelValue` (the label it keeps
                              in step with them) and `nfdLabelPrefix`. Its node-labelling controller
                              (controllers/nodelabeling_controller.go labelGPUNodes, reconcileCommonGPULabel) sets
                              `nvidia.com/gpu.present=false` on a node that carries the common label without one
                              of the PCI labels, and then removes the node's state labels: no operand (MIG manager,
                              GPU feature discovery) runs there, and every add-on selecting gpu.present=true leaves.

Usage (from the repository root):
  scripts/generators/generate_gpu_operator_labels.py --state-manager FILE
  scripts/generators/generate_gpu_operator_labels.py --fetch
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
OUTPUT = ROOT / "mlplatform_core" / "data" / "gpu_operator_labels.json"
ROLE = "gpu-operator-state-manager"
MAP = re.compile(r"var\s+gpuNodeLabels\s*=\s*map\[string\]string\s*\{(?P<body>[^}]*)\}", re.S)
ENTRY = re.compile(r'"(?P<key>[^"]+)"\s*:\s*"(?P<value>[^"]*)"')
CONST = r"\b{}\s*=\s*\"(?P<value>[^\"]*)\""


def parse(text: str) -> dict:
    """The labels of state_manager.go; SystemExit when the file no longer declares them as read here."""
    m = MAP.search(text)
    if not m:
        raise SystemExit("no `var gpuNodeLabels = map[string]string{...}` in state_manager.go: read it again")
    labels = {e["key"]: e["value"] for e in ENTRY.finditer(m["body"])}
    consts = {}
    for name in ("commonGPULabelKey", "commonGPULabelValue", "nfdLabelPrefix"):
        c = re.search(CONST.format(name), text)
        if not c:
            raise SystemExit(f"no constant {name} in state_manager.go: read it again")
        consts[name] = c["value"]
    if not labels:
        raise SystemExit("gpuNodeLabels is empty")
    return {
        "gpuNodeLabels": labels,
        "commonGPULabel": {consts["commonGPULabelKey"]: consts["commonGPULabelValue"]},
        "nfdLabelPrefix": consts["nfdLabelPrefix"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--state-manager", metavar="FILE", help="controllers/state_manager.go at the pinned tag")
    p.add_argument("--fetch", action="store_true")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    text, source = upstream.read(ROLE, args.state_manager, args.fetch)
    found = parse(text)
    pin = upstream.manifest()[ROLE]
    doc = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_gpu_operator_labels.py",
        "source": [source],
        "version": pin["tag"],
        **found,
    }
    args.output.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(
        f"{len(found['gpuNodeLabels'])} GPU node labels of the GPU operator {pin['tag']} -> {args.output}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
