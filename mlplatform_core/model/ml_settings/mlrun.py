"""The settings that tell MLRun how this cluster's nodes are labelled and tainted.

Pure Python. Everything is derived from the Layout (labels and taints of the
node groups) and the Workloads (priority classes, the MLRun namespace's
container defaults), so a change to a node group changes the settings with it.

MLRun reads `preemptible_nodes.node_selector` / `.tolerations` as base64 JSON
(domain facts section 2). How it uses them shapes what goes in:
- constrain mode REPLACES required node affinity with one term per selector
  pair, and the terms are ORed: every pair alone must single out spot nodes,
  so the selector holds only pairs every spot group has and no on-demand group has;
- allow/constrain add the tolerations to the pod, so they cover exactly the
  repelling taints every spot group has and no on-demand group has (a GPU or
  core-services taint must not ride along and open those nodes to every job);
- prevent removes the tolerations and relies on the spot taint alone, which
  the config guarantees is NoSchedule or NoExecute.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from ..layout import Layout
from ..scheduling import (
    ACCELERATOR_LABEL,
    DEVICE_PLUGIN_LABEL,
    GPU_PRESENT_LABEL,
    GPU_TAINT,
    GROUP_LABEL,
    ROLE_LABEL,
    Taint,
    Toleration,
)
from ..workloads import Workloads

NODE_SELECTOR = "MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR"
TOLERATIONS = "MLRUN_PREEMPTIBLE_NODES__TOLERATIONS"
PREEMPTION_MODE = "MLRUN_FUNCTION_DEFAULTS__PREEMPTION_MODE"
DEFAULT_PRIORITY_CLASS = "MLRUN_DEFAULT_FUNCTION_PRIORITY_CLASS_NAME"
VALID_PRIORITY_CLASSES = "MLRUN_VALID_FUNCTION_PRIORITY_CLASS_NAMES"
POD_RESOURCES = "MLRUN_DEFAULT_FUNCTION_POD_RESOURCES"
_RESOURCE_KEYS = {
    f"{POD_RESOURCES}__{kind.upper()}__{res.upper()}": (kind, res)
    for kind in ("requests", "limits")
    for res in ("cpu", "memory")
}


def _b64json(value: Any) -> str:
    return base64.b64encode(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).decode()


# Marks of what a node has (a GPU), not of how it is bought: when every spot group is a GPU group they are
# shared by all spot groups and missing on the on-demand ones, yet they must not mean "spot" to MLRun.
_HARDWARE_LABELS = frozenset({GPU_PRESENT_LABEL, ACCELERATOR_LABEL, DEVICE_PLUGIN_LABEL})


def _not_spot_marks(layout: Layout) -> tuple[frozenset[str], frozenset[str]]:
    """Label and taint keys that never single out spot capacity: the per-group label (a class of nodes, not
    one group), GPU hardware, and the role when a spot group is a GPU group (that role says "GPU")."""
    labels = {GROUP_LABEL, *_HARDWARE_LABELS}
    if any(g.gpu for g in layout.spot_groups):
        labels.add(ROLE_LABEL)
    return frozenset(labels), frozenset({GPU_TAINT.key})


def spot_node_selector(layout: Layout) -> dict[str, str]:
    """Label pairs on every spot group and on no on-demand group (each pair alone must mean "spot")."""
    spot = layout.spot_groups
    if not spot:
        return {}
    shared = set(spot[0].labels.items())
    for g in spot[1:]:
        shared &= set(g.labels.items())
    for g in layout.groups:
        if not g.preemptible:
            shared -= set(g.labels.items())
    left_out, _ = _not_spot_marks(layout)
    return {k: v for k, v in sorted(shared) if k not in left_out}


def spot_taints(layout: Layout) -> tuple[Taint, ...]:
    """Repelling taints on every spot group and on no on-demand group, GPU taints left out."""
    spot = layout.spot_groups
    if not spot:
        return ()
    shared = {t for t in spot[0].taints if t.repels}
    for g in spot[1:]:
        shared &= set(g.taints)
    for g in layout.groups:
        if not g.preemptible:
            shared -= set(g.taints)
    _, left_out = _not_spot_marks(layout)
    return tuple(sorted(t for t in shared if t.key not in left_out))


def mlrun_env(layout: Layout, workloads: Workloads) -> dict[str, str]:
    """Environment variables for the MLRun API service; MLRun applies them to the Nuclio functions it deploys too."""
    tolerations = [Toleration.for_taint(t).to_dict() for t in spot_taints(layout)]
    limits = workloads.mlrun.limits
    env = {
        NODE_SELECTOR: _b64json(spot_node_selector(layout)),
        TOLERATIONS: _b64json(tolerations),
        PREEMPTION_MODE: workloads.preemption_mode,
        DEFAULT_PRIORITY_CLASS: workloads.default_priority_class,
        VALID_PRIORITY_CLASSES: ",".join(p.name for p in workloads.workload_classes),
    }
    # The same defaults the namespace's LimitRange applies, so a job looks the same in MLRun's UI and in the pod.
    for key, (kind, res) in _RESOURCE_KEYS.items():
        values = limits.default_request if kind == "requests" else limits.default
        env[key] = str(getattr(values, res))
    return env


def decode_mlrun_env(env: Mapping[str, str]) -> dict[str, Any]:
    """The MLRun settings an env mapping carries, decoded the way MLRun decodes them."""

    def b64(key: str, empty: Any) -> Any:
        raw = env.get(key)
        return json.loads(base64.b64decode(raw)) if raw else empty

    resources: dict[str, dict[str, str]] = {"requests": {}, "limits": {}}
    for key, (kind, res) in _RESOURCE_KEYS.items():
        if key in env:
            resources[kind][res] = env[key]
    valid = env.get(VALID_PRIORITY_CLASSES, "")
    return {
        "node_selector": b64(NODE_SELECTOR, {}),
        "tolerations": b64(TOLERATIONS, []),
        "preemption_mode": env.get(PREEMPTION_MODE),
        "default_priority_class": env.get(DEFAULT_PRIORITY_CLASS),
        "valid_priority_classes": [n for n in valid.split(",") if n],
        "resources": resources,
    }
