#!/usr/bin/env python3
"""Generate where the EKS node monitoring agent runs its DCGM host engine (data/node_monitoring_agent.json).

The agent's chart (aws/eks-node-monitoring-agent charts/eks-node-monitoring-agent, pinned in scripts/upstream.json
as eks-node-monitoring-agent-chart) runs a `dcgm-server` DaemonSet: NVIDIA's `nv-hostengine` on the instance types
its node affinity lists (values.yaml `dcgmAgent.affinity`, `node.kubernetes.io/instance-type` In ...), not on the
compute types it excludes, served on a hostPort (templates/dcgm-daemonset.yaml). The toolkit's DCGM exporter
connects to that host engine when node repair installs the agent (mlplatform_core/model/addons/gpu_agents.py).

Usage (from the repository root):
  scripts/generators/generate_node_agent_data.py --repo DIR  a clone of aws/eks-node-monitoring-agent (a bare mirror)
  scripts/generators/generate_node_agent_data.py --fetch     a blobless clone from GitHub
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream
import yaml

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "node_monitoring_agent.json"
ROLE = "eks-node-monitoring-agent-chart"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
COMPUTE_TYPE = "eks.amazonaws.com/compute-type"


def dcgm_server(values_text: str, daemonset_text: str) -> dict:
    """The host engine's instance types, excluded compute types and hostPort."""
    affinity = yaml.safe_load(values_text)["dcgmAgent"]["affinity"]
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    if len(terms) != 1:
        raise SystemExit(f"dcgmAgent.affinity: {len(terms)} node selector terms, expected one (the chart changed)")
    expressions = {e["key"]: e for e in terms[0]["matchExpressions"]}
    types = expressions.get(INSTANCE_TYPE)
    if types is None or types["operator"] != "In":
        raise SystemExit(f"dcgmAgent.affinity: no {INSTANCE_TYPE} In list (the chart changed)")
    ports = re.findall(r"hostPort:\s*(\d+)", daemonset_text)
    if len(ports) != 1 or "nv-hostengine" not in daemonset_text:
        raise SystemExit("templates/dcgm-daemonset.yaml: not one nv-hostengine hostPort (the chart changed)")
    excluded = expressions.get(COMPUTE_TYPE, {})
    return {
        "instanceTypes": sorted(types["values"]),
        "notOnComputeTypes": sorted(excluded.get("values", [])) if excluded.get("operator") == "NotIn" else [],
        "hostPort": int(ports[0]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", metavar="DIR", help="a clone of aws/eks-node-monitoring-agent")
    ap.add_argument("--fetch", action="store_true", help="clone it from GitHub (blobless)")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    pin = upstream.manifest()[ROLE]
    with tempfile.TemporaryDirectory() as tmp:
        repo, source = upstream.git_repository(ROLE, args.repo, args.fetch, Path(tmp))
        values = upstream.git_show(repo, pin["commit"], f"{pin['path']}/values.yaml")
        daemonset = upstream.git_show(repo, pin["commit"], f"{pin['path']}/templates/dcgm-daemonset.yaml")
    if values is None or daemonset is None:
        raise SystemExit(f"{pin['repo']} @ {pin['commit']}: no dcgm-server in {pin['path']}")
    doc = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_node_agent_data.py",
        "source": source,
        "dcgmServer": dcgm_server(values, daemonset),
    }
    Path(args.output).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{len(doc['dcgmServer']['instanceTypes'])} instance types -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
