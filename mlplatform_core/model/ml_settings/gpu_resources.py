"""What pods request on each GPU group: the `gpuResources` stack output, for MLRun functions and Polyaxon runs.

Pure Python. A GPU group's nodes advertise their GPUs as the device plugin serves them (layout/sharing.py):
whole GPUs as nvidia.com/gpu, time-sliced GPUs as nvidia.com/gpu times the replicas, MIG devices as
nvidia.com/gpu (strategy single) or nvidia.com/mig-<profile> (mixed); EFA groups add vpc.amazonaws.com/efa.
MLRun sets GPU limits with `fn.with_limits(gpus=N, gpu_type=<resource>)` (mlrun runtimes/pod.py,
`gpu_type` defaults to nvidia.com/gpu); a Polyaxon run puts the same resource in its container's
`resources.limits` and takes the group's node selector and tolerations from `polyaxonEnvironments`.
The GPU taint of the group is tolerated by the ExtendedResourceToleration admission plugin for pods
that request the resource, so neither tool needs the toleration written out. A group with gpuAllocation dra
advertises no such resource: its entry names the ResourceClaimTemplate pods use instead (gpu_claims.py).
"""

from __future__ import annotations

from typing import Any

from .. import instances
from ..layout import Layout, NodeGroupSpec
from ..layout.sharing import EFA_RESOURCE, node_devices
from .gpu_claims import claim_resources


def _efa_per_node(g: NodeGroupSpec) -> int | None:
    known = [t for t in map(instances.lookup, g.instance_types) if t is not None and t.known]
    return min((node_devices(g, t).get(EFA_RESOURCE, 0) for t in known), default=None)


def _sharing(g: NodeGroupSpec) -> str:
    s = g.sharing
    if s is None:
        return "none"
    return "time-slicing" if s.kind == "time-slicing" else f"mig-{s.strategy}"


def group_resources(g: NodeGroupSpec) -> dict[str, Any]:
    """The GPU resource a pod requests on `g`, how many a node offers (the fewest among its types), and EFA; on a
    group with gpuAllocation dra, the claim pods use instead (gpu_claims.py)."""
    if g.gpu_allocation == "dra":
        return claim_resources(g) | ({"efaPerNode": _efa_per_node(g)} if g.efa else {})
    resource = g.sharing.resource if g.sharing else "nvidia.com/gpu"
    known = [t for t in map(instances.lookup, g.instance_types) if t is not None and t.known]
    devices = [node_devices(g, t) for t in known]
    out: dict[str, Any] = {
        "resource": resource,
        "perNode": min((d.get(resource, 0) for d in devices), default=None),
        "sharing": _sharing(g),
    }
    if g.sharing is not None and g.sharing.kind == "mig":
        out["migProfile"] = g.sharing.profile
    if g.efa:
        out["efaPerNode"] = min((d.get(EFA_RESOURCE, 0) for d in devices), default=None)
    out["mlrun"] = f"fn.with_limits(gpus=1, gpu_type={resource!r})"
    return out


def gpu_resources(layout: Layout) -> dict[str, dict[str, Any]]:
    """Per GPU group, what its pods request (the `gpuResources` stack output)."""
    return {g.name: group_resources(g) for g in layout.gpu_groups}
