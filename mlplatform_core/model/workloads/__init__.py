"""The workload layer's Kubernetes objects: priority classes, workload namespaces, default job resources.

Pure Python (no Pulumi import). `build_workloads` (build.py) merges the stack's
`workloads` settings with the environment's defaults and applies the checks
Kubernetes would apply at admission (min <= defaultRequest <= default <= max,
one globalDefault, unique names), raising ConfigError with key paths.
`manifests` (kubernetes_objects.py) renders the objects as plain Kubernetes dicts, the single source
for the Pulumi resources, the plan and the schema tests.
"""

from .build import build_workloads
from .kubernetes_objects import manifests, namespace_manifests, priority_class_manifest
from .spec import (
    DEFAULT_NAMESPACES,
    LIMIT_RANGE_NAME,
    MANAGED_LABELS,
    RESOURCE_QUOTA_NAME,
    ContainerLimits,
    PriorityClass,
    ResourceValues,
    WorkloadNamespace,
    Workloads,
)

__all__ = [
    "DEFAULT_NAMESPACES",
    "LIMIT_RANGE_NAME",
    "MANAGED_LABELS",
    "RESOURCE_QUOTA_NAME",
    "ContainerLimits",
    "PriorityClass",
    "ResourceValues",
    "WorkloadNamespace",
    "Workloads",
    "build_workloads",
    "manifests",
    "namespace_manifests",
    "priority_class_manifest",
]
