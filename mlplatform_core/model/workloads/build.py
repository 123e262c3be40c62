"""`build_workloads`: the stack's `workloads` settings merged with the environment's defaults, checked as
Kubernetes would check them at admission (min <= defaultRequest <= default <= max, one globalDefault,
unique names); every problem is raised at once as a ConfigError with its key path."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..config import ConfigError, Problem, StackConfig, key_path, show
from ..config.workloads import (
    SYSTEM_TIERS,
    WORKLOAD_TIERS,
    LimitRangeSettings,
    NamespaceSettings,
    PriorityClassSettings,
    ResourceAmounts,
)
from ..instances import InstanceType
from ..quantity import parse_quantity
from .spec import (
    DEFAULT_NAMESPACES,
    JOB_DEFAULTS,
    LIMIT_FIELDS,
    MANAGED_LABELS,
    RESOURCES,
    SYSTEM_CLASS_DEFAULTS,
    WORKLOAD_CLASS_DEFAULTS,
    ContainerLimits,
    PriorityClass,
    ResourceValues,
    WorkloadNamespace,
    Workloads,
)

_ROOT = ("workloads",)


class _Problems:
    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: tuple, message: str) -> None:
        self.items.append(Problem(key_path(*_ROOT, *path), message))


def _priority_classes(cfg: StackConfig, errs: _Problems) -> list[PriorityClass]:
    wl = cfg.workloads
    out: list[PriorityClass] = []
    for kind, path, defaults, settings, policy in _class_groups(cfg):
        tiers = WORKLOAD_TIERS if kind == "workload" else SYSTEM_TIERS
        out += _tier_classes(kind, path, defaults, settings, policy, tiers)
        _check_ranks([p for p in out if p.tier.startswith(kind)], settings, tiers, path, errs)
    system = [p for p in out if p.tier.startswith("system-")]
    top_user = max(p.value for p in out if p.tier.startswith("workload-"))
    for p in system:
        if p.value <= top_user:
            errs.add(
                ("systemPriorityClasses", p.tier.split("-", 1)[1], "value"),
                f"{p.value} is not above the user classes (up to {top_user}); platform classes must outrank user jobs",
            )
    seen = _check_unique_names(cfg, out, errs)
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


def _class_groups(cfg: StackConfig) -> list[tuple[str, tuple, Mapping[str, tuple[str, int, str]], Any, str]]:
    """The user classes and, when enabled, the platform's: kind, config path, defaults, settings, preemption."""
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
    return groups


def _tier_classes(
    kind: str, path: tuple, defaults: Mapping[str, tuple[str, int, str]], settings: Any, policy: str, tiers: Sequence
) -> list[PriorityClass]:
    """One kind's classes, each tier's defaults overridden by what the stack sets."""
    out: list[PriorityClass] = []
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
    return out


def _check_ranks(ranked: list[PriorityClass], settings: Any, tiers: Sequence, path: tuple, errs: _Problems) -> None:
    """Each tier's value above the one below it; the problem blames the value the stack set."""
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


def _check_unique_names(cfg: StackConfig, out: list[PriorityClass], errs: _Problems) -> dict[str, PriorityClass]:
    """Every class name once; returns each name's first class."""
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
    return seen


def _config_parts(p: PriorityClass) -> tuple:
    kind, tier = p.tier.split("-", 1)
    return ("priorityClasses" if kind == "workload" else "systemPriorityClasses", tier)


def _named_in_config(cfg: StackConfig, p: PriorityClass) -> bool:
    section, tier = _config_parts(p)
    group = cfg.workloads.priority_classes if section == "priorityClasses" else cfg.workloads.system_priority_classes
    return getattr(group, tier).name is not None


