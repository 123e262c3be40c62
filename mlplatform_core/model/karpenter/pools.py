"""The layout's groups as Karpenter NodePools: requirements, limits and disruption from each group.

Pure Python. `build_node_pools` runs inside the layout build (model/layout/build.py) for every stack:
with `provisioner: karpenter` it turns every group but the initial one into a NodePoolSpec and marks
the group as Karpenter-provisioned (its instance types become every type the pool may launch, so the
placement proof and the exported settings see what Karpenter can launch); with `nodeGroups` it only
refuses Karpenter settings that would be ignored. Problems go to `add(path, message)`, so a stack's
Karpenter mistakes are reported with all its other ones.

Choices, each a NodePool field the plan shows:
- requirements: capacity type, architecture and OS; the group's instance types, or the families (and
  sizes) of `karpenter.nodePools.<g>`; GPU pools also require an NVIDIA GPU;
- limits: maxSize nodes of the largest type the pool may launch (cpu, memory, GPUs) and `nodes: maxSize`
  (enforced for dynamic pools: core scheduler.go "Node limits can be enforced early");
- disruption: pools that run MLRun jobs (on-demand pools without a repelling taint, where MLRun's
  default prevent mode sends them) and GPU pools consolidate only when empty, since MLRun does not
  restart a job whose node goes away; spot pools, whose pods accepted interruption, may consolidate
  when under-utilised. Budgets cap voluntary disruption at 10% of the pool and drift roll-outs at the
  group's maxUnavailable; expireAfter is the upstream 720h, written out;
- weight: spot pools before on-demand ones (50 / 10, like the Cluster Autoscaler's priority expander),
  for pods that tolerate both.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol

from .. import instances
from ..config import StackConfig
from ..config.karpenter_settings import KARPENTER, NodePoolSettings
from ..config.node_groups import NodeGroupSettings
from ..quantity import format_bytes, parse_quantity
from ..scheduling import CPU, GPU_RESOURCE, MEMORY, Taint
from . import amis
from . import capacity as cap
from .release import compatibility_error
from .spec import (
    ARCH_LABEL,
    CAPACITY_TYPE_LABEL,
    INSTANCE_TYPE_LABEL,
    OS_LABEL,
    SPOT,
    BlockDevice,
    Budget,
    NodePoolSpec,
    Requirement,
)
from .training import capacity_type_of, efa_interfaces, pool_problems, zone_requirements

INITIAL = "initial"  # the layout's core-services group (model/layout/spec.py); it never becomes a pool
SPOT_WEIGHT, ON_DEMAND_WEIGHT = 50, 10
DEFAULT_CONSOLIDATE_AFTER = "10m"  # absorbs the gap between one MLRun workflow step and the next
DEFAULT_EXPIRE_AFTER = "720h"
DEFAULT_BUDGET = "10%"
BOTTLEROCKET_OS_VOLUME_GIB = 4  # Karpenter's own default for Bottlerocket's /dev/xvda (amifamily/bottlerocket.go)
# Labels Karpenter refuses in a NodePool template (the CRD's CEL rules; core pkg/apis/v1/labels.go).
RESTRICTED_LABEL_DOMAINS = ("karpenter.sh", "karpenter.k8s.aws")
ALLOWED_RESTRICTED_LABELS = (CAPACITY_TYPE_LABEL,)
# Tags the EC2NodeClass refuses: Karpenter sets them on every instance itself (CRD CEL rules on spec.tags).
FORBIDDEN_TAG_KEYS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim")
FORBIDDEN_TAG_KEYS += ("karpenter.k8s.aws/ec2nodeclass",)
FORBIDDEN_TAG_PREFIX = "kubernetes.io/cluster/"

Add = Callable[[tuple, str], None]


class GroupLike(Protocol):
    """The layout's NodeGroupSpec (model/layout/spec.py), as far as a pool needs it."""

    name: str
    role: str
    capacity_type: str
    instance_types: tuple[str, ...]
    efa: bool
    placement_group: bool
    single_zone: bool
    availability_zone: str | None
    reservation: Any
    ami_type: str
    max_size: int
    disk_size_gib: int
    max_unavailable: int
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    gpu: bool
    config_path: str


def families_configured(cfg: StackConfig, group: str) -> bool:
    """Whether the group's pool selects instance types by family (then the group may list no instanceTypes)."""
    pool = cfg.karpenter.node_pools.get(group)
    return cfg.provisioner == KARPENTER and pool is not None and bool(pool.instance_families)


def is_pool(cfg: StackConfig, group: str) -> bool:
    """Whether Karpenter provisions the group (every group but the initial one in a Karpenter stack)."""
    return cfg.provisioner == KARPENTER and group != INITIAL


