"""`mlplatform diff`: two plan documents in, one change document out (pure: no Pulumi, no files)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.eks_versions import kubernetes_minor
from ..model.plan_document import PlanDocument
from .node_groups import DISRUPTING, node_group_changes, node_pool_changes, proof_names
from .resources import CREATE, DELETE, EKS_CLUSTER, REPLACE, ROLL, SAME, UPDATE, ResourceChange, diff_resources

# What a new control-plane version does to Auto Mode's nodes, the built-in pools' too (EKS user guide,
# https://docs.aws.amazon.com/eks/latest/userguide/auto-upgrade.html: "After you initiate a control plane upgrade,
# EKS Auto Mode will upgrade nodes in your cluster ... The new nodes have the corresponding new Kubernetes version").
AUTO_MODE_UPGRADE = (
    "EKS Auto Mode then replaces every Auto Mode node (the stack's pools and the built-in ones) with nodes of the new "
    "version on AWS's image, observing PodDisruptionBudgets; managed node groups roll separately"
)


def _auto_mode(doc: PlanDocument) -> bool:
    cluster = next((r for r in doc.resources if r.type == EKS_CLUSTER), None)
    return bool(cluster and (cluster.inputs.get("computeConfig") or {}).get("enabled"))


# The table's groups, most consequential first.
ACTION_ORDER = (REPLACE, DELETE, ROLL, UPDATE, CREATE)


def version_step(before: PlanDocument, after: PlanDocument) -> dict[str, Any]:
    """The control plane's Kubernetes minor before and after, and how many minors it moves."""
    old, new = before.kubernetes_version, after.kubernetes_version
    step = None
    old_minor, new_minor = kubernetes_minor(old), kubernetes_minor(new)
    if old_minor is not None and new_minor is not None and old_minor[0] == new_minor[0]:
        step = new_minor[1] - old_minor[1]
    return {"from": old, "to": new, "minors": step}


def diff_documents(
    before_doc: Mapping[str, Any] | PlanDocument, after_doc: Mapping[str, Any] | PlanDocument
) -> dict[str, Any]:
    """{"resources", "nodeGroups", "nodePools", "kubernetesVersion", "counts"}: every changed resource with its
    action (unchanged ones left out), every node group (`same` when it does not change). The documents are
    read into the typed plan document here, at the boundary."""
    before, after = PlanDocument.read(before_doc), PlanDocument.read(after_doc)
    changes: list[ResourceChange] = diff_resources(before.resource_records(), after.resource_records())
    changed = [c for c in changes if c.action != SAME]
    changed.sort(key=lambda c: ACTION_ORDER.index(c.action))
    counts = {a: sum(c.action == a for c in changed) for a in ACTION_ORDER}
    out: dict[str, Any] = {
        "kubernetesVersion": version_step(before, after),
        "counts": counts,
        "resources": [c.to_dict() for c in changed],
        "nodeGroups": node_group_changes(before, after, changes),
    }
    if before.node_pools or after.node_pools:
        groups = [g["name"] for g in out["nodeGroups"] if g["action"] in DISRUPTING]
        rolled = {p for g in groups for p in proof_names(before, g, False) | proof_names(after, g, False)}
        out["nodePools"] = node_pool_changes(before, after, changes, rolled)
    cluster = next((c for c in changes if c.type == EKS_CLUSTER), None)
    if cluster is not None and "version" in cluster.fields and _auto_mode(after):
        cluster.note = f"{cluster.note}; {AUTO_MODE_UPGRADE}" if cluster.note else AUTO_MODE_UPGRADE
        out["resources"] = [c.to_dict() for c in changed]
    out["controlPlane"] = cluster.action if cluster is not None else None
    return out
