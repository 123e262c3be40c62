"""`mlplatform diff`: two plan documents in, one change document out (pure: no Pulumi, no files)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.eks_versions import minor_key
from .node_groups import node_group_changes, node_pool_changes
from .resources import CREATE, DELETE, EKS_CLUSTER, REPLACE, ROLL, SAME, UPDATE, ResourceChange, diff_resources

# The table's groups, most consequential first.
ACTION_ORDER = (REPLACE, DELETE, ROLL, UPDATE, CREATE)


def version_step(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The control plane's Kubernetes minor before and after, and how many minors it moves."""
    old, new = before.get("kubernetesVersion"), after.get("kubernetesVersion")
    step = None
    if isinstance(old, str) and isinstance(new, str):
        (om, on), (nm, nn) = minor_key(old)[:2], minor_key(new)[:2]
        step = (nn - on) if om == nm else None
    return {"from": old, "to": new, "minors": step}


def diff_documents(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """{"resources", "nodeGroups", "nodePools", "kubernetesVersion", "counts"}: every changed resource with its
    action (unchanged ones left out), every node group (`same` when it does not change)."""
    changes: list[ResourceChange] = diff_resources(before.get("resources", []), after.get("resources", []))
    changed = [c for c in changes if c.action != SAME]
    changed.sort(key=lambda c: ACTION_ORDER.index(c.action))
    counts = {a: sum(c.action == a for c in changed) for a in ACTION_ORDER}
    out: dict[str, Any] = {
        "kubernetesVersion": version_step(before, after),
        "counts": counts,
        "resources": [c.to_dict() for c in changed],
        "nodeGroups": node_group_changes(before, after, changes),
    }
    if before.get("nodePools") or after.get("nodePools"):
        out["nodePools"] = node_pool_changes(before, after, changes)
    cluster = next((c for c in changes if c.type == EKS_CLUSTER), None)
    out["controlPlane"] = cluster.action if cluster is not None else None
    return out