def _group_settings(cfg: StackConfig, name: str) -> tuple[NodeGroupSettings, tuple]:
    for i, extra in enumerate(cfg.additional_node_groups):
        if extra.name == name:
            return extra, ("additionalNodeGroups", i)
    return cfg.node_groups.get(name, NodeGroupSettings()), ("nodeGroups", name)


def _arch(ami_type: str) -> str:
    return "arm64" if "ARM" in ami_type else "x86_64"


def _k8s_arch(arch: str) -> str:
    return {"x86_64": "amd64"}.get(arch, arch)


def _restricted_label(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    restricted = any(domain == d or domain.endswith("." + d) for d in RESTRICTED_LABEL_DOMAINS)
    return restricted and key not in ALLOWED_RESTRICTED_LABELS


def _suggest(name: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _candidates(
    g: GroupLike, ps: NodePoolSettings, o: NodeGroupSettings, ppath: tuple, gpath: tuple, add: Add
) -> tuple[tuple[str, ...], str] | None:
    """The types the pool may launch and its AMI type; None (problems added) when they cannot be told."""
    if not ps.instance_families:
        if ps.instance_sizes:
            add(ppath + ("instanceSizes",), "needs instanceFamilies: sizes narrow the families a pool selects")
        return g.instance_types, g.ami_type
    if o.instance_types:
        add(
            ppath + ("instanceFamilies",),
            f"set together with {'.'.join(map(str, gpath))}.instanceTypes; a pool selects instance types "
            "either by name or by family, so drop one of the two",
        )
        return None
    sizes = ps.instance_sizes
    ok = True
    for i, size in enumerate(sizes or ()):
        if size not in cap.known_sizes():
            add(
                ppath + ("instanceSizes", i),
                f"{size!r} is not an instance size in the catalog{_suggest(size, cap.known_sizes())}",
            )
            ok = False
    members = cap.family_members(ps.instance_families, sizes)
    for i, fam in enumerate(ps.instance_families):
        where = ppath + ("instanceFamilies", i)
        if fam not in cap.known_families():
            add(where, f"{fam!r} is not an instance family in the catalog{_suggest(fam, cap.known_families())}")
            ok = False
            continue
        types = members[fam]
        if g.gpu and not all(t.nvidia_gpu for t in types):
            examples = ", ".join(sorted({instances.family(t) for t in instances.nvidia_gpu_examples()}))
            add(
                where,
                f"{fam!r} has types without a whole NVIDIA GPU; a GPU pool needs NVIDIA GPU families "
                f"such as {examples}",
            )
            ok = False
        elif not g.gpu and any(t.accelerated for t in types):
            add(
                where,
                f"{fam!r} has accelerators; accelerated families belong only in the gpu pool or an additional "
                "group with gpu: true",
            )
            ok = False
        elif not g.gpu and (unknown := [t.name for t in types if not t.known]):
            add(
                where,
                f"{fam!r} has types whose accelerators are unknown ({', '.join(unknown[:4])}): "
                f"{instances.UNKNOWN_ACCELERATORS}; pick instanceSizes without them, or families the catalog describes",
            )
            ok = False
    if not ok:
        return None
    found = [t for fam in ps.instance_families for t in members[fam]]
    if not found:
        add(
            ppath + ("instanceFamilies",),
            f"families {list(ps.instance_families)} with sizes {list(sizes or [])} match no instance type in the "
            f"catalog (EC2 data as of {instances.catalog_date()}); the pool could never launch a node",
        )
        return None
    arches = sorted({t.arch for t in found if t.arch})
    if o.ami_type:
        ami = o.ami_type
        wrong = [t.name for t in found if t.arch and t.arch != _arch(ami)]
        if wrong:
            add(
                ppath + ("instanceFamilies",),
                f"types {', '.join(wrong[:4])}{'...' if len(wrong) > 4 else ''} are not {_arch(ami)} like "
                f"amiType {ami}; pick families of one architecture",
            )
            return None
    elif len(arches) > 1:
        add(
            ppath + ("instanceFamilies",),
            f"families {list(ps.instance_families)} mix {' and '.join(arches)}; a pool has one architecture "
            "(its AMI's), so split them into two groups",
        )
        return None
    else:
        arch = "ARM_64" if arches == ["arm64"] else "x86_64"
        ami = f"AL2023_{arch}_{'NVIDIA' if g.gpu else 'STANDARD'}"
    return tuple(t.name for t in found), ami


def _show_resource(key: str, amount: Fraction | int) -> str:
    if key == CPU:
        return f"{Fraction(amount) / 1000} vCPU" if Fraction(amount) % 1000 else f"{int(amount) // 1000} vCPU"
    if key == MEMORY:
        return f"{format_bytes(int(amount))} of memory"
    return f"{amount} GPU(s)"


def _limits(g: GroupLike, types: Sequence[str], ps: NodePoolSettings, ppath: tuple, add: Add) -> dict[str, str]:
    known = [t for t in map(instances.lookup, types) if t is not None and t.known]
    caps = [c for c in map(cap.capacity, known) if c is not None]
    if not caps:
        add(
            ppath,
            f"none of the pool's instance types ({', '.join(types[:4])}) has known vCPUs and memory in "
            "the catalog, so its cpu and memory limits cannot be derived; choose types the catalog describes",
        )
        return {}
    n = g.max_size
    limits = {
        CPU: str(n * max(c[CPU] for c in caps) // 1000),
        MEMORY: f"{n * max(c[MEMORY] for c in caps) // 2**20}Mi",
    }
    if g.gpu:
        limits[GPU_RESOURCE] = str(n * max(c[GPU_RESOURCE] for c in caps))
    for key, value in ps.limits.items():
        where = ppath + ("limits", key)
        if key == GPU_RESOURCE and not g.gpu:
            add(where, f"{value}: the pool has no GPUs; set nvidia.com/gpu only on GPU pools")
            continue
        # cpu in millicores and memory in bytes, like capacity; GPUs as a count.
        amount = parse_quantity(value) * (1000 if key == CPU else 1)
        smallest = min(caps, key=lambda c, k=key: c[k])
        if amount < smallest[key]:
            t = known[caps.index(smallest)]
            add(
                where,
                f"{value} is smaller than one node: the smallest instance type the pool may launch, {t.name}, has "
                f"{_show_resource(key, smallest[key])}, so the pool could never launch a node; raise the limit "
                "(or leave it out: the toolkit derives it from maxSize)",
            )
        limits[key] = value
    limits["nodes"] = str(n)
    return limits


def _consolidation(g: GroupLike, ps: NodePoolSettings, ppath: tuple, add: Add) -> str:
    spot = g.capacity_type == "SPOT"
    runs_jobs = not spot and not any(t.repels for t in g.taints)
    policy = ps.consolidation_policy or ("WhenEmptyOrUnderutilized" if spot and not g.gpu else "WhenEmpty")
    if policy != "WhenEmpty" and (g.gpu or runs_jobs):
        what = "GPU training" if g.gpu else "MLRun jobs (an on-demand pool without a taint: MLRun's prevent mode)"
        add(
            ppath + ("consolidationPolicy",),
            f"{policy!r}: pool {g.name} runs {what}, and MLRun does not restart a job whose node goes away; "
            "use WhenEmpty",
        )
    return policy


def _pool(g: GroupLike, cfg: StackConfig, add: Add) -> tuple[NodePoolSpec, GroupLike] | None:
    ps = cfg.karpenter.node_pools.get(g.name, NodePoolSettings())
    ppath = ("karpenter", "nodePools", g.name)
    o, gpath = _group_settings(cfg, g.name)
    for field, value in (("minSize", o.min_size), ("desiredSize", o.desired_size)):
        if value and not cfg.karpenter.keep_node_groups:  # while migrating, they still size the kept group
            add(
                gpath + (field,),
                f"{value}: a Karpenter NodePool has no {field}; it launches nodes for pending pods and scales "
                "from zero, so remove it (or use provisioner: nodeGroups for nodes that are always there)",
            )
    for key in g.labels:
        if _restricted_label(key):
            add(gpath + ("labels", key), "is in a domain Karpenter reserves for its own labels; choose another key")
    found = _candidates(g, ps, o, ppath, gpath, add)
    if found is None:
        return None
    types, ami = found
    pool_problems(g, o, gpath, types, add)
    g = dataclasses.replace(g, efa_interfaces=efa_interfaces(o, types))  # type: ignore[type-var]
    limits = _limits(g, types, ps, ppath, add)
    policy = _consolidation(g, ps, ppath, add)
    capacity_type = capacity_type_of(g)
    arch = _k8s_arch(_arch(ami))
    requirements = [
        Requirement(CAPACITY_TYPE_LABEL, "In", (capacity_type,)),
        Requirement(ARCH_LABEL, "In", (arch,)),
        Requirement(OS_LABEL, "In", ("linux",)),
    ]
    if ps.instance_families:
        requirements.append(Requirement(cap.INSTANCE_FAMILY_LABEL, "In", tuple(ps.instance_families)))
        if ps.instance_sizes:
            requirements.append(Requirement(cap.INSTANCE_SIZE_LABEL, "In", tuple(ps.instance_sizes)))
    else:
        requirements.append(Requirement(INSTANCE_TYPE_LABEL, "In", types))
    if g.gpu:
        requirements.append(Requirement(cap.INSTANCE_GPU_MANUFACTURER_LABEL, "In", ("nvidia",)))
    requirements += zone_requirements(g)
    bottlerocket = ami.startswith("BOTTLEROCKET")
    devices = (
        (BlockDevice("/dev/xvda", BOTTLEROCKET_OS_VOLUME_GIB), BlockDevice("/dev/xvdb", g.disk_size_gib))
        if bottlerocket
        else (BlockDevice("/dev/xvda", g.disk_size_gib),)
    )
    pool = NodePoolSpec(
        name=g.name,
        role=g.role,
        capacity_type=capacity_type,
        arch=arch,
        instance_types=types,
        instance_families=tuple(ps.instance_families) if ps.instance_families else None,
        instance_sizes=tuple(ps.instance_sizes) if ps.instance_sizes else None,
        gpu=g.gpu,
        labels=g.labels,
        taints=g.taints,
        max_nodes=g.max_size,
        limits=limits,
        consolidation_policy=policy,
        consolidate_after=ps.consolidate_after or DEFAULT_CONSOLIDATE_AFTER,
        budgets=(Budget(DEFAULT_BUDGET), Budget(str(g.max_unavailable), ("Drifted",))),
        expire_after=ps.expire_after or DEFAULT_EXPIRE_AFTER,
        weight=ps.weight or (SPOT_WEIGHT if capacity_type == SPOT else ON_DEMAND_WEIGHT),
        ami_family=amis.BOTTLEROCKET if bottlerocket else amis.AL2023,
        ami_alias=amis.alias(amis.BOTTLEROCKET if bottlerocket else amis.AL2023, cfg),
        block_devices=devices,
        imds_hop_limit=cfg.imds_hop_limit,
        config_path=g.config_path,
        requirements=tuple(requirements),
        efa=g.efa,
        placement_group=g.placement_group,
        single_zone=g.single_zone,
        reservation_id=g.reservation.id if g.reservation else None,
    )
    group = dataclasses.replace(g, instance_types=types, ami_type=ami, min_size=0, desired_size=0, karpenter=True)  # type: ignore[type-var]
    return pool, group


def retained_groups(cfg: StackConfig, groups: Sequence[Any]) -> tuple[Any, ...]:
    """The managed node groups a migrating stack keeps next to its pools (karpenter.keepNodeGroups), unchanged."""
    if cfg.provisioner != KARPENTER or not cfg.karpenter.keep_node_groups:
        return ()
    return tuple(g for g in groups if g.name != INITIAL)


def build_node_pools(cfg: StackConfig, groups: Sequence[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
    """The groups (Karpenter ones marked, with the types they may launch) and one NodePoolSpec per pool."""
    settings = cfg.karpenter
    if cfg.provisioner != KARPENTER:
        if "karpenter" in cfg.model_fields_set:
            add(("karpenter",), "is set but provisioner is nodeGroups; set provisioner: karpenter, or remove it")
        return list(groups), ()
    if err := compatibility_error(cfg.kubernetes_version):
        add(("kubernetesVersion",), err)
    names = {g.name: g for g in groups}
    for name in settings.node_pools:
        if name == INITIAL:
            add(
                ("karpenter", "nodePools", name),
                "the initial group has no NodePool: it stays a static managed node group, where the Karpenter "
                "controller and the core services run",
            )
        elif name not in names:
            pools = ", ".join(n for n in names if n != INITIAL) or "none"
            add(("karpenter", "nodePools", name), f"is not an enabled group of this stack; its pools: {pools}")
    initial = names.get(INITIAL)  # the layout refuses a stack without one (naming the Karpenter controller)
    if initial is not None and settings.replicas > initial.max_size:
        add(
            ("karpenter", "replicas"),
            f"{settings.replicas} controller replicas need {settings.replicas} initial nodes (the chart keeps "
            f"replicas on separate nodes), but the initial group has {initial.max_size}; lower replicas or grow it",
        )
    for key in cfg.tags:
        if key in FORBIDDEN_TAG_KEYS or key.startswith(FORBIDDEN_TAG_PREFIX):
            add(("tags", key), "is a tag Karpenter sets on its nodes itself; EC2NodeClasses refuse it")
    out, pools = [], []
    for g in groups:
        if g.name == INITIAL:
            out.append(g)
            continue
        built = _pool(g, cfg, add)
        if built is None:
            out.append(g)
            continue
        pools.append(built[0])
        out.append(built[1])
    for problem in amis.ami_problems(cfg, {p.ami_family for p in pools}):
        add(("karpenter", "amiVersion"), problem)
    return out, tuple(pools)
