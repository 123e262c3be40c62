"""The workload layer's Kubernetes objects: priority classes, workload namespaces, default job resources.

Pure Python (no Pulumi import). `build_workloads` merges the stack's
`workloads` settings with the environment's defaults and applies the checks
Kubernetes would apply at admission (min <= defaultRequest <= default <= max,
one globalDefault, unique names), raising ConfigError with key paths.
`manifests` renders the objects as plain Kubernetes dicts, the single source
for the Pulumi resources, the plan and the schema tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .config import ConfigError, Problem, StackConfig, key_path, show
from .config.workloads import (
    SYSTEM_TIERS,
    WORKLOAD_TIERS,
    LimitRangeSettings,
    NamespaceSettings,
    PriorityClassSettings,
    ResourceAmounts,
)
from .quantity import parse_quantity

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
# prod and which makes the autoscaler add nodes before pods run short. Max fits the default workload nodes.
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
_JOB_DEFAULTS = {"dev": _DEV_JOBS, "prod": _PROD_JOBS}


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


# --- building ---------------------------------------------------------------------------------

_ROOT = ("workloads",)


class _Problems:
    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: tuple, message: str) -> None:
        self.items.append(Problem(key_path(*_ROOT, *path), message))


def _priority_classes(cfg: StackConfig, errs: _Problems) -> list[PriorityClass]:
    wl = cfg.workloads
    groups: list[tuple[str, tuple, Mapping[str, tuple[str, int, str]], Any, str]] = [
        ("workload", ("priorityClasses",), WORKLOAD_CLASS_DEFAULTS, wl.priority_classes, "Never"),
    ]
    if wl.system_priority_classes.enabled:
        # Platform services may evict user pods to start: they are what the user pods depend on.
        groups.append(
            (
                "system",
                ("systemPriorityClasses",),
                SYSTEM_CLASS_DEFAULTS,
                wl.system_priority_classes,
                "PreemptLowerPriority",
            )
        )
    out: list[PriorityClass] = []
    for kind, path, defaults, settings, policy in groups:
        tiers = WORKLOAD_TIERS if kind == "workload" else SYSTEM_TIERS
        for tier in tiers:
            o: PriorityClassSettings = getattr(settings, tier)
            name, value, description = defaults[tier]
            out.append(
                PriorityClass(
                    tier=f"{kind}-{tier}",
                    name=o.name or name,
                    value=o.value if o.value is not None else value,
                    preemption_policy=o.preemption_policy or policy,
                    global_default=False,
                    description=o.description or description,
                    config_path=key_path(*_ROOT, *path, tier),
                )
            )
        ranked = [p for p in out if p.tier.startswith(kind)]
        for lower, higher in itertools.pairwise(ranked):
            if lower.value < higher.value:
                continue
            lo_tier, hi_tier = lower.tier.split("-", 1)[1], higher.tier.split("-", 1)[1]
            if getattr(settings, lo_tier).value is not None and getattr(settings, hi_tier).value is None:
                errs.add(
                    path + (lo_tier, "value"),
                    f"{lower.value} is not below {higher.name} ({higher.value}); classes must rank {' < '.join(tiers)}",
                )
            else:
                errs.add(
                    path + (hi_tier, "value"),
                    f"{higher.value} is not above {lower.name} ({lower.value}); classes must rank {' < '.join(tiers)}",
                )
    system = [p for p in out if p.tier.startswith("system-")]
    top_user = max(p.value for p in out if p.tier.startswith("workload-"))
    for p in system:
        if p.value <= top_user:
            errs.add(
                ("systemPriorityClasses", p.tier.split("-", 1)[1], "value"),
                f"{p.value} is not above the user classes (up to {top_user}); platform classes must outrank user jobs",
            )

    seen: dict[str, PriorityClass] = {}
    for p in out:
        if p.name in seen:
            first, again = seen[p.name], p
            # Point at the class whose name the stack set (the other one kept its default).
            blamed, other = (
                (first, again) if _named_in_config(cfg, first) and not _named_in_config(cfg, again) else (again, first)
            )
            errs.add(
                _config_parts(blamed) + ("name",),
                f"{show(p.name)} is also the name of {other.tier}; priority class names must be unique",
            )
        seen.setdefault(p.name, p)

    if wl.global_default is not None:
        by_tier = {p.tier.removeprefix("workload-"): p for p in out if p.tier.startswith("workload-")}
        chosen = by_tier.get(wl.global_default) or seen.get(wl.global_default)
        if chosen is None:
            errs.add(
                ("globalDefault",),
                f"{show(wl.global_default)} names no priority class; use low, medium, high "
                f"or one of {', '.join(p.name for p in out)}",
            )
        else:
            out = [PriorityClass(**{**p.__dict__, "global_default": p is chosen}) for p in out]
    return out


def _config_parts(p: PriorityClass) -> tuple:
    kind, tier = p.tier.split("-", 1)
    return ("priorityClasses" if kind == "workload" else "systemPriorityClasses", tier)


def _named_in_config(cfg: StackConfig, p: PriorityClass) -> bool:
    section, tier = _config_parts(p)
    group = cfg.workloads.priority_classes if section == "priorityClasses" else cfg.workloads.system_priority_classes
    return getattr(group, tier).name is not None


def _limits(
    env: str, base: Mapping[str, ResourceValues], o: LimitRangeSettings, path: tuple, errs: _Problems
) -> ContainerLimits:
    given = {f: getattr(o, _attr(f)) or ResourceAmounts() for f in LIMIT_FIELDS}
    merged: dict[str, dict[str, str | None]] = {f: {} for f in LIMIT_FIELDS}
    for r in RESOURCES:
        request, limit = getattr(given["defaultRequest"], r), getattr(given["default"], r)
        if env == "prod":
            # Keep prod Guaranteed when only one side is set: the other follows it.
            request, limit = request or limit, limit or request
        merged["min"][r] = getattr(given["min"], r)
        merged["defaultRequest"][r] = request or getattr(base["defaultRequest"], r)
        merged["default"][r] = limit or getattr(base["default"], r)
        merged["max"][r] = getattr(given["max"], r) or getattr(base["max"], r)

        chain = [(f, merged[f][r]) for f in LIMIT_FIELDS if merged[f][r] is not None]
        for (lo_field, lo), (hi_field, hi) in itertools.pairwise(chain):
            if parse_quantity(lo) <= parse_quantity(hi):
                continue
            if getattr(given[hi_field], r) is not None:  # blame the value the stack set
                errs.add(
                    path + ("limits", hi_field, r),
                    f"{show(hi)} is below {lo_field} {show(lo)}; Kubernetes requires {' <= '.join(LIMIT_FIELDS)}",
                )
            else:
                errs.add(
                    path + ("limits", lo_field, r),
                    f"{show(lo)} is above {hi_field} {show(hi)}; Kubernetes requires {' <= '.join(LIMIT_FIELDS)}",
                )
    values = {f: ResourceValues(**merged[f]) for f in LIMIT_FIELDS}
    return ContainerLimits(
        default_request=values["defaultRequest"],
        default=values["default"],
        max=values["max"],
        min=values["min"] if any(merged["min"].values()) else None,
    )


def _attr(field_: str) -> str:
    return {"defaultRequest": "default_request"}.get(field_, field_)


def _check_quota(ns: str, limits: ContainerLimits, quota: Mapping[str, str], path: tuple, errs: _Problems) -> None:
    """A quota below the per-container defaults admits no pod that relies on them."""
    pairs = [
        ("requests.cpu", "cpu", limits.default_request),
        ("cpu", "cpu", limits.default_request),
        ("requests.memory", "memory", limits.default_request),
        ("memory", "memory", limits.default_request),
        ("limits.cpu", "cpu", limits.default),
        ("limits.memory", "memory", limits.default),
    ]
    for key, resource, values in pairs:
        if key in quota and parse_quantity(quota[key]) < parse_quantity(getattr(values, resource)):
            errs.add(
                path + ("quota", key),
                f"{show(quota[key])} is below the namespace's per-container default "
                f"{show(getattr(values, resource))}; not even one default pod would fit",
            )
    if "pods" in quota and parse_quantity(quota["pods"]) == 0:
        errs.add(path + ("quota", "pods"), f"0 pods leaves namespace {ns} unusable; remove the namespace instead")


def build_workloads(cfg: StackConfig) -> Workloads:
    """The workload layer of a stack, defaults merged with overrides. Raises ConfigError listing every problem."""
    wl = cfg.workloads
    errs = _Problems()
    classes = _priority_classes(cfg, errs)

    env = cfg.environment
    defaults = DEFAULT_NAMESPACES[env]
    names = list(defaults) + [n for n in wl.namespaces if n not in defaults]
    namespaces: list[WorkloadNamespace] = []
    for name in names:
        o = wl.namespaces.get(name, NamespaceSettings())
        path = ("namespaces", name)
        purpose, base = defaults.get(name, ("Workloads", _JOB_DEFAULTS[env]))
        if env == "prod" and name == "jupyter" and name not in defaults and o.enabled is not False:
            errs.add(
                path,
                "no development work such as Jupyter on the production cluster; run notebooks on the dev cluster",
            )
        if o.enabled is False:
            continue
        limits = _limits(env, base, o.limits, path, errs)
        if o.quota:
            _check_quota(name, limits, o.quota, path, errs)
        namespaces.append(
            WorkloadNamespace(
                name=name,
                purpose=purpose,
                labels=MappingProxyType({**o.labels, **MANAGED_LABELS}),
                limits=limits,
                quota=MappingProxyType(dict(o.quota)) if o.quota else None,
                config_path=key_path(*_ROOT, *path),
            )
        )
    if wl.mlrun_namespace not in {ns.name for ns in namespaces}:
        errs.add(
            ("mlrunNamespace",),
            f"{show(wl.mlrun_namespace)} is not an enabled workload namespace; "
            f"choose one of {', '.join(ns.name for ns in namespaces) or '(none)'} "
            "or add it under workloads.namespaces",
        )
    if errs.items:
        raise ConfigError(errs.items)
    default_class = next(p.name for p in classes if p.tier == f"workload-{wl.default_priority}")
    return Workloads(
        environment=env,
        priority_classes=tuple(classes),
        namespaces=tuple(namespaces),
        default_priority_class=default_class,
        preemption_mode=wl.preemption_mode,
        mlrun_namespace=wl.mlrun_namespace,
    )


# --- manifests --------------------------------------------------------------------------------


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
