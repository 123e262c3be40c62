#!/usr/bin/env python3
"""Generate the EC2 instance catalog (mlplatform_core/data/instance_types.json) from upstream data.

Standard library only. Sources (pinned in scripts/upstream.json):
  karpenter-instance-types  aws/karpenter-provider-aws website/content/en/docs/reference/instance-types.md:
                            vCPUs, memory, architecture, GPUs and accelerators (count, maker, name) per type,
                            generated upstream from EC2 DescribeInstanceTypes
  karpenter-instance-types-legacy  the same document at an older commit: the facts of the older Xen GPU
                            generations (p2, g3, g3s, p3) the current document no longer lists
  eks-ami-instance-info     awslabs/amazon-eks-ami nodeadm/internal/kubelet/instance-info.jsonl: ENIs and
                            IPv4 per ENI, from which the EKS AL2023 AMI computes max pods
  karpenter-vpc-limits      aws/karpenter-provider-aws .../zz_generated.vpclimits.go: ENIs on all cards
  ebs-csi-volume-limits     kubernetes-sigs/aws-ebs-csi-driver .../volume_limits_table.go: EBS attachments

Usage (from the repository root):
  scripts/generators/generate_instance_catalog.py --fetch                 # the pinned upstream commits
  scripts/generators/generate_instance_catalog.py --fetch --ref main  # refresh; then pin the commits in upstream.json
  scripts/generators/generate_instance_catalog.py --karpenter-doc FILE --eks-ami-info FILE [--vpclimits FILE]
                                       [--ebs-limits FILE]     # local copies of the same files
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
OUTPUT = ROOT / "mlplatform_core" / "data" / "instance_types.json"

LABEL = "karpenter.k8s.aws/instance-"
ARCH = {"amd64": "x86_64", "arm64": "arm64"}
MAKER = {
    "nvidia": "NVIDIA",
    "amd": "AMD",
    "aws": "AWS",
    "qualcomm": "Qualcomm",
    "habana": "Habana",
    "intel": "Intel",
    "xilinx": "Xilinx",
}
# Extended resources a device plugin advertises; pod-eni is a VPC CNI artefact, not a device.
DEVICE_RESOURCE = re.compile(r"^(nvidia\.com|amd\.com|aws\.amazon\.com|vpc\.amazonaws\.com)/(?!pod-eni)")


def parse_karpenter_doc(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """{type: {"labels": {...}, "resources": {...}}} from the doc's `### \\`type\\`` sections and tables."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    current, section = None, None
    row = re.compile(r"^\s*\|([^|]+)\|([^|]*)\|\s*$")
    for line in text.splitlines():
        if m := re.match(r"^### `([^`]+)`", line):
            current, section = out.setdefault(m[1], {"labels": {}, "resources": {}}), None
        elif line.startswith("## "):
            current = None
        elif line.startswith("#### Labels"):
            section = "labels"
        elif line.startswith("#### Resources"):
            section = "resources"
        elif (m := row.match(line)) and current is not None and section:
            key, value = m[1].strip(), m[2].strip()
            if key not in ("Label", "Resource") and not set(key) <= {"-", ":"}:
                current[section][key] = value
    return out


def parse_eks_ami_info(text: str) -> dict[str, dict]:
    return {d["instanceType"]: d for d in map(json.loads, filter(None, map(str.strip, text.splitlines())))}


def parse_vpclimits(text: str) -> dict[str, dict]:
    """The generated Go map literal `"type": {Interface: 4, ...}` read as data."""
    out: dict[str, dict] = {}
    starts = [(m.start(), m[1]) for m in re.finditer(r'^\t"([^"]+)": \{', text, re.M)]
    for i, (pos, name) in enumerate(starts):
        block = text[pos : starts[i + 1][0] if i + 1 < len(starts) else len(text)]

        def field(key: str, block: str = block) -> str | None:
            m = re.search(r"\b" + key + r":\s*([^,\n]+),", block)
            return m[1].strip().strip('"') if m else None

        out[name] = {
            "interface": int(field("Interface") or 0),
            "ipv4_per_interface": int(field("IPv4PerInterface") or 0),
            "trunking": field("IsTrunkingCompatible") == "true",
            "branch_interface": int(field("BranchInterface") or 0),
            "cards": [int(x) for x in re.findall(r"MaximumNetworkInterfaces:\s*(\d+)", block)],
            "hypervisor": field("Hypervisor") or None,
            "bare_metal": field("IsBareMetal") == "true",
        }
    return out


