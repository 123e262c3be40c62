"""What a change does to the nodes: per node group (and Karpenter NodePool), how many nodes at most are
drained or replaced, and which workloads of the placement proof lose their nodes meanwhile.

A workload (a profile of the BEFORE document's placement proof) is displaced from a group that is replaced,
rolled or deleted. It has somewhere to go when another group it reaches in the AFTER document is not itself
replaced, rolled or deleted; otherwise it waits (Pending) until the new nodes are Ready. A roll of a managed
node group adds its new nodes before it drains the old ones maxUnavailable at a time, PodDisruptionBudgets
respected (rolls.py), so its workloads do not wait. MLRun jobs in `prevent` mode were put on on-demand nodes
so as never to be evicted; their eviction is named.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..model import provisioners
from ..model.karpenter.flavors import KARPENTER_FLAVOR, Flavor
from ..model.plan_document import NodeGroupEntry, NodePoolEntry, NodeTemplate, PlacementProfile, PlanDocument
from .resources import (
    CREATE,
    DELETE,
    NODE_CLASS,
    NODE_GROUP,
    NODE_POOL,
    REPLACE,
    ROLL,
    SAME,
    UPDATE,
    ResourceChange,
)
from .rolls import roll_consequence, surge

DISRUPTING = (REPLACE, ROLL, DELETE)
PREVENT = "prevent"


def _groups(doc: PlanDocument) -> dict[str, NodeGroupEntry]:
    return {g.name: g for g in doc.node_groups}


def _pools(doc: PlanDocument) -> dict[str, NodePoolEntry]:
    return {p.name: p for p in doc.node_pools}


def _reaches(doc: PlanDocument) -> dict[str, PlacementProfile]:
    return {p.name: p for p in doc.placement.profiles}


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


def proof_names(doc: PlanDocument, name: str, pool: bool) -> set[str]:
    """The placement proof's names (its node templates) of a node group, or of a NodePool by its object name. They
    differ while a stack migrates (`jobs (kept node group)`) or names its Auto Mode pools with a suffix; a
    document without the templates' provenance names them as the group."""
    templates = doc.placement.node_templates
    if not templates or templates[0].provisioner is None:
        return {name}
    if pool:
        return {t.name for t in templates if _from_pool(t) and _pool_label(t) == name}
    return {t.name for t in templates if not _from_pool(t) and t.source == name}


def _from_pool(template: NodeTemplate) -> bool:
    """Whether the template's nodes come from a NodePool: its provisioner (the template's source's) makes some."""
    name = template.provisioner or ""
    return name not in provisioners.names() or provisioners.named(name).flavor is not None


def _pool_label(template: NodeTemplate) -> str | None:
    return template.labels.get("karpenter.sh/nodepool")


def displaced(
    group: str,
    action: str,
    before: PlanDocument,
    after: PlanDocument,
    disrupted: set[str],
    pool: bool = False,
) -> list[dict[str, Any]]:
    """The workloads that lose their nodes on `group` (`disrupted`: the proof's names of every disrupted group), and
    where they can run meanwhile."""
    if action not in DISRUPTING:
        return []
    after_profiles = _reaches(after)
    own = proof_names(before, group, pool) | proof_names(after, group, pool)
    out = []
    for name, profile in _reaches(before).items():
        if not own & set(profile.reaches) or profile.per_node:
            continue
        later = after_profiles[name].reaches if name in after_profiles else []
        elsewhere = [g for g in later if g not in own and g not in disrupted]
        entry: dict[str, Any] = {
            "workload": name,
            "description": profile.description,
            "elsewhere": elsewhere,
            # A roll drains one batch at a time onto the group's other nodes; a replacement or deletion leaves
            # the workload Pending unless another group admits it (or the change removes the workload itself).
            "waits": not elsewhere and action != ROLL and name in after_profiles,
        }
        if name not in after_profiles:
            entry["removed"] = "the change removes this workload too (e.g. an add-on AWS now runs)"
        if profile.preemption_mode == PREVENT:
            entry["evicted"] = "MLRun prevent mode: these jobs were placed on on-demand nodes so as never to be evicted"
        out.append(entry)
    return out