def _limits(
    env: str,
    base: Mapping[str, ResourceValues],
    o: LimitRangeSettings,
    path: tuple,
    errs: _Problems,
    whole_node: ResourceValues | None = None,
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
        merged["max"][r] = getattr(given["max"], r) or _larger(getattr(base["max"], r), whole_node, r)

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


def _larger(default: str | None, whole_node: ResourceValues | None, resource: str) -> str | None:
    """The default maximum, raised to a whole GPU or EFA node's size when that is larger."""
    node = getattr(whole_node, resource) if whole_node is not None else None
    if default is None or node is None:
        return default or node
    return node if parse_quantity(node) > parse_quantity(default) else default


def whole_node_maximum(nodes: Sequence[tuple[str, InstanceType]]) -> tuple[ResourceValues, str] | None:
    """The container maximum a whole GPU or EFA node needs: its vCPUs and memory (the largest of `nodes`, each a
    (group, instance type) that one training pod takes whole), and a sentence saying which nodes set it."""
    if not nodes:
        return None
    cpu_group, cpu = max(nodes, key=lambda n: n[1].vcpu or 0)
    mem_group, mem = max(nodes, key=lambda n: n[1].memory_mib or 0)
    values = ResourceValues(
        str(cpu.vcpu), f"{mem.memory_mib // 1024}Gi" if mem.memory_mib % 1024 == 0 else f"{mem.memory_mib}Mi"
    )
    why = f"{cpu.name} of group {cpu_group}" + ("" if mem is cpu else f", {mem.name} of group {mem_group}")
    return values, why


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


def _namespace(
    cfg: StackConfig, name: str, ceiling: tuple[ResourceValues, str] | None, notes: list[str], errs: _Problems
) -> WorkloadNamespace | None:
    """One workload namespace, its defaults merged with what the stack sets; None when the stack disables it."""
    env = cfg.environment
    defaults = DEFAULT_NAMESPACES[env]
    o = cfg.workloads.namespaces.get(name, NamespaceSettings())
    path = ("namespaces", name)
    purpose, base = defaults.get(name, ("Workloads", JOB_DEFAULTS[env]))
    if env == "prod" and name == "jupyter" and name not in defaults and o.enabled is not False:
        errs.add(
            path,
            "no development work such as Jupyter on the production cluster; run notebooks on the dev cluster",
        )
    if o.enabled is False:
        return None
    limits = _limits(env, base, o.limits, path, errs, ceiling[0] if ceiling else None)
    if ceiling and limits.max != _limits(env, base, o.limits, path, _Problems()).max:
        notes.append(
            f"namespace {name}: container maximum {limits.max.cpu} cpu, {limits.max.memory} memory so one "
            f"container can use a whole {ceiling[1]} (set workloads.namespaces.{name}.limits.max to cap it)"
        )
    if o.quota:
        _check_quota(name, limits, o.quota, path, errs)
    return WorkloadNamespace(
        name=name,
        purpose=purpose,
        labels=MappingProxyType({**o.labels, **MANAGED_LABELS}),
        limits=limits,
        quota=MappingProxyType(dict(o.quota)) if o.quota else None,
        config_path=key_path(*_ROOT, *path),
    )


def build_workloads(cfg: StackConfig, whole_nodes: Sequence[tuple[str, InstanceType]] = ()) -> Workloads:
    """The workload layer of a stack, defaults merged with overrides. Raises ConfigError listing every problem.

    `whole_nodes` (layout/gpu.py whole_nodes): the stack's GPU and EFA nodes, which one training pod takes whole.
    A namespace whose `max` the stack does not set gets a container maximum that lets one container use the
    largest of them (its vCPUs and memory), not only the default that fits the CPU workload nodes: a LimitRange
    below it would refuse every pod that fills such a node. A `max` the stack sets is kept (and the placement
    proof says which group it leaves unusable)."""
    wl = cfg.workloads
    errs = _Problems()
    classes = _priority_classes(cfg, errs)
    defaults = DEFAULT_NAMESPACES[cfg.environment]
    ceiling = whole_node_maximum(whole_nodes)
    notes: list[str] = []
    names = list(defaults) + [n for n in wl.namespaces if n not in defaults]
    namespaces = [ns for name in names if (ns := _namespace(cfg, name, ceiling, notes, errs)) is not None]
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
        environment=cfg.environment,
        priority_classes=tuple(classes),
        namespaces=tuple(namespaces),
        default_priority_class=default_class,
        preemption_mode=wl.preemption_mode,
        mlrun_namespace=wl.mlrun_namespace,
        notes=tuple(notes),
    )
