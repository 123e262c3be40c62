"""Checks of the teams' Kueue objects (stacks with `teams`: mlplatform_core/model/teams):

- team-quota-within-flavor: the nominal quotas every ClusterQueue gives one ResourceFlavor add up to no more than
  the group its nodeLabels select can reach: a node group's maxSize x the largest of its instance types
  (allocatable, as the plan counts it), a NodePool's limits. A flavor whose group is not in the stack (the node
  groups of a separate Kubernetes layer live in the cluster stack) is left to the plan, which proves it;
- team-namespace-local-queue: every namespace a ClusterQueue admits from (namespaceSelector) has a LocalQueue
  pointing at it; without one, jobs labelled with the team's queue name there wait forever;
- prod-team-dev-flavor: a production team (in a prod stack, or whose namespaces carry mlplatform.io/environment:
  prod) may borrow on no development flavor: one whose group's role is a development role (the dev-groups rule's
  developmentRoles, default jupyter and jobs: what the toolkit refuses on a production cluster). Borrowing there is
  any borrowingLimit other than 0 (unset: as much as the cohort lends).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from mlplatform_core.model import instances
from mlplatform_core.model.karpenter.capacity import allocatable, capacity
from mlplatform_core.model.quantity import QuantityError, parse_quantity
from mlplatform_core.model.resource_types import (
    K8S_NAMESPACE,
    KUEUE_CLUSTER_QUEUE,
    KUEUE_LOCAL_QUEUE,
    KUEUE_RESOURCE_FLAVOR,
    NODE_GROUP,
    NODE_POOL,
)
from mlplatform_core.model.scheduling import ENVIRONMENT_LABEL, GPU_RESOURCE, ROLE_LABEL

from .props import entries, get, items, known, stack_environment
from .workloads import object_name

GROUP_LABEL = "mlplatform.io/node-group"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
SHARING_LABEL = "nvidia.com/device-plugin.config"  # a shared GPU group advertises more than its GPUs


def _quantity(value: Any) -> Fraction | None:
    try:
        return parse_quantity(value) if known(value) else None
    except QuantityError:
        return None


def _by_type(args: Any, kind: str) -> list[Any]:
    return [r for r in args.resources if r.resource_type == kind]


def _groups(args: Any) -> list[tuple[str, dict[str, Any], Any]]:
    """(name, node labels, resource) of every node group and NodePool of the stack."""
    out = []
    for r in args.resources:
        if r.resource_type == NODE_GROUP:
            out.append((r.name, entries(get(r.props, "labels", default={})), r))
        elif r.resource_type == NODE_POOL:
            labels = entries(get(r.props, "spec", "template", "metadata", "labels", default={}))
            out.append((object_name(r), {NODEPOOL_LABEL: object_name(r), **labels}, r))
    return out


def _selected(flavor: Any, groups: list[tuple[str, dict[str, Any], Any]]) -> tuple[str, dict[str, Any], Any] | None:
    want = entries(get(flavor.props, "spec", "nodeLabels", default={}))
    found = [g for g in groups if want and all(g[1].get(k) == v for k, v in want.items())]
    return found[0] if len(found) == 1 else None


def _reach(resource: Any) -> dict[str, Fraction] | None:
    """What a node group or NodePool can reach at max size (None: unknown)."""
    if resource.resource_type == NODE_POOL:
        limits = entries(get(resource.props, "spec", "limits", default={}))
        out = {k: q for k, v in limits.items() if k != "nodes" and (q := _quantity(v)) is not None}
        return out or None
    hi = _quantity(get(resource.props, "scalingConfig", "maxSize", default=None))
    if hi is None:
        return None
    shared = SHARING_LABEL in entries(get(resource.props, "labels", default={}))
    best: dict[str, Fraction] = {}
    for name in items(get(resource.props, "instanceTypes", default=[])):
        info = instances.lookup(name) if isinstance(name, str) else None
        alloc = (allocatable(info) or capacity(info)) if info else None
        if alloc is None:
            return None
        per_node = {"cpu": Fraction(alloc["cpu"], 1000), "memory": Fraction(alloc["memory"])}
        if not shared:
            per_node[GPU_RESOURCE] = Fraction(info.gpus)
        for k, v in per_node.items():
            best[k] = max(best.get(k, Fraction(0)), v)
    return {k: v * hi for k, v in best.items()} or None


def _flavor_quotas(queue: Any) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(flavor, resource, the quota entry) of one ClusterQueue."""
    for group in items(get(queue.props, "spec", "resourceGroups", default=[])):
        for flavor in items(get(group, "flavors", default=[])):
            for res in items(get(flavor, "resources", default=[])):
                yield get(flavor, "name"), get(res, "name"), res


