"""The workload layer as plain data: priority classes, workload namespaces and their container defaults.

The defaults per environment (Iguazio's priority class names, container defaults per namespace purpose)
live here too; build.py merges them with the stack's `workloads` settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..quantity import parse_quantity

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "pulumi", "app.kubernetes.io/part-of": "ml-platform-eks"}
LIMIT_RANGE_NAME = "container-defaults"
RESOURCE_QUOTA_NAME = "workload-quota"
RESOURCES = ("cpu", "memory")
LIMIT_FIELDS = ("min", "defaultRequest", "default", "max")  # the order Kubernetes requires

# Iguazio's names (seed 003). User classes sit above pods without a class (0) and
# far below the 1e9 ceiling; platform classes sit above every user class.
WORKLOAD_CLASS_DEFAULTS = {
    "low": ("igz-workload-low", 10_000, "Low priority user jobs: scheduled after medium and high ones"),
    "medium": ("igz-workload-medium", 20_000, "Default priority of MLRun jobs and Nuclio functions"),
    "high": ("igz-workload-high", 30_000, "High priority user jobs: first in the scheduling queue"),
}
SYSTEM_CLASS_DEFAULTS = {
    "medium": ("igz-system-medium", 1_000_000, "Platform services"),
    "high": ("igz-system-high", 2_000_000, "Important platform services"),
    "critical": ("igz-system-critical", 3_000_000, "Platform services every user job depends on"),
}


@dataclass(frozen=True)
class ResourceValues:
    cpu: str | None
    memory: str | None  # None only in `min`, where a resource may have no lower bound

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in (("cpu", self.cpu), ("memory", self.memory)) if v is not None}


# Container defaults per environment and namespace purpose. Dev: burstable (request < limit) so many
# notebooks and jobs share nodes. Prod: Guaranteed QoS (request == limit), which the seeds recommend for
# prod and which makes the autoscaler add nodes before pods run short. Max fits the default workload nodes;
# build.py raises it to the stack's largest GPU or EFA node, which one training pod takes whole.
_DEV_JOBS = {
    "defaultRequest": ResourceValues("500m", "1Gi"),
    "default": ResourceValues("2", "4Gi"),
    "max": ResourceValues("7", "28Gi"),
}
_DEV_JUPYTER = {
    "defaultRequest": ResourceValues("500m", "2Gi"),
    "default": ResourceValues("2", "8Gi"),
    "max": ResourceValues("7", "28Gi"),
}
_PROD_JOBS = {
    "defaultRequest": ResourceValues("1", "4Gi"),
    "default": ResourceValues("1", "4Gi"),
    "max": ResourceValues("15", "56Gi"),
}
# name -> (purpose, limit defaults); namespaces the stack adds get the environment's job defaults.
DEFAULT_NAMESPACES: Mapping[str, Mapping[str, tuple[str, Mapping[str, ResourceValues]]]] = {
    "dev": {"mlrun": ("MLRun jobs and Nuclio functions", _DEV_JOBS), "jupyter": ("Jupyter notebooks", _DEV_JUPYTER)},
    "prod": {"mlrun": ("MLRun jobs and Nuclio functions", _PROD_JOBS)},
}
JOB_DEFAULTS = {"dev": _DEV_JOBS, "prod": _PROD_JOBS}


@dataclass(frozen=True)
class PriorityClass:
    tier: str  # workload-low ... system-critical
    name: str
    value: int
    preemption_policy: str
    global_default: bool
    description: str
    config_path: str


@dataclass(frozen=True)
class ContainerLimits:
    default_request: ResourceValues
    default: ResourceValues
    max: ResourceValues
    min: ResourceValues | None = None

    @property
    def qos(self) -> str:
        """The QoS class of a pod whose containers set nothing: Guaranteed when requests equal limits."""
        same = all(
            parse_quantity(getattr(self.default_request, r)) == parse_quantity(getattr(self.default, r))
            for r in RESOURCES
        )
        return "Guaranteed" if same else "Burstable"

    def to_spec(self) -> dict[str, Any]:
        item: dict[str, Any] = {"type": "Container"}
        if self.min is not None:
            item["min"] = self.min.to_dict()
        item["defaultRequest"] = self.default_request.to_dict()
        item["default"] = self.default.to_dict()
        item["max"] = self.max.to_dict()
        return item


@dataclass(frozen=True)
class WorkloadNamespace:
    name: str
    purpose: str
    labels: Mapping[str, str]
    limits: ContainerLimits
    quota: Mapping[str, str] | None
    config_path: str


@dataclass(frozen=True)
class Workloads:
    environment: str
    priority_classes: tuple[PriorityClass, ...]
    namespaces: tuple[WorkloadNamespace, ...]
    default_priority_class: str  # the class MLRun gives jobs that name none
    preemption_mode: str
    mlrun_namespace: str
    notes: tuple[str, ...] = ()  # what the layer derived from the layout (a maximum raised for GPU nodes)

    @property
    def workload_classes(self) -> tuple[PriorityClass, ...]:
        return tuple(p for p in self.priority_classes if p.tier.startswith("workload-"))

    @property
    def global_default(self) -> PriorityClass | None:
        return next((p for p in self.priority_classes if p.global_default), None)

    def namespace(self, name: str) -> WorkloadNamespace:
        return next(ns for ns in self.namespaces if ns.name == name)

    @property
    def mlrun(self) -> WorkloadNamespace:
        return self.namespace(self.mlrun_namespace)
