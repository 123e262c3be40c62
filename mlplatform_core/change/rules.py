"""The change rules `mlplatform check STACK --against BEFORE` adds to the policy results.

- change-foundation-replaced (prod, mandatory): replacing (or deleting) the EKS cluster, the KMS key or the VPC destroys
  every workload and its data path; it is never an incidental side effect of a merge.
- change-capacity-gap (mandatory in prod, advisory in dev): replacing or deleting a node group that is the only
  one serving its role while workloads run there leaves them Pending; a stack allows it for named groups in
  its policy config: {"change-capacity-gap": {"allowedGroups": ["gpu"]}}.
- change-node-group-roll (advisory): a roll replaces every node, `maxUnavailable` at a time (a node group's, or a
  NodePool's under its Drifted budget: drift, or a new Kubernetes minor).
- change-kubernetes-version (mandatory everywhere): the control plane moves one minor at a time (EKS refuses
  more; downgrades do not exist), and no node group may run a newer minor than the control plane.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..model.eks_versions import kubernetes_minor
from ..model.plan_document import NodeGroupEntry, PlanDocument
from ..model.resource_types import EKS_CLUSTER, KMS_KEY, VPC
from .resources import DELETE, NODE_GROUP, NODE_POOL, REPLACE, ROLL
from .rolls import roll_consequence

FOUNDATION = {
    EKS_CLUSTER: "the EKS cluster",
    KMS_KEY: "the KMS key",
    VPC: "the VPC",
}


@dataclass(frozen=True)
class ChangeRule:
    name: str
    description: str
    remediation: str


RULES = (
    ChangeRule(
        "change-foundation-replaced",
        "In prod, an update never replaces or deletes the EKS cluster, its secrets KMS key or the VPC (offline only: "
        "`check --against`).",
        "Revert the input that forces the replacement (see `mlplatform diff`), or build a new stack and migrate.",
    ),
    ChangeRule(
        "change-capacity-gap",
        "Replacing or deleting the only node group of a role that runs workloads leaves them Pending (offline "
        "only: `check --against`).",
        "Add a second group for the role first, roll instead of replacing, or list the group under allowedGroups "
        "in the stack's policy config for this change.",
    ),
    ChangeRule(
        "change-node-group-roll",
        "A roll replaces every node of a group or NodePool: a managed node group gets its new nodes first (up to "
        "twice its AZs or maxUnavailable above its size), then drains the old ones maxUnavailable at a time, "
        "PodDisruptionBudgets respected for up to 15 minutes per node (offline only: `check --against`).",
        "Nothing to fix: schedule the merge when the group's workloads can be drained batch by batch.",
    ),
    ChangeRule(
        "change-kubernetes-version",
        "The control plane moves one Kubernetes minor at a time and no node group runs ahead of it (offline "
        "only: `check --against`).",
        "Raise kubernetesVersion one minor per update (and roll the node groups) until the target minor.",
    ),
)
LEVELS = {
    "change-foundation-replaced": {"prod": "mandatory", "dev": None},
    "change-capacity-gap": {"prod": "mandatory", "dev": "advisory"},
    "change-node-group-roll": {"prod": "advisory", "dev": "advisory"},
    "change-kubernetes-version": {"prod": "mandatory", "dev": "mandatory"},
}


@dataclass(frozen=True)
class ChangeViolation:
    rule: str
    level: str
    message: str
    resource_type: str | None = None
    resource_name: str | None = None


def _version_violations(diff: Mapping[str, Any], after: PlanDocument) -> list[tuple[str, str | None]]:
    step = diff["kubernetesVersion"]
    out: list[tuple[str, str | None]] = []
    if step["minors"] is not None and step["minors"] > 1:
        out.append(
            (
                f"kubernetesVersion {step['from']} -> {step['to']} jumps {step['minors']} minors; EKS "
                "upgrades the control plane one minor at a time",
                None,
            )
        )
    elif step["minors"] is not None and step["minors"] < 0:
        out.append(
            (f"kubernetesVersion {step['from']} -> {step['to']} goes back; EKS cannot downgrade a control plane", None)
        )
    control = after.kubernetes_version
    control_minor = kubernetes_minor(control)
    for r in after.resources:
        if r.type != NODE_GROUP or control_minor is None:
            continue  # other resources' `version` is a chart's, a provider's or an add-on's (v0.5.30, 9.59.0)
        version = r.inputs.get("version")
        minor = kubernetes_minor(version)
        if minor is not None and minor > control_minor:
            ahead = f"node group {r.name} runs Kubernetes {version}, ahead of the control plane's {control}"
            out.append((ahead, r.name))
    return out


def _only_one(group: NodeGroupEntry, after: PlanDocument, disrupted: Collection[str]) -> bool:
    peers = [g.name for g in after.node_groups if g.role == group.role and g.name != group.name]
    return not [p for p in peers if p not in disrupted]


def change_violations(
    diff: Mapping[str, Any],
    before_doc: Mapping[str, Any] | PlanDocument,
    after_doc: Mapping[str, Any] | PlanDocument,
    allowed_groups: Collection[str] = (),
) -> list[ChangeViolation]:
    before, after = PlanDocument.read(before_doc), PlanDocument.read(after_doc)
    env = "prod" if after.environment == "prod" else "dev"
    found = [
        *_foundation_changes(diff),
        *_node_group_changes(diff, before, after, allowed_groups),
        *_pool_changes(diff),
        *(
            ("change-kubernetes-version", message, NODE_GROUP if name else None, name)
            for message, name in _version_violations(diff, after)
        ),
    ]
    return [
        ChangeViolation(rule, LEVELS[rule][env], message, type_, name)
        for rule, message, type_, name in found
        if LEVELS[rule][env] is not None
    ]


# What a rule found: the rule, the message, the resource's type and name (None: the stack as a whole).
_Found = tuple[str, str, "str | None", "str | None"]


def _foundation_changes(diff: Mapping[str, Any]) -> Iterator[_Found]:
    for r in diff["resources"]:
        if r["action"] == REPLACE and r["type"] in FOUNDATION:
            yield (
                "change-foundation-replaced",
                f"replaces {FOUNDATION[r['type']]} {r['name']} (forced by {', '.join(r.get('forcedBy', []))})",
                r["type"],
                r["name"],
            )
        elif r["action"] == DELETE and r["type"] in FOUNDATION:  # e.g. a renamed resource: worse than a replace
            yield ("change-foundation-replaced", f"deletes {FOUNDATION[r['type']]} {r['name']}", r["type"], r["name"])


def _node_group_changes(
    diff: Mapping[str, Any], before: PlanDocument, after: PlanDocument, allowed_groups: Collection[str]
) -> Iterator[_Found]:
    groups = {g.name: g for g in before.node_groups}
    disrupted = {g["name"] for g in diff["nodeGroups"] if g["action"] in (REPLACE, DELETE, ROLL)}
    for g in diff["nodeGroups"]:
        waiting = [d["workload"] for d in g["displaced"] if d["waits"]]
        gap = g["action"] in (REPLACE, DELETE) and waiting and g["name"] in groups
        if gap and _only_one(groups[g["name"]], after, disrupted) and g["name"] not in allowed_groups:
            yield (
                "change-capacity-gap",
                f"{g['action']}s node group {g['name']} (up to {g['nodesAtMost']} "
                f"nodes), the only group of its role: {', '.join(waiting)} wait for new nodes",
                NODE_GROUP,
                g["name"],
            )
        if g["action"] == ROLL:
            nodes, batch = g["nodesAtMost"] or 0, g.get("batch") or 1
            # EKS adds the new nodes before it drains the old ones (change/rolls.py cites the EKS user guide).
            why = g.get("note") or roll_consequence(nodes, batch, g.get("surge"), False)
            yield (
                "change-node-group-roll",
                f"rolls node group {g['name']}: up to {nodes} nodes replaced {batch} at a time; {why} "
                f"(fields: {', '.join(g['fields'])})",
                NODE_GROUP,
                g["name"],
            )


def _pool_changes(diff: Mapping[str, Any]) -> Iterator[_Found]:
    for p in diff.get("nodePools", []):
        if p["action"] == ROLL:
            yield (
                "change-node-group-roll",
                f"rolls NodePool {p['name']}: every node replaced, {p.get('batch') or 1} at a time (its Drifted "
                f"budget; fields: {', '.join(p['fields'])})",
                NODE_POOL,
                p["name"],
            )
