"""Building the layout: defaults merged with a stack's overrides, into node-group specs.

Pure Python. Checks that need defaults merged in (min <= max, a static initial
group, GPU types only in GPU groups, ...) live here and raise ConfigError,
every problem of a stack at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..config import ConfigError, Problem, StackConfig, cluster_name, key_path, show
from ..config.node_groups import GPU_AMI_TYPES, NodeGroupSettings
from ..karpenter.static import static_pools
from ..provisioners import Provisioner, every, provisioner_of
from ..quotas import quota_problems
from ..scheduling import (
    ACCELERATOR_LABEL,
    CRITICAL_ADDONS_TAINT,
    DEVICE_PLUGIN_LABEL,
    EFA_LABEL,
    ENVIRONMENT_LABEL,
    GPU_PRESENT_LABEL,
    GROUP_LABEL,
    LIFECYCLE_LABEL,
    MAX_TAINTS,
    NON_PREEMPTIBLE,
    PREEMPTIBLE,
    ROLE_LABEL,
    Taint,
)
from .allocation import allocation_of, drop_plugin_labels, launched_by
from .autoscaler_tags import MAX_ASG_TAGS, autoscaler_tags
from .defaults import DEFAULTS, GroupDefaults, development_role
from .gpu import accelerator_label, gpu_labels, gpu_model_problem, size_class_problem
from .gpu_metrics import host_engine_problems
from .instance_types import default_ami, instance_type_problems
from .sharing import (
    DEVICE_PLUGIN_CONFIG_LABEL,
    GPU_OPERATOR_OPERANDS_LABEL,
    MIG_CONFIG_LABEL,
    gpu_taint,
    mark_operands,
    sharing_labels,
    sharing_of,
)
from .spec import INITIAL, Layout, NodeGroupSpec
from .training import default_max_size, training_fields

EKS_MAX_LABEL_KEY = 63  # EKS node-group label and taint keys, prefix included (Kubernetes allows 253 + 63)
RESERVED_LABEL_KEYS = {
    LIFECYCLE_LABEL,
    ROLE_LABEL,
    GROUP_LABEL,
    ENVIRONMENT_LABEL,
    GPU_PRESENT_LABEL,
    ACCELERATOR_LABEL,
    DEVICE_PLUGIN_LABEL,
    EFA_LABEL,
    DEVICE_PLUGIN_CONFIG_LABEL,
    MIG_CONFIG_LABEL,
    GPU_OPERATOR_OPERANDS_LABEL,
}
RESERVED_LABEL_PREFIXES = ("eks.amazonaws.com/", "kubernetes.io/", "k8s.io/")


class _Collector:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: tuple, message: str) -> None:
        self.problems.append(Problem(key_path(*path), message))


@dataclasses.dataclass(frozen=True)
class _Sizes:
    capacity: str
    types: tuple[str, ...]
    min_size: int
    max_size: int
    desired: int
    ami: str


def _sizes(base: GroupDefaults, o: NodeGroupSettings, gpu: bool) -> _Sizes:
    """The group's settings, defaults filled in."""
    types = tuple(o.instance_types) if o.instance_types else base.instance_types
    min_size = o.min_size if o.min_size is not None else base.min_size
    max_size = o.max_size if o.max_size is not None else default_max_size(o, base.max_size)
    # Unset: keep the default, pulled into a range the user may have moved.
    desired = o.desired_size if o.desired_size is not None else min(max(base.desired_size, min_size), max_size)
    ami = o.ami_type or default_ami(types, gpu)
    return _Sizes(o.capacity_type or base.capacity_type, types, min_size, max_size, desired, ami)


