#!/usr/bin/env python3
"""Generate what the NVIDIA DRA driver publishes per device (mlplatform_core/data/nvidia_dra_devices.json) from
the driver's source at its release tag.

Standard library only. Sources (pinned in scripts/upstream.json, NVIDIA/k8s-dra-driver-gpu, now
kubernetes-sigs/dra-driver-nvidia-gpu):
  nvidia-dra-driver-plugin         cmd/gpu-kubelet-plugin: partitions.go (PartDevAttributes: a whole GPU's
                                   attributes), deviceinfo.go (GpuInfo.GetDevice: its capacity;
                                   MigDeviceInfo.GetDevice: a static MIG device's attributes and capacities),
                                   types.go (the `type` attribute's values)
  nvidia-dra-driver-deviceclasses  deployments/helm/nvidia-dra-driver-gpu/templates: deviceclass-gpu.yaml and
                                   deviceclass-mig.yaml (the DeviceClasses the chart creates, their CEL)

What the snapshot holds, read from the Go and the templates (nothing typed by hand): per device kind (gpu, mig)
the `type` value, the attribute names in the driver's domain, those in Kubernetes' standard domain
(resource.kubernetes.io, `deviceattribute.StandardDeviceAttributePrefix + "<name>"`) and the capacity names
(`memorySlice<i>` for the per-slice ones); the DeviceClasses by name with their selectors; the driver's name
(what the classes compare `device.driver` with).

Usage (from the repository root):
  scripts/generators/generate_nvidia_dra_devices.py --fetch
  scripts/generators/generate_nvidia_dra_devices.py --local DIR   # DIR/<repo>/<path>/<file>, e.g. from a git checkout
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
OUTPUT = ROOT / "mlplatform_core" / "data" / "nvidia_dra_devices.json"
PLUGIN, CLASSES = "nvidia-dra-driver-plugin", "nvidia-dra-driver-deviceclasses"
KEY = re.compile(r'^\t+"(\w+)":\s*\{', re.M)  # "name": { ... } in an attribute or capacity map literal
STANDARD = re.compile(r'StandardDeviceAttributePrefix \+ "(\w+)"')
SLICE = re.compile(r'Sprintf\("(memorySlice)%d"')


def function(source: str, signature: str) -> str:
    """The body of the Go function whose declaration starts with `signature` (to its closing brace at column 0)."""
    start = source.index(signature)
    end = source.index("\n}\n", start)
    return source[start:end]


def block(body: str, field: str) -> str:
    """The map literal that follows `field` (`Attributes: map[K]V{`) up to its closing brace."""
    i = body.index("{", body.index("]", body.index(field)))
    depth = 0
    for j in range(i, len(body)):
        depth += {"{": 1, "}": -1}.get(body[j], 0)
        if depth == 0:
            return body[i : j + 1]
    raise ValueError(f"unbalanced {field}")


def top_keys(literal: str) -> list[str]:
    """The keys of a map literal's own entries (one tab deeper than its opening line), not of nested ones."""
    indent = min(len(m.group(0)) - len(m.group(0).lstrip("\t")) for m in KEY.finditer(literal))
    return [m[1] for m in KEY.finditer(literal) if len(m.group(0)) - len(m.group(0).lstrip("\t")) == indent]


def devices(partitions: str, deviceinfo: str, types: str) -> dict[str, dict]:
    values = dict(re.findall(r'(GpuDeviceType|MigStaticDeviceType)\s*=\s*"(\w+)"', types))
    gpu_attrs = function(partitions, "func (d *GpuInfo) PartDevAttributes()")
    gpu_device = function(deviceinfo, "func (d *GpuInfo) GetDevice()")
    mig_device = function(deviceinfo, "func (d *MigDeviceInfo) GetDevice()")
    mig_attrs, mig_caps = block(mig_device, "Attributes:"), block(mig_device, "Capacity:")
    return {
        "gpu": {
            "type": values["GpuDeviceType"],
            "attributes": sorted(top_keys(gpu_attrs)),
            "standardAttributes": sorted(STANDARD.findall(gpu_attrs)),
            "capacities": sorted(top_keys(block(gpu_device, "Capacity:"))),
        },
        "mig": {
            "type": values["MigStaticDeviceType"],
            "attributes": sorted(top_keys(mig_attrs)),
            "standardAttributes": sorted(STANDARD.findall(mig_device)),
            "capacities": sorted(top_keys(mig_caps) + [f"{s}<i>" for s in SLICE.findall(mig_device)]),
        },
    }


def device_classes(templates: dict[str, str]) -> dict[str, list[str]]:
    out = {}
    for text in templates.values():
        name = re.search(r"^kind: DeviceClass\nmetadata:\n  name: (\S+)", text, re.M)
        out[name[1]] = re.findall(r'expression: "(.*)"', text)  # type: ignore[index]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--local", type=Path, metavar="DIR", help="local copies: DIR/<repo>/<path>/<file>")
    p.add_argument("--fetch", action="store_true", help="download the pinned files")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commit")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)

    def read(role: str, name: str) -> str:
        text = upstream.read_under(role, name, args.local, args.fetch, args.ref)
        if text is None:
            raise SystemExit(f"{role}: {name} not found at the pin")
        return text

    plugin = {n: read(PLUGIN, n) for n in ("partitions.go", "deviceinfo.go", "types.go")}
    classes = device_classes({n: read(CLASSES, n) for n in ("deviceclass-gpu.yaml", "deviceclass-mig.yaml")})
    found = devices(plugin["partitions.go"], plugin["deviceinfo.go"], plugin["types.go"])
    drivers = {d for exprs in classes.values() for e in exprs for d in re.findall(r"device\.driver == '([^']+)'", e)}
    if len(drivers) != 1 or any(not d["attributes"] or "type" not in d["attributes"] for d in found.values()):
        print(f"unexpected source (drivers {sorted(drivers)}): has the driver's code changed shape?", file=sys.stderr)
        return 1
    pins = upstream.manifest()
    source = [
        {"role": r, **{k: pins[r][k] for k in ("repo", "path", "commit", "date", "license")}} for r in (PLUGIN, CLASSES)
    ]
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_nvidia_dra_devices.py",
        "source": source,
        "driver": drivers.pop(),
        "deviceClasses": classes,
    }
    upstream.write_json(args.output, head, "devices", found)
    print(f"{len(found)} device kinds, {len(classes)} DeviceClasses -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
