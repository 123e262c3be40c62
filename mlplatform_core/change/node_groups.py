"""What a change does to the nodes: per node group (and Karpenter NodePool), how many nodes at most are
drained or replaced, and which workloads of the placement proof lose their nodes meanwhile.

A workload (a profile of the BEFORE document's placement proof) is displaced from a group that is replaced,
rolled or deleted. It has somewhere to go when another group it reaches in the AFTER document is not itself
replaced, rolled or deleted; otherwise it waits (Pending) until the new nodes are Ready. A roll moves pods
batch by batch (maxUnavailable nodes at a time, PodDisruptionBudgets respected), so its workloads wait for
no more than one batch. MLRun jobs in `prevent` mode were put on on-demand nodes so as never to be evicted;
their eviction is named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .resources import CREATE, DELETE, NODE_CLASS, NODE_GROUP, NODE_POOL, REPLACE, ROLL, SAME, ResourceChange

DISRUPTING = (REPLACE, ROLL, DELETE)
PREVENT = "prevent"


def _groups(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {g["name"]: g for g in doc.get("nodeGroups", [])}


def _pools(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {p["name"]: p for p in doc.get("nodePools", [])}


def _reaches(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {p["name"]: p for p in doc.get("placement", {}).get("profiles", [])}


def _change_of(changes: Sequence[ResourceChange], type_: str, name: str) -> ResourceChange | None:
    return next((c for c in changes if c.type == type_ and c.name == name), None)


def _pool_change(changes: Sequence[ResourceChange], name: str) -> ResourceChange | None:
    """A NodePool's resource is named after the pool (`<pool>` or `...-<pool>`); a change of its EC2NodeClass
    (named the same way) drifts the pool's nodes too."""

    def named(c: ResourceChange, type_: str) -> bool:
        return c.type == type_ and (c.name == name or c.name.endswith(f"-{name}"))

    pool = next((c for c in changes if named(c, NODE_POOL)), None)
    if pool is not None and pool.action in DISRUPTING:
        return pool
    node_class = next((c for c in changes if named(c, NODE_CLASS) and c.action in DISRUPTING), None)
    return node_class or pool


def displaced(
    group: str, action: str, before: Mapping[str, Any], after: Mapping[str, Any], disrupted: set[str]
) -> list[dict[str, Any]]:
    """The workloads that lose their nodes on `group`, and where they can run meanwhile."""
    if action not in DISRUPTING:
        return []
    after_profiles = _reaches(after)
    out = []
    for name, profile in _reaches(before).items():
        if group not in profile.get("reaches", []) or profile.get("perNode"):
            continue
        later = after_profiles.get(name, {}).get("reaches", [])
        elsewhere = [g for g in later if g != group and g not in disrupted]
        entry: dict[str, Any] = {
            "workload": name,
            "description": profile.get("description", ""),
            "elsewhere": elsewhere,
            # A roll drains one batch at a time onto the group's other nodes; a replacement or deletion leaves
            # the workload Pending unless another group admits it.
            "waits": not elsewhere and action != ROLL,
        }
        if profile.get("preemptionMode") == PREVENT:
            entry["evicted"] = "MLRun prevent mode: these jobs were placed on on-demand nodes so as never to be evicted"
        out.append(entry)
    return out


def _entry(
    name: str,
    change: ResourceChange | None,
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    disrupted: set[str],
) -> dict[str, Any]:
    if old is None:
        action = CREATE
    elif new is None:
        action = DELETE
    else:
        action = change.action if change is not None else SAME
    sized = old or {}
    nodes = sized.get("maxSize") if action in DISRUPTING else 0
    out: dict[str, Any] = {
        "name": name,
        "action": action,
        "fields": change.fields if change is not None and action not in (CREATE, DELETE) else [],
        "nodesAtMost": nodes,
        "displaced": displaced(name, action, before, after, disrupted),
    }
    if change is not None and action == REPLACE:
        out["order"], out["forcedBy"] = change.order, change.forced_by
    return out


def node_group_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], changes: Sequence[ResourceChange]
) -> list[dict[str, Any]]:
    """One entry per node group of either document (AFTER's order, removed groups last)."""
    old, new = _groups(before), _groups(after)
    names = list(new) + [n for n in old if n not in new]
    actions = {}
    for name in names:
        change = _change_of(changes, NODE_GROUP, name)
        if name not in old or name not in new:
            actions[name] = CREATE if name not in old else DELETE
        else:
            actions[name] = change.action if change is not None else SAME
    disrupted = {n for n, a in actions.items() if a in DISRUPTING}
    out = []
    for name in names:
        entry = _entry(
            name, _change_of(changes, NODE_GROUP, name), old.get(name), new.get(name), before, after, disrupted
        )
        if entry["action"] == ROLL:
            entry["batch"] = (new[name].get("maxUnavailable") if name in new else None) or 1
        out.append(entry)
    return out


def node_pool_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], changes: Sequence[ResourceChange]
) -> list[dict[str, Any]]:
    """The same for Karpenter NodePools: Karpenter sizes them by demand, so nodesAtMost is the pool's node limit
    before the change (`limits.nodes`, the group's maxSize), or None (unknown) for a pool without one."""
    old, new = _pools(before), _pools(after)
    names = list(new) + [n for n in old if n not in new]
    entries = [_entry(n, _pool_change(changes, n), old.get(n), new.get(n), before, after, set()) for n in names]
    disrupted = {e["name"] for e in entries if e["action"] in DISRUPTING}
    for e in entries:
        limit = (old.get(e["name"]) or {}).get("limits", {}).get("nodes")
        e["nodesAtMost"] = (int(limit) if str(limit).isdigit() else None) if e["action"] in DISRUPTING else 0
        e["displaced"] = displaced(e["name"], e["action"], before, after, disrupted)
    return entries