def _initial_problems(
    name: str, o: NodeGroupSettings, z: _Sizes, path: tuple, cfg: StackConfig, errs: _Collector
) -> None:
    """The rules of the initial role, for every group of that role, built in or added."""
    the = "the initial group" if name == INITIAL else f"group {name} (role initial)"
    if o.dedicated:
        errs.add(
            path + ("dedicated",),
            f"true: {the} is already reserved for core services by the "
            "CriticalAddonsOnly taint; a second taint would keep them off it",
        )
    if z.capacity != "ON_DEMAND":
        errs.add(
            path + ("capacityType",),
            f"{show(z.capacity)}: {the} hosts core services and must be "
            "ON_DEMAND (spot nodes can be reclaimed at any time)",
        )
    if not (z.min_size == z.max_size == z.desired):
        errs.add(
            path + ("minSize",),
            f"{the} must be static, but minSize={z.min_size}, "
            f"maxSize={z.max_size}, desiredSize={z.desired}; set all three to one value",
        )
    if cfg.environment == "prod" and z.max_size < 2:
        errs.add(
            path + ("maxSize",),
            f"{z.max_size}: a prod initial group needs at least 2 nodes for high "
            "availability; set minSize = maxSize = desiredSize >= 2",
        )


def _size_problems(z: _Sizes, path: tuple, errs: _Collector) -> None:
    if z.min_size > z.max_size:
        errs.add(path + ("minSize",), f"{z.min_size} is greater than maxSize {z.max_size}; minSize must be <= maxSize")
    elif not z.min_size <= z.desired <= z.max_size:
        errs.add(path + ("desiredSize",), f"{z.desired} is outside [minSize, maxSize] = [{z.min_size}, {z.max_size}]")


def _type_problems(
    name: str,
    o: NodeGroupSettings,
    z: _Sizes,
    path: tuple,
    gpu: bool,
    prov: Provisioner,
    cfg: StackConfig,
    errs: _Collector,
) -> None:
    """The group's instance types and AMI type."""
    pool = prov.is_pool(cfg, name)
    # A pool chosen by family launches its families' types, never the group's: those are checked (kind and
    # architecture against amiType) where the pool is built (karpenter/pools.py), the group's are not used.
    if not (pool and prov.families_configured(cfg, name)):
        for problem_path, message in instance_type_problems(z.types, bool(o.instance_types), gpu, z.ami, path):
            errs.add(problem_path, message)
    if gpu and z.ami not in GPU_AMI_TYPES:
        errs.add(
            path + ("amiType",),
            f"{show(z.ami)} has no NVIDIA driver; GPU groups need one of {', '.join(GPU_AMI_TYPES)}",
        )
    if not gpu and z.ami in GPU_AMI_TYPES:
        errs.add(path + ("amiType",), f"{show(z.ami)} is a GPU AMI; use it only for GPU groups")
    # The autoscaler's scale-from-zero node is the first type: GPU, spot and autoscaled groups hold one size class.
    # Karpenter knows each type's real size, so its pools may mix sizes; one GPU model keeps the accelerator
    # label true for every node either way.
    one_class = not pool and len(z.types) > 1 and (gpu or z.capacity == "SPOT" or z.min_size != z.max_size)
    if one_class and (problem := size_class_problem(z.types)):
        errs.add(path + ("instanceTypes",), problem)
    if gpu and (problem := gpu_model_problem(z.types, pool=pool)):
        errs.add(path + ("instanceTypes",), problem)


def _label_problems(o: NodeGroupSettings, path: tuple, errs: _Collector) -> None:
    for key, value in o.labels.items():
        if key in RESERVED_LABEL_KEYS or key.startswith(RESERVED_LABEL_PREFIXES):
            errs.add(path + ("labels", key), "is set by the toolkit or by EKS; choose another label key")
        # The EKS API is stricter than Kubernetes: `pulumi up` would fail on these.
        if len(key) > EKS_MAX_LABEL_KEY:
            errs.add(
                path + ("labels", key),
                f"is {len(key)} characters; EKS node-group label keys, prefix "
                f"included, allow at most {EKS_MAX_LABEL_KEY}",
            )
        if value == "":
            errs.add(path + ("labels", key), "has an empty value, which the EKS API refuses for node-group labels")
    for i, t in enumerate(o.taints):
        if len(t.key) > EKS_MAX_LABEL_KEY:
            errs.add(
                path + ("taints", i, "key"),
                f"{show(t.key)} is {len(t.key)} characters; EKS taint keys, prefix "
                f"included, allow at most {EKS_MAX_LABEL_KEY}",
            )