def parse_ebs_table(text: str) -> dict:
    def block(name: str) -> str:
        m = re.search(r"^var " + name + r" = map\[[^\]]+\][^{]*\{(.*?)^\}", text, re.M | re.S)
        return m[1] if m else ""

    return {
        "xen": set(re.findall(r'"([^"]+)":\s*\{\}', block("nonNitroInstanceTypes"))),
        "limits": {
            n: int(a) for n, a, _ in re.findall(r'"([^"]+)":\s*\{\s*(\d+),\s*"(\w+)"\s*\}', block("volumeLimits"))
        },
    }


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


EFA_RESOURCE = "vpc.amazonaws.com/efa"


def network_facts(name: str, doc: dict, vpc: dict) -> dict:
    """EFA and network cards of one type, for multi-node training (the `efa` group setting).

    `efa_interfaces`: EC2's MaximumEfaInterfaces, which Karpenter's doc lists as the type's
    vpc.amazonaws.com/efa resource (provider pkg/providers/instancetype/types.go `efas`);
    `network_cards`: the network cards in the VPC limits (one EFA interface per card at most).
    """
    out: dict = {}
    efa = _int(doc.get(name, {}).get("resources", {}).get(EFA_RESOURCE))
    if efa:
        out["efa_interfaces"] = efa
    cards = vpc.get(name, {}).get("cards")
    if cards:
        out["network_cards"] = len(cards)
    return out


def build(doc: dict, ami: dict, vpc: dict, ebs: dict | None) -> tuple[dict[str, dict], list[str]]:
    """Every type in any source; `partial` where only network limits are known. Returns (types, mismatches)."""
    types: dict[str, dict] = {}
    mismatches: list[str] = []
    for name in sorted(set(doc) | set(ami) | set(vpc)):
        rec: dict = {}
        if name in doc:
            labels, resources = doc[name]["labels"], doc[name]["resources"]
            rec["vcpu"] = _int(labels.get(LABEL + "cpu"))
            rec["memory_mib"] = _int(labels.get(LABEL + "memory"))
            arch = labels.get("kubernetes.io/arch", "")
            rec["arch"] = ARCH.get(arch, arch or None)
            for kind in ("gpu", "accelerator"):
                if LABEL + f"{kind}-manufacturer" in labels:
                    maker = labels[LABEL + f"{kind}-manufacturer"]
                    rec[kind] = {
                        "count": _int(labels.get(LABEL + f"{kind}-count")) or 0,
                        "maker": MAKER.get(maker, maker),
                        "name": labels.get(LABEL + f"{kind}-name"),
                    }
                    if kind == "gpu":
                        rec[kind]["memory_mib"] = _int(labels.get(LABEL + "gpu-memory"))  # per GPU
            devices = {r: _int(v) for r, v in resources.items() if DEVICE_RESOURCE.match(r)}
            if devices:
                rec["devices"] = devices
            doc_pods = _int(resources.get("pods"))
        else:
            doc_pods = None
        if name in ami:
            enis, ips = ami[name]["defaultMaxENIs"], ami[name]["ipv4AddressesPerInterface"]
            # nodeadm's calculateStandardMaxPods: ENIs on the default card x (IPs per ENI - 1) + 2.
            rec["max_pods"] = enis * (ips - 1) + 2
            if doc_pods is not None and doc_pods != rec["max_pods"]:
                mismatches.append(f"{name}: max pods {rec['max_pods']} (AMI) != {doc_pods} (Karpenter doc)")
        elif doc_pods is not None:
            rec["max_pods"] = doc_pods
        if name in vpc:
            v = vpc[name]
            rec["enis"] = v["interface"]
            rec["hypervisor"] = v["hypervisor"]
            rec["bare_metal"] = v["bare_metal"]
            if "max_pods" not in rec and v["cards"]:
                rec["max_pods"] = v["cards"][0] * (v["ipv4_per_interface"] - 1) + 2
        if ebs is not None:
            # Nitro types absent from the driver's table have its default: 27 attachments shared with ENIs;
            # Xen types have no per-type value.
            xen = name in ebs["xen"] or rec.get("hypervisor") == "xen"
            rec["ebs_attachments"] = None if xen else ebs["limits"].get(name, 27)
        rec.update(network_facts(name, doc, vpc))
        if name not in doc:
            rec["partial"] = True  # network limits only: not in the DescribeInstanceTypes-derived doc
        types[name] = {k: v for k, v in rec.items() if v is not None}
    return types, mismatches


