"""The teams' Kueue objects as plain Kubernetes dicts (kueue.x-k8s.io/v1beta2, the storage version at the pin):
ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses, and the Kueue Configuration's
parts the stack decides (integrations, fair sharing). The single source for the Pulumi resources, the plan and
the CRD validation tests; field names from kueue apis/kueue/v1beta2/*_types.go at the pinned tag.
"""

from __future__ import annotations

from typing import Any

from ..quantity import parse_quantity
from ..workloads.spec import MANAGED_LABELS
from .spec import Flavor, Team, Teams

API_VERSION = "kueue.x-k8s.io/v1beta2"
TEAM_LABEL = "mlplatform.io/team"
# Resources a pod may request that no team quotas: EFA interfaces come with the node a training pod takes whole.
# Kueue blocks a workload requesting a resource its ClusterQueue does not cover unless excluded here
# (config resources.excludeResourcePrefixes).
EXCLUDED_RESOURCE_PREFIXES = ("vpc.amazonaws.com/",)


def _meta(name: str, namespace: str | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {**MANAGED_LABELS, **(labels or {})}}
    if namespace:
        meta["namespace"] = namespace
    return meta


def _quantity(text: str) -> str:
    """A quantity as the stack file wrote it (validated with model/quantity.py): Kueue reads the same text."""
    parse_quantity(text)
    return text


def resource_flavor(f: Flavor) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": dict(f.node_labels)}
    if f.node_taints:
        spec["nodeTaints"] = [t.to_dict() for t in f.node_taints]
    if f.tolerations:
        spec["tolerations"] = [t.to_dict() for t in f.tolerations]
    return {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": _meta(f.name), "spec": spec}


def cohort(name: str) -> dict[str, Any]:
    """A root Cohort: its ClusterQueues lend to and borrow from each other (fair sharing between them)."""
    return {"apiVersion": API_VERSION, "kind": "Cohort", "metadata": _meta(name), "spec": {}}


def cluster_queue(team: Team, teams: Teams) -> dict[str, Any]:
    """The team's ClusterQueue: one resource group covering cpu, memory and its flavors' GPU resources; a
    resource the team does not quota on a flavor has nominal quota 0 there (Kueue needs every covered resource
    listed per flavor)."""
    gpus = tuple(dict.fromkeys(r for f in team.flavors if (r := teams.flavor(f).gpu_resource)))
    covered = ["cpu", "memory", *gpus]
    flavors = []
    for name in team.flavors:
        resources = []
        for r in covered:
            q = team.quota(name, r)
            item: dict[str, Any] = {"name": r, "nominalQuota": _quantity(q.text) if q else "0"}
            if q and q.borrowing_text is not None:
                item["borrowingLimit"] = _quantity(q.borrowing_text)
            if q and q.lending_text is not None:
                item["lendingLimit"] = _quantity(q.lending_text)
            resources.append(item)
        flavors.append({"name": name, "resources": resources})
    return {
        "apiVersion": API_VERSION,
        "kind": "ClusterQueue",
        "metadata": _meta(team.name, labels={TEAM_LABEL: team.name}),
        "spec": {
            "cohortName": team.cohort,
            "namespaceSelector": {
                "matchExpressions": [
                    {"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(team.namespaces)}
                ]
            },
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [{"coveredResources": covered, "flavors": flavors}],
            # Reclaim lent quota from any borrower; within the team, a higher priority preempts a lower one.
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            "fairSharing": {"weight": team.weight},
        },
    }


def local_queue(team: Team, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "LocalQueue",
        "metadata": _meta(team.queue_name, namespace, {TEAM_LABEL: team.name}),
        "spec": {"clusterQueue": team.name},
    }


def workload_priority_classes(teams: Teams) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "WorkloadPriorityClass",
            "metadata": _meta(p.name),
            "value": p.value,
            "description": p.description,
        }
        for p in teams.priorities
    ]


def kueue_configuration(teams: Teams) -> dict[str, Any]:
    """The parts of Kueue's Configuration (config.kueue.x-k8s.io/v1beta2) the chart's managerConfig gets:
    the integrations, fair sharing on (v1beta2: the `fairSharing` section's presence enables it), and the
    resource prefixes no team quotas."""
    return {
        "integrations": {"frameworks": list(teams.integrations)},
        "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
        "resources": {"excludeResourcePrefixes": list(EXCLUDED_RESOURCE_PREFIXES)},
    }


def manifests(teams: Teams) -> list[dict[str, Any]]:
    """Every Kueue object of the teams, in the order they can be created: flavors, cohorts, priority classes,
    ClusterQueues, then LocalQueues (each refers to what comes before it)."""
    return (
        [resource_flavor(f) for f in teams.flavors]
        + [cohort(c) for c in teams.cohorts]
        + workload_priority_classes(teams)
        + [cluster_queue(t, teams) for t in teams.teams]
        + [local_queue(t, ns) for t in teams.teams for ns in t.namespaces]
    )
