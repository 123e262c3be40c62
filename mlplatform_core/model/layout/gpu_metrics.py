"""gpuMetrics with nodeRepair: the DCGM exporter uses the EKS node monitoring agent's DCGM host engine.

With node repair the agent add-on runs NVIDIA's host engine (`nv-hostengine`) on the GPU instance types its chart
lists, served on a hostPort (data/node_monitoring_agent.json, scripts/generators/generate_node_agent_data.py), and the
toolkit's DCGM exporter connects to it instead of starting a second host engine on the same GPUs
(model/addons/gpu_agents.py). On a GPU type the agent does not serve, the exporter would find no host engine and
never start: refused, naming both settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from ..provisioners import launcher
from .spec import NodeGroupSpec


@cache
def dcgm_server() -> Mapping[str, Any]:
    """Where the agent runs its host engine: instanceTypes, notOnComputeTypes, hostPort."""
    text = resources.files("mlplatform_core").joinpath("data/node_monitoring_agent.json").read_text("utf-8")
    return json.loads(text)["dcgmServer"]


def host_engine_problems(
    gpu_metrics: bool,
    node_repair: bool,
    groups: Sequence[NodeGroupSpec],
    add: Callable[[tuple, str], None],
) -> None:
    """Refuse gpuMetrics with nodeRepair where a GPU group's type gets no host engine from the agent."""
    if not (gpu_metrics and node_repair):
        return
    served = set(dcgm_server()["instanceTypes"])
    for g in groups:
        # AWS's nodes (Auto Mode's) run neither the add-on nor, here, the exporter's client.
        if not g.gpu or launcher(g).run_by_aws:
            continue
        missing = [t for t in g.instance_types if t not in served]
        if missing:
            add(
                ("gpuMetrics",),
                f"true with nodeRepair: true: the DCGM exporter then uses the EKS node monitoring agent's DCGM host "
                f"engine, which the agent runs on none of group {g.name}'s {', '.join(missing)} (its chart lists "
                f"{len(served)} NVIDIA GPU types, mlplatform_core/data/node_monitoring_agent.json); set nodeRepair: "
                "false (the exporter then runs its own host engine), gpuMetrics: false, or a type the agent serves",
            )
