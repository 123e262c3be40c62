"""The Karpenter controller chart's settings a stack's pools need: feature gates and DRA.

Pure Python. Static pools (`staticNodes`) need the StaticCapacity feature gate (model/karpenter/static.py);
pools whose groups allocate GPUs with DRA (`gpuAllocation: dra`) need the controller to account for pods'
ResourceClaims, which the pinned release turns on with the settings model/karpenter/release.py records per minor
(1.14: `ignoreDRARequests: "false"`, a string the chart renders as IGNORE_DRA_REQUESTS=false). Neither is set for
a stack that does not use it: both are alpha upstream. A real helm (v4.1.4) renders these values of a static DRA
stack into FEATURE_GATES ...StaticCapacity=true... and IGNORE_DRA_REQUESTS=false on the v1.14.1 chart.
"""

from __future__ import annotations

from typing import Any

from ..karpenter import release, static
from ..layout import Layout
from ..provisioners import of

DRA = "dra"  # NodeGroupSpec.gpu_allocation of a group whose GPUs go through the NVIDIA DRA driver


def feature_gates(layout: Layout) -> dict[str, bool]:
    """settings.featureGates the stack's pools need (static pools: staticCapacity)."""
    return static.feature_gates(of(layout).static_capacity, layout.node_pools)


def uses_dra(layout: Layout) -> bool:
    """Whether a pool of the stack launches nodes for a group with gpuAllocation dra."""
    return any(layout.names[p.name].gpu_allocation == DRA for p in layout.node_pools if p.name in layout.names)


def dra_settings(layout: Layout) -> dict[str, Any]:
    """The chart's `settings` that make the controller account for ResourceClaims, where a pool uses DRA."""
    return dict(release.dra_support().settings) if uses_dra(layout) else {}
