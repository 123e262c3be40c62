"""The workload layer as Kubernetes objects (plain dicts): the single source for the Pulumi resources, the
plan and the schema tests."""

from __future__ import annotations

from typing import Any

from .spec import LIMIT_RANGE_NAME, MANAGED_LABELS, RESOURCE_QUOTA_NAME, PriorityClass, WorkloadNamespace, Workloads


def priority_class_manifest(p: PriorityClass) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": p.name, "labels": dict(MANAGED_LABELS)},
        "value": p.value,
        "preemptionPolicy": p.preemption_policy,
        "globalDefault": p.global_default,
        "description": p.description,
    }


def namespace_manifests(ns: WorkloadNamespace) -> list[dict[str, Any]]:
    meta = {"namespace": ns.name, "labels": dict(MANAGED_LABELS)}
    out: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns.name, "labels": dict(ns.labels)}},
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": LIMIT_RANGE_NAME, **meta},
            "spec": {"limits": [ns.limits.to_spec()]},
        },
    ]
    if ns.quota:
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": RESOURCE_QUOTA_NAME, **meta},
                "spec": {"hard": dict(ns.quota)},
            }
        )
    return out


def manifests(w: Workloads) -> list[dict[str, Any]]:
    """Every Kubernetes object of the workload layer, namespaces before the objects that live in them."""
    out = [priority_class_manifest(p) for p in w.priority_classes]
    for ns in w.namespaces:
        out.extend(namespace_manifests(ns))
    return out