def _entry(
    name: str,
    change: ResourceChange | None,
    old: NodeGroupEntry | NodePoolEntry | None,
    new: NodeGroupEntry | NodePoolEntry | None,
    before: PlanDocument,
    after: PlanDocument,
    disrupted: set[str],
) -> dict[str, Any]:
    if old is None:
        action = CREATE
    elif new is None:
        action = DELETE
    else:
        action = change.action if change is not None else SAME
    nodes = old.max_size if isinstance(old, NodeGroupEntry) and action in DISRUPTING else 0
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


def _both(before: PlanDocument, after: PlanDocument, name: str, pool: bool) -> set[str]:
    return proof_names(before, name, pool) | proof_names(after, name, pool)


def node_group_changes(
    before: PlanDocument, after: PlanDocument, changes: Sequence[ResourceChange]
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
    disrupted = {p for n, a in actions.items() if a in DISRUPTING for p in _both(before, after, n, False)}
    out = []
    for name in names:
        entry = _entry(
            name, _change_of(changes, NODE_GROUP, name), old.get(name), new.get(name), before, after, disrupted
        )
        if entry["action"] == ROLL:
            group = new.get(name)
            entry["batch"] = (group.max_unavailable if group else None) or 1
            entry["surge"] = surge(group.availability_zones if group else None, entry["batch"])
            force = bool(group and group.force_update_version)
            entry["note"] = roll_consequence(entry["nodesAtMost"] or 0, entry["batch"], entry["surge"], force)
        out.append(entry)
    return out


# A new control-plane minor replaces a pool's nodes without any change to the pool or its node class:
# - Karpenter resolves an EC2NodeClass alias (al2023@v20260714, bottlerocket@...) through the SSM parameter of the
#   cluster's Kubernetes version (karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2023.go and
#   bottlerocket.go DescribeImageQuery(k8sVersion, amiVersion); ami.go reads the version from the API server), so
#   after the upgrade every node's AMI is another one: AMIDrift (pkg/cloudprovider/drift.go), and the nodes are
#   replaced within the pool's Drifted disruption budget;
# - EKS Auto Mode: "After you initiate a control plane upgrade, EKS Auto Mode will upgrade nodes in your cluster ...
#   The new nodes have the corresponding new Kubernetes version. EKS Auto Mode observes pod disruption budgets"
#   (EKS user guide, https://docs.aws.amazon.com/eks/latest/userguide/auto-upgrade.html).
KARPENTER_VERSION_ROLL = (
    "the new control-plane minor changes the AMI its EC2NodeClass alias {alias} resolves to (Karpenter reads the "
    "alias's SSM parameter for the cluster's Kubernetes version): every node drifts (AMIDrift) and is replaced, "
    "{batch} at a time (the pool's Drifted budget), pods evicted as PodDisruptionBudgets allow"
)
DRIFT_ROLL = (
    "its NodePool template or node class changed: Karpenter sees every node as drifted and replaces it, {batch} "
    "at a time (the pool's Drifted budget), pods evicted as PodDisruptionBudgets allow"
)
AUTO_MODE_VERSION_ROLL = (
    "EKS Auto Mode replaces every node of the pool with one of the new Kubernetes version (AWS-managed AMI), "
    "{batch} at a time (the pool's Drifted budget), pods evicted as PodDisruptionBudgets allow"
)


def _drift_budget(pool: NodePoolEntry | None) -> str:
    budgets = pool.disruption.budgets if pool is not None and pool.disruption is not None else []
    drifted = next((b for b in budgets if "Drifted" in (b.reasons or [])), None)
    chosen = drifted or next((b for b in budgets if not b.reasons), None)
    return str((chosen.nodes if chosen is not None else None) or "10%")


def _aliases(pool: NodePoolEntry | None) -> list[str]:
    terms = pool.node_class.ami_selector_terms if pool is not None and pool.node_class is not None else []
    return [t.alias for t in terms if t.alias]


def _pool_flavor(pool: NodePoolEntry | None) -> Flavor:
    """The Karpenter that runs a NodePool, by its node class's kind (Auto Mode's NodeClass, Karpenter's
    EC2NodeClass; a stack moving from one to the other has both while keepKarpenter holds): the provisioner whose
    flavor it is, else Karpenter's."""
    kind = pool.node_class.kind if pool is not None and pool.node_class is not None else None
    flavors = [p.flavor for p in provisioners.every() if p.flavor is not None]
    return next((f for f in flavors if f.node_class_kind == kind), KARPENTER_FLAVOR)


def pool_provisioner(pool: NodePoolEntry | None) -> str:
    """Who runs a NodePool: `autoMode` for a pool of Auto Mode's NodeClass (eks.amazonaws.com), else `karpenter`."""
    return _pool_flavor(pool).provisioner


def version_roll(pool: NodePoolEntry, before: PlanDocument, after: PlanDocument) -> str | None:
    """Why a control-plane version change replaces the pool's nodes (None when it does not or is unchanged)."""
    old, new = before.kubernetes_version, after.kubernetes_version
    if not old or not new or old == new:
        return None
    if _pool_flavor(pool).fixed_ami_family:  # Auto Mode's NodeClass: the image is AWS's, per Kubernetes version
        return AUTO_MODE_VERSION_ROLL.format(batch=_drift_budget(pool))
    aliases = _aliases(pool)
    if not aliases:  # AMIs chosen by id, name or tags do not follow the cluster's version
        return None
    return KARPENTER_VERSION_ROLL.format(alias=", ".join(aliases), batch=_drift_budget(pool))


def node_pool_changes(
    before: PlanDocument,
    after: PlanDocument,
    changes: Sequence[ResourceChange],
    also_disrupted: Collection[str] = (),
) -> list[dict[str, Any]]:
    """The same for Karpenter NodePools: Karpenter sizes them by demand, so nodesAtMost is the pool's node limit
    before the change (`limits.nodes`, the group's maxSize), or None (unknown) for a pool without one. A new
    control-plane minor rolls the pools whose image follows it (version_roll)."""
    old, new = _pools(before), _pools(after)
    names = list(new) + [n for n in old if n not in new]
    entries = [_entry(n, _pool_change(changes, n), old.get(n), new.get(n), before, after, set()) for n in names]
    for e in entries:
        e["provisioner"] = pool_provisioner(new.get(e["name"]) or old.get(e["name"]))
        pool = new.get(e["name"])
        why = version_roll(pool, before, after) if pool is not None and e["action"] in (SAME, UPDATE, ROLL) else None
        if e["action"] == ROLL and why is None:  # the pool's template or its node class changed: drift
            why = DRIFT_ROLL.format(batch=_drift_budget(pool))
            if any(f.startswith("spec.amiSelectorTerms") for f in e["fields"]):
                aliases = ", ".join(_aliases(pool)) or "its AMI selector"
                why = f"its EC2NodeClass now selects {aliases}: {why}"
        if why is not None:
            if e["action"] != ROLL:
                e["fields"] = [*e["fields"], "kubernetesVersion"]
            e["action"], e["note"], e["batch"] = ROLL, why, _drift_budget(pool)
    disrupted = {p for e in entries if e["action"] in DISRUPTING for p in _both(before, after, e["name"], True)}
    disrupted |= set(also_disrupted)
    for e in entries:
        was = old.get(e["name"])
        limit = was.limits.get("nodes") if was is not None else None
        e["nodesAtMost"] = (int(limit) if str(limit).isdigit() else None) if e["action"] in DISRUPTING else 0
        e["displaced"] = displaced(e["name"], e["action"], before, after, disrupted, pool=True)
    return entries