def _labels_and_taints(
    name: str,
    role: str,
    base: GroupDefaults,
    o: NodeGroupSettings,
    z: _Sizes,
    gpu: bool,
    sharing: Any,
    allocation: str,
    cfg: StackConfig,
) -> tuple[dict[str, str], list[Taint]]:
    labels = {
        LIFECYCLE_LABEL: PREEMPTIBLE if z.capacity == "SPOT" else NON_PREEMPTIBLE,
        ROLE_LABEL: role,
        GROUP_LABEL: name,  # one group among those sharing a role (the EKS node group name has a random suffix)
        ENVIRONMENT_LABEL: cfg.environment,
    }
    taints: list[Taint] = []
    if role == INITIAL:
        taints.append(CRITICAL_ADDONS_TAINT)
    if z.capacity == "SPOT":
        taints.append(Taint(cfg.spot_taint.key, cfg.spot_taint.value, cfg.spot_taint.effect))
    if gpu:
        labels[GPU_PRESENT_LABEL] = "true"
        labels.update(gpu_labels(z.types, z.ami))
        labels.update(sharing_labels(sharing))
        drop_plugin_labels(labels, allocation)
        taints.append(gpu_taint(sharing))
    if o.efa:
        labels[EFA_LABEL] = "true"
    if (o.dedicated if o.dedicated is not None else base.dedicated) and role != INITIAL:
        taints.append(Taint(ROLE_LABEL, role, "NoSchedule"))
    labels.update(o.labels)
    taints.extend(Taint(t.key, t.value, t.effect) for t in o.taints)
    return labels, taints


def _taint_problems(taints: list[Taint], path: tuple, errs: _Collector) -> None:
    seen: set[tuple[str, str]] = set()
    for t in taints:
        if (t.key, t.effect) in seen:
            errs.add(path + ("taints",), f"taint {t} repeats key {t.key} with effect {t.effect}; Kubernetes allows one")
        seen.add((t.key, t.effect))
    if len(taints) > MAX_TAINTS:
        errs.add(path + ("taints",), f"{len(taints)} taints (with the toolkit's own); EKS allows at most {MAX_TAINTS}")


def _merge(
    name: str,
    role: str,
    base: GroupDefaults,
    o: NodeGroupSettings,
    path: tuple,
    cfg: StackConfig,
    gpu: bool,
    errs: _Collector,
) -> NodeGroupSpec:
    z = _sizes(base, o, gpu)
    if role == INITIAL:
        _initial_problems(name, o, z, path, cfg, errs)
    _size_problems(z, path, errs)
    prov = provisioner_of(cfg)
    _type_problems(name, o, z, path, gpu, prov, cfg, errs)
    _label_problems(o, path, errs)
    training = training_fields(name, role, o, cfg, z.capacity, z.types, (z.min_size, z.max_size), path, errs.add)
    sharing = sharing_of(name, o, gpu, z.ami, z.types, path, errs.add)
    launcher = launched_by(cfg, name)
    sizes = (z.min_size, z.max_size)
    allocation = allocation_of(name, o, gpu, z.ami, launcher, cfg.kubernetes_version, sizes, path, errs.add)
    labels, taints = _labels_and_taints(name, role, base, o, z, gpu, sharing, allocation, cfg)
    _taint_problems(taints, path, errs)
    spec = NodeGroupSpec(
        name=name,
        role=role,
        capacity_type=training.pop("capacity_type"),
        instance_types=z.types,
        ami_type=z.ami,
        min_size=z.min_size,
        max_size=z.max_size,
        desired_size=z.desired,
        disk_size_gib=o.disk_size_gib or base.disk_size_gib,
        max_unavailable=o.max_unavailable or 1,
        labels=MappingProxyType(labels),
        taints=tuple(taints),
        gpu=gpu,
        config_path=key_path(*path),
        sharing=sharing,
        gpu_allocation=allocation,
        **training,
    )
    ntags = len(autoscaler_tags(spec, cfg.cluster_name_for("x" * 40)))
    if ntags > MAX_ASG_TAGS:
        errs.add(
            path + ("labels",),
            f"the group needs {ntags} Auto Scaling group tags for its labels and taints; "
            f"at most {MAX_ASG_TAGS} fit, so drop some labels or taints",
        )
    return spec


