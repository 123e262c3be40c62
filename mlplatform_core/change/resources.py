"""One action per changed resource between two plan documents' `resources`, as `pulumi up` would take it.

Resources are matched by URN. A changed input is a leaf path of the inputs (Pulumi property names, lists
compared whole), less what the resource's `ignoreChanges` covers. A changed input that a ForceNew path, the
resource's own `replaceOnChanges` or an immutable Kubernetes field covers replaces the resource; a node group's
`version`, `releaseVersion` or `launchTemplate.version` rolls its nodes (EKS UpdateNodegroupVersion,
terraform-provider-aws node_group.go resourceNodeGroupUpdate); anything else updates it in place.

What the offline documents cannot show by value (an ID or ARN that only exists after deploy) is carried
through the dependencies the documents record: an input that depends on a replaced resource changes with it,
and one that reads a launch template's latest version changes when that template is updated (a new version).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.resource_types import EC2_NODE_CLASS as NODE_CLASS
from ..model.resource_types import EKS_CLUSTER, LAUNCH_TEMPLATE, NODE_GROUP, NODE_POOL
from ..model.resource_types import K8S_PRIORITY_CLASS as PRIORITY_CLASS
from .replacement import facts, name_property, overlaps, unset_is_same

CREATE, UPDATE, ROLL, REPLACE, DELETE, SAME = "create", "update", "roll", "replace", "delete", "same"
CREATE_BEFORE_DELETE, DELETE_BEFORE_REPLACE = "create-before-delete", "delete-before-replace"
# Node group inputs EKS applies with UpdateNodegroupVersion: nodes replaced batch by batch.
ROLLING_INPUTS = ("version", "releaseVersion", "launchTemplate.version")
# Karpenter: a change to a NodePool's template or to an EC2NodeClass drifts the nodes made from it.
DRIFTING = {NODE_POOL: ("spec.template",), NODE_CLASS: ("spec",)}
REQUIREMENTS = "spec.template.spec.requirements"  # compared whole (a list): drifts only when narrowed


@dataclass
class ResourceChange:
    urn: str
    type: str
    name: str
    action: str
    fields: list[str] = field(default_factory=list)  # the changed inputs (Pulumi property paths)
    order: str | None = None  # replacements only
    forced_by: list[str] = field(default_factory=list)  # the changed inputs that force the replacement
    note: str | None = None
    facts_known: bool = True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "action": self.action,
            "fields": self.fields,
            "order": self.order,
        }
        if self.forced_by:
            out["forcedBy"] = self.forced_by
        if self.note:
            out["note"] = self.note
        if not self.facts_known:
            out["replacementFactsKnown"] = False
        return out


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Leaf paths whose values differ (an absent input and null are the same: undefined is not sent)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        out: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            out += changed_paths(before.get(key), after.get(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    if (isinstance(before, Mapping) and after is None) or (before is None and isinstance(after, Mapping)):
        value = before if before is not None else after
        return [f"{prefix}.{k}" if prefix else str(k) for k in sorted(value, key=str) if value[k] is not None]
    return [prefix] if before != after and prefix else []


def _ignored(path: str, ignore: Sequence[str]) -> bool:
    return any(path == i or path.startswith(i + ".") for i in ignore)


def _get(values: Mapping[str, Any], path: str) -> Any:
    cur: Any = values
    for part in path.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def _carried(after: Mapping[str, Any], decided: Mapping[str, ResourceChange]) -> list[str]:
    """Inputs that change because a resource they read is replaced (or a launch template gets a new version)."""
    out = []
    for prop, urns in (after.get("propertyDependencies") or {}).items():
        for urn in urns:
            dep = decided.get(urn)
            if dep is None:
                continue
            if dep.action == REPLACE:
                out.append(prop)
            elif dep.action == UPDATE and dep.type == LAUNCH_TEMPLATE:
                value = after["inputs"].get(prop)
                out.append(f"{prop}.version" if isinstance(value, Mapping) and "version" in value else prop)
    return list(dict.fromkeys(out))  # once each: an input may read several replaced resources (subnetIds)


def _replacement(type_: str, before: Mapping[str, Any], inputs: Mapping[str, Any], options: Mapping[str, Any]) -> tuple:
    """(order, note) of a replacement: delete first where the provider or program says so, or a fixed name does.
    A name the program sets (auto-naming only fills an unset one) that stays the same collides: the new object
    cannot be created beside the old one (pulumi-kubernetes provider.go Diff decides deleteBeforeReplace so)."""
    f = facts(type_)
    name_prop = name_property(type_)
    name = _get(inputs, name_prop) if name_prop is not None else None
    fixed = name is not None and name == _get(before, name_prop)
    if options.get("deleteBeforeReplace") or f.delete_before_replace or fixed:
        return DELETE_BEFORE_REPLACE, _cost(type_, name if fixed else None, options)
    return CREATE_BEFORE_DELETE, None


def _cost(type_: str, fixed_name: Any, options: Mapping[str, Any]) -> str:
    why = f"fixed name {fixed_name!r}: the old one must go first (creating first fails with 'already exists')"
    if fixed_name is None:
        why = "the provider or the program deletes it first"
    if type_ == EKS_CLUSTER:
        cost = (
            "the control plane and every node group and workload on it are gone until the new cluster and its "
            "node groups are up (tens of minutes); the cluster's Kubernetes objects are not carried over"
        )
        if options.get("protect"):
            cost += "; it is protected, so `pulumi up` refuses until protect is lifted"
    elif type_ == PRIORITY_CLASS:
        cost = "pods naming the class are refused by admission between the delete and the create (seconds)"
    else:
        cost = "it does not exist between the delete and the create"
    return f"{why}; {cost}"


def _role_changed(path: str, before: Mapping[str, Any], after: Mapping[str, Any], carried: Sequence[str]) -> bool:
    """terraform-provider-aws validateAutoModeComputeConfigCustomizeDiff (internal/service/eks/cluster.go, v6.58.0):
    the cluster is replaced only when a node role it already had changes; adding one (turning Auto Mode on), or
    turning Auto Mode off (disabled, or no built-in pools) with the role unset, is an in-place update."""
    old, new = _get(before, "computeConfig") or {}, _get(after, "computeConfig") or {}
    old_role, new_role = old.get("nodeRoleArn") or "", new.get("nodeRoleArn") or ""
    if not old or not new:
        return False
    if not new_role and (not new.get("enabled") or not new.get("nodePools")):
        return False
    return bool(old_role) and (old_role != new_role or path in carried)


# forceNewIf deciders the diff can evaluate from the two documents (by the provider's function name, as the
# generated facts record it); the others are read as a replacement, the safe reading for a gate.
DECIDERS = {"validateAutoModeComputeConfigCustomizeDiff": _role_changed}
AUTO_MODE_ON = (
    "EKS Auto Mode is turned on in place (UpdateClusterConfig with computeConfig, kubernetesNetworkConfig and "
    "storageConfig together: terraform-provider-aws resourceClusterUpdate): the control plane, the running nodes and "
    "their pods stay; AWS starts running Karpenter, block storage and load balancing for the cluster"
)
# EKS user guide automode/auto-disable.adoc: "a destructive operation": EKS terminates every instance and deletes
# every load balancer Auto Mode operates (EBS volumes it provisioned stay).
AUTO_MODE_OFF = (
    "EKS Auto Mode is turned off in place (UpdateClusterConfig), which is destructive: EKS terminates every Auto "
    "Mode node and deletes the load balancers Auto Mode runs (its EBS volumes stay); move the workloads first"
)


def _auto_mode_note(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    old, new = bool(_get(before, "computeConfig.enabled")), bool(_get(after, "computeConfig.enabled"))
    return None if old == new else AUTO_MODE_ON if new else AUTO_MODE_OFF


def _rolls(type_: str, paths: Sequence[str], before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A node group's version inputs, or a Karpenter template: changed in place, every node replaced."""
    if type_ == NODE_GROUP and any(overlaps(p, r) for p in paths for r in ROLLING_INPUTS):
        return True
    drifting = [p for p in paths if any(p.startswith(d) for d in DRIFTING.get(type_, ()))]
    if type_ == NODE_POOL and REQUIREMENTS in drifting:
        drifting.remove(REQUIREMENTS)
        if _narrowed(_get(before, REQUIREMENTS) or [], _get(after, REQUIREMENTS) or []):
            return True
    return bool(drifting)


