"""The NVIDIA device plugin: runs on exactly the GPU groups' nodes, tolerating every taint they carry."""

from __future__ import annotations

from typing import Any

from ..layout import Layout
from ..scheduling import GPU_PRESENT_LABEL, GPU_RESOURCE, Toleration


def device_plugin_values(layout: Layout) -> dict[str, Any] | None:
    """Values for the NVIDIA device plugin, or None when the stack has no GPU group (nothing to expose)."""
    gpu_groups = layout.gpu_groups
    if not gpu_groups:
        return None
    tolerations = [Toleration(GPU_RESOURCE, "Exists", "", "NoSchedule")]
    # A GPU group may carry more taints (spot, user taints): the plugin must run on every GPU node anyway.
    for g in gpu_groups:
        for taint in g.taints:
            if taint.repels and not any(t.tolerates(taint) for t in tolerations):
                tolerations.append(Toleration.for_taint(taint))
    return {
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "tolerations": [t.to_dict() for t in tolerations],
    }


def device_plugin_groups(layout: Layout) -> tuple[str, ...]:
    """The groups the device plugin runs on (the GPU groups its values select): its deployment waits for these only."""
    return tuple(g.name for g in layout.gpu_groups)