def _pool_gpu_models(cfg: StackConfig, groups: list, pools: tuple, errs: _Collector) -> tuple[list, tuple]:
    """A GPU pool selected by family launches the families' types, not the group's: one GPU model among
    them, and the accelerator label of the pool's nodes names it (not the group's default type's model)."""
    fixed: dict[str, dict[str, str]] = {}
    for pool in pools:
        if not pool.gpu or not pool.instance_families:
            continue
        families = f"families {', '.join(pool.instance_families)}"
        if problem := gpu_model_problem(pool.instance_types, pool=True, described=families):
            errs.add(("karpenter", "nodePools", pool.name, "instanceFamilies"), problem)
            continue
        labels = {k: v for k, v in pool.labels.items() if k != ACCELERATOR_LABEL}
        fixed[pool.name] = {**labels, **accelerator_label(pool.instance_types)}
    groups = [dataclasses.replace(g, labels=fixed[g.name]) if g.name in fixed else g for g in groups]
    pools = tuple(dataclasses.replace(p, labels=fixed[p.name]) if p.name in fixed else p for p in pools)
    return groups, pools


def _section_problems(cfg: StackConfig, prov: Provisioner, errs: _Collector) -> None:
    """The settings section of another provisioner would be ignored: refused (unless a migration keeps it)."""
    kept = prov.kept_sections(cfg)
    for other in every():
        if other is prov or other.section is None:
            continue
        key, field = other.section
        if field in cfg.model_fields_set and key not in kept:
            errs.add(
                (key,), f"is set but provisioner is {cfg.provisioner}; set provisioner: {other.name}, or remove it"
            )


def _unknown_groups(cfg: StackConfig, defaults: Mapping[str, GroupDefaults], errs: _Collector) -> None:
    for name in cfg.node_groups:
        if name not in defaults:
            hint = (
                " (no development work such as Jupyter on the production cluster)"
                if cfg.environment == "prod" and name in DEFAULTS["dev"]
                else ""
            )
            errs.add(
                ("nodeGroups", name),
                f"unknown {cfg.environment} node group{hint}; valid groups: "
                f"{', '.join(defaults)}; add others under additionalNodeGroups",
            )


def _built_in_groups(cfg: StackConfig, defaults: Mapping[str, GroupDefaults], errs: _Collector) -> list[tuple]:
    """The enabled built-in groups, merged, each with its settings path."""
    out: list[tuple] = []
    for name, base in defaults.items():
        o = cfg.node_groups.get(name, NodeGroupSettings())
        enabled = o.enabled if o.enabled is not None else base.enabled
        written = sorted(o.model_fields_set - {"enabled"})
        if o.enabled is None and not base.enabled and written:
            # Settings for a group that is off by default would vanish without a word.
            errs.add(
                ("nodeGroups", name),
                f"{', '.join(NodeGroupSettings.model_fields[f].alias or f for f in written)} given, but the {name} "
                f"group is off by default in {cfg.environment}; add enabled: true to create it "
                "(or enabled: false to keep it off)",
            )
        if name == INITIAL and not enabled:
            why = provisioner_of(cfg).initial_group_note
            errs.add(("nodeGroups", INITIAL, "enabled"), f"false: the initial group for core services is required{why}")
        if enabled:
            path = ("nodeGroups", name)
            out.append((_merge(name, name, base, o, path, cfg, base.gpu, errs), path))
    return out