def _narrowed(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a node the old requirements allowed may break the new ones. Karpenter leaves requirements out of
    the NodePool's drift hash (`hash:"ignore"`, kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim.go) and drifts a
    node only when its labels are not compatible with them (pkg/controllers/nodeclaim/disruption/drift.go
    areRequirementsDrifted): allowing more types, families or zones drifts nothing; a value taken away, or a new
    key, may. A requirement that is not `In` counts as narrowed unless it is unchanged."""
    old = {r.get("key"): r for r in before}
    for req in after:
        was = old.get(req.get("key"))
        if was is None:
            return True
        if was == req:
            continue
        if req.get("operator") != "In" or was.get("operator") != "In":
            return True
        if not set(was.get("values") or []) <= set(req.get("values") or []):
            return True
    return False


def classify(before: Mapping[str, Any], after: Mapping[str, Any], carried: Sequence[str]) -> ResourceChange:
    """The action for one resource present in both documents."""
    type_ = after["type"]
    ignore = list(after.get("ignoreChanges") or [])
    f = facts(type_)
    paths = [
        p
        for p in changed_paths(before["inputs"], after["inputs"])
        if not _ignored(p, ignore) and not unset_is_same(f, p, _get(before["inputs"], p), _get(after["inputs"], p))
    ]
    paths += [p for p in carried if p not in paths and not _ignored(p, ignore)]
    change = ResourceChange(after["urn"], type_, after["name"], SAME, sorted(paths))
    if not paths:
        return change
    change.facts_known = f.known
    replace_on = list(after.get("replaceOnChanges") or [])
    fixed = [*(f.force_new or ()), *replace_on]
    forced = [p for p in paths if "*" in replace_on or any(overlaps(p, x) for x in fixed)]
    # What the provider replaces on only under a condition its code decides: evaluated where the diff knows the
    # function (DECIDERS), else shown as a replacement (the safe reading for a gate), saying which function decides.
    conditional = {
        p: why for p in paths if p not in forced for x, why in f.force_new_if if overlaps(p, x) and why not in DECIDERS
    }
    decided = [
        p
        for p in paths
        if p not in forced
        for x, why in f.force_new_if
        if overlaps(p, x) and why in DECIDERS and DECIDERS[why](p, before["inputs"], after["inputs"], carried)
    ]
    deciders = sorted(set(conditional.values()))
    forced += list(dict.fromkeys([*conditional, *decided]))
    if forced:
        change.action, change.forced_by = REPLACE, forced
        change.order, change.note = _replacement(type_, before["inputs"], after["inputs"], after)
    elif _rolls(type_, paths, before["inputs"], after["inputs"]):
        change.action = ROLL
    else:
        change.action = UPDATE
    if type_ == EKS_CLUSTER and (note := _auto_mode_note(before["inputs"], after["inputs"])):
        change.note = _join(change.note, note if change.action == UPDATE else f"{note}, but it is replaced")
    if deciders:
        change.note = _join(
            change.note,
            f"the provider replaces it on this change only when its check says so ({', '.join(deciders)}); "
            "`pulumi preview --diff` tells",
        )
    refused = [p for p in paths if p not in forced and any(overlaps(p, x) for x in f.immutable)]
    if refused:
        change.note = _join(
            change.note,
            f"the API server refuses to update {', '.join(refused)} (immutable): `pulumi up` fails unless the "
            "program replaces it (replaceOnChanges)",
        )
    if not f.known:
        change.note = (
            f"no generated replacement facts for {type_}: shown as {change.action}; `pulumi preview --diff` tells "
            "whether the provider replaces it"
        )
    return change


def _join(note: str | None, more: str) -> str:
    return f"{note}; {more}" if note else more


def diff_resources(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> list[ResourceChange]:
    """Every resource's action (SAME included), custom resources only (components have no inputs of their own
    under the real engine); in the after-document's order, deletions last."""
    old = {r["urn"]: r for r in before if r.get("custom", True)}
    new = {r["urn"]: r for r in after if r.get("custom", True)}
    decided: dict[str, ResourceChange] = {}

    def decide(urn: str, seen: frozenset[str] = frozenset()) -> ResourceChange:
        if urn in decided:
            return decided[urn]
        res = new[urn]
        for dep in {u for urns in (res.get("propertyDependencies") or {}).values() for u in urns}:
            if dep in new and dep not in seen:
                decide(dep, seen | {urn})
        if urn not in old:
            change = ResourceChange(urn, res["type"], res["name"], CREATE, [])
        else:
            change = classify(old[urn], res, _carried(res, decided))
        decided[urn] = change
        return change

    out = [decide(urn) for urn in new]
    out += [ResourceChange(urn, r["type"], r["name"], DELETE, []) for urn, r in old.items() if urn not in new]
    return out