def quota_within_flavor(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    groups = _groups(args)
    queues = _by_type(args, KUEUE_CLUSTER_QUEUE)
    for flavor in _by_type(args, KUEUE_RESOURCE_FLAVOR):
        name = object_name(flavor)
        group = _selected(flavor, groups)
        if group is None:
            continue
        reach = _reach(group[2])
        if reach is None:
            continue
        totals: dict[str, list[tuple[str, Fraction]]] = {}
        for q in queues:
            for f, res, entry in _flavor_quotas(q):
                nominal = _quantity(get(entry, "nominalQuota", default=None))
                if f == name and nominal:
                    totals.setdefault(res, []).append((object_name(q), nominal))
        for res, quotas in totals.items():
            total = sum((n for _, n in quotas), Fraction(0))
            if res in reach and total > reach[res]:
                teams = ", ".join(f"{t} ({float(n):g})" for t, n in quotas)
                yield (
                    f"flavor {name}: the ClusterQueues {teams} quota {float(total):g} {res} in all, more than "
                    f"{group[0]} can reach at max size ({float(reach[res]):g})",
                    flavor.urn,
                )


def _selected_namespaces(queue: Any) -> list[str]:
    out: list[str] = []
    for expr in items(get(queue.props, "spec", "namespaceSelector", "matchExpressions", default=[])):
        if get(expr, "key") == "kubernetes.io/metadata.name" and get(expr, "operator") == "In":
            out += [v for v in items(get(expr, "values", default=[])) if isinstance(v, str)]
    match = entries(get(queue.props, "spec", "namespaceSelector", "matchLabels", default={}))
    if isinstance(match.get("kubernetes.io/metadata.name"), str):
        out.append(match["kubernetes.io/metadata.name"])
    return out


def namespace_local_queue(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    local = {
        (get(r.props, "metadata", "namespace"), get(r.props, "spec", "clusterQueue"))
        for r in _by_type(args, KUEUE_LOCAL_QUEUE)
    }
    for q in _by_type(args, KUEUE_CLUSTER_QUEUE):
        for ns in _selected_namespaces(q):
            if (ns, object_name(q)) not in local:
                yield (
                    f"ClusterQueue {object_name(q)} admits jobs from namespace {ns}, which has no LocalQueue pointing "
                    f"at it; jobs there cannot reach the team's quota",
                    q.urn,
                )


def _prod_namespaces(args: Any, environment: str | None) -> set[str]:
    out = set()
    for r in _by_type(args, K8S_NAMESPACE):
        labels = entries(get(r.props, "metadata", "labels", default={}))
        if environment == "prod" or labels.get(ENVIRONMENT_LABEL) == "prod":
            out.add(object_name(r))
    return out


def prod_team_dev_flavor(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    dev_roles = {str(r).lower() for r in cfg["developmentRoles"]}
    groups = _groups(args)
    dev_flavors = set()
    for flavor in _by_type(args, KUEUE_RESOURCE_FLAVOR):
        group = _selected(flavor, groups)
        role = group[1].get(ROLE_LABEL) if group else None
        if isinstance(role, str) and role.lower() in dev_roles:
            dev_flavors.add(object_name(flavor))
    prod = _prod_namespaces(args, stack_environment(args.resources))
    for q in _by_type(args, KUEUE_CLUSTER_QUEUE):
        namespaces = _selected_namespaces(q)
        if not namespaces or not set(namespaces) <= prod:
            continue
        for f, res, entry in _flavor_quotas(q):
            if f not in dev_flavors:
                continue
            limit = get(entry, "borrowingLimit", default=None)
            if limit is None or _quantity(limit) != 0:
                shown = "unset" if limit is None else limit
                yield (
                    f"ClusterQueue {object_name(q)} (a production team: namespaces {', '.join(namespaces)}) may "
                    f"borrow {res} on the development flavor {f} (borrowingLimit {shown})",
                    q.urn,
                )