def _additional_groups(cfg: StackConfig, taken: set[str], errs: _Collector) -> list[tuple]:
    """The enabled additionalNodeGroups, merged, each with its settings path."""
    out: list[tuple] = []
    prov = provisioner_of(cfg)
    for i, extra in enumerate(cfg.additional_node_groups):
        path = ("additionalNodeGroups", i)
        if extra.name in taken:
            errs.add(path + ("name",), f"{show(extra.name)} is already a node group name; names must be unique")
            continue
        taken.add(extra.name)
        if not extra.instance_types and not prov.families_configured(cfg, extra.name):
            errs.add(path + ("instanceTypes",), "missing; additional groups must list their instance types")
            continue
        if extra.enabled is False:
            continue
        role = extra.role or extra.name
        if cfg.environment == "prod" and (why := development_role(role, extra.name)):
            errs.add(
                path + ("role" if extra.role else "name",),
                f"{show(role if extra.role else extra.name)} {why}; no development work such as Jupyter on the "
                "production cluster: run it on the dev cluster",
            )
        if role == "gpu" and not extra.gpu:
            errs.add(
                path + ("gpu",),
                "false, but the role is gpu; set gpu: true so the group gets the GPU group's taint, AMI and checks",
            )
        base = GroupDefaults(True, "ON_DEMAND", tuple(extra.instance_types or ()), 0, 3, 0, gpu=extra.gpu)
        out.append((_merge(extra.name, role, base, extra, path, cfg, extra.gpu, errs), path))
    return out


def _launched(cfg: StackConfig, groups: list, paths: Mapping[str, tuple], errs: _Collector) -> tuple:
    """The groups as the provisioner launches them, its NodePools and what a migration keeps (every check that
    needs them done)."""
    prov = provisioner_of(cfg)
    kept = prov.kept(cfg, groups, errs.add)
    _section_problems(cfg, prov, errs)
    groups, node_pools = prov.node_pools(cfg, groups, errs.add)
    groups, node_pools = static_pools(cfg, prov, groups, node_pools, errs.add)
    groups, node_pools = _pool_gpu_models(cfg, groups, node_pools, errs)
    managed = [g for g in groups if not g.karpenter] + list(kept.groups)
    quota_problems([(g, paths[g.name]) for g in managed], cfg.quotas, errs.add)
    host_engine_problems(cfg.gpu_metrics, cfg.node_repair, groups, errs.add)
    return groups, node_pools, kept


def build_layout(cfg: StackConfig, stack: str = "dev") -> Layout:
    """The node groups of a stack, defaults merged with overrides. Raises ConfigError listing every problem."""
    errs = _Collector()
    defaults = DEFAULTS[cfg.environment]
    _unknown_groups(cfg, defaults, errs)
    merged = _built_in_groups(cfg, defaults, errs) + _additional_groups(cfg, set(defaults), errs)
    paths = {g.name: path for g, path in merged}
    if cfg.cluster_name is None and (err := cluster_name.derived_name_error(stack)):
        errs.add(("clusterName",), err)
    groups, node_pools, kept = _launched(cfg, mark_operands([g for g, _ in merged]), paths, errs)
    if errs.problems:
        raise ConfigError(errs.problems)
    spot = cfg.spot_taint
    return Layout(
        environment=cfg.environment,
        cluster_name=cfg.cluster_name_for(stack),
        groups=tuple(groups),
        spot_taint=Taint(spot.key, spot.value, spot.effect),
        imds_hop_limit=cfg.imds_hop_limit,
        provisioner=cfg.provisioner,
        node_pools=node_pools,
        retained_groups=kept.groups,
        retained_pools=kept.pools,
        retained_pool_groups=kept.pool_groups,
        kubernetes_version=cfg.kubernetes_version,
        node_repair=cfg.node_repair,
        gpu_metrics=cfg.gpu_metrics,
        pod_identity=cfg.pod_identity,
    )