def add_legacy_facts(types: dict[str, dict], legacy: dict, current: dict) -> list[str]:
    """Describe types the current document does not (partial, or absent) from an older edition of it.

    The older edition's facts are DescribeInstanceTypes' as of its commit; a type's hardware does not change,
    so they still hold. Such a type is marked `legacy_doc` (where its facts come from). Returns the names."""
    added = []
    for name, entry in legacy.items():
        if name in current:
            continue
        described, _ = build({name: entry}, {}, {}, None)
        record = {k: v for k, v in described[name].items() if k not in ("partial", "max_pods")}
        kept = {k: v for k, v in types.get(name, {}).items() if k != "partial"}  # network limits stay current
        types[name] = {**record, **kept, "legacy_doc": True}
        if "max_pods" not in types[name] and "max_pods" in described[name]:
            types[name]["max_pods"] = described[name]["max_pods"]
        added.append(name)
    return sorted(added)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--karpenter-doc", metavar="FILE")
    p.add_argument("--eks-ami-info", metavar="FILE")
    p.add_argument("--vpclimits", metavar="FILE")
    p.add_argument("--ebs-limits", metavar="FILE")
    p.add_argument("--karpenter-doc-legacy", metavar="FILE")
    p.add_argument("--fetch", action="store_true", help="download the files that were not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)

    doc_text, doc_src = upstream.read("karpenter-instance-types", args.karpenter_doc, args.fetch, args.ref)
    ami_text, ami_src = upstream.read("eks-ami-instance-info", args.eks_ami_info, args.fetch, args.ref)
    sources = [doc_src, ami_src]
    vpc, ebs = {}, None
    if args.vpclimits or args.fetch:
        text, src = upstream.read("karpenter-vpc-limits", args.vpclimits, args.fetch, args.ref)
        vpc = parse_vpclimits(text)
        sources.append(src)
    if args.ebs_limits or args.fetch:
        text, src = upstream.read("ebs-csi-volume-limits", args.ebs_limits, args.fetch, args.ref)
        ebs = parse_ebs_table(text)
        sources.append(src)

    doc = parse_karpenter_doc(doc_text)
    types, mismatches = build(doc, parse_eks_ami_info(ami_text), vpc, ebs)
    if args.karpenter_doc_legacy or args.fetch:
        text, src = upstream.read("karpenter-instance-types-legacy", args.karpenter_doc_legacy, args.fetch, None)
        add_legacy_facts(types, parse_karpenter_doc(text), doc)
        sources.append(src)
    if mismatches:  # the sources disagree: a format change upstream, or data to look at before shipping
        print("sources disagree:\n  " + "\n  ".join(mismatches[:20]), file=sys.stderr)
        return 1
    today = datetime.date.today().isoformat()
    head = {
        "generated": today,
        "generator": "scripts/generators/generate_instance_catalog.py",
        "source": sources,
        "fields": {
            "vcpu": "vCPUs",
            "memory_mib": "memory in MiB",
            "arch": "x86_64 or arm64",
            "gpu": "GPUs: count per instance (0 for fractional GPUs such as g6f), maker, name, memory_mib per GPU",
            "accelerator": "other accelerators (Inferentia, Trainium, AI100): count, maker, name",
            "devices": "extended resources the node advertises (nvidia.com/gpu, aws.amazon.com/neuron, ...)",
            "max_pods": "the EKS AL2023 AMI's max pods: ENIs on the default card x (IPv4 per ENI - 1) + 2",
            "enis": "ENIs on all network cards",
            "efa_interfaces": "EFA interfaces the type supports at most (EC2 MaximumEfaInterfaces); absent: no EFA",
            "network_cards": "network cards (an EFA interface per card at most)",
            "ebs_attachments": "EBS volume attachments (none known: Xen)",
            "partial": "true: only network limits are known (no vCPU, memory or accelerator data)",
            "legacy_doc": "true: vCPU, memory and accelerator facts from the older edition of the Karpenter document "
            "(karpenter-instance-types-legacy), which still lists this type",
        },
    }
    upstream.write_json(args.output, head, "instance_types", types)
    partial = sum(1 for t in types.values() if t.get("partial"))
    print(f"{len(types)} instance types ({partial} with network limits only) -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
