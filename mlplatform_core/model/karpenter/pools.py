"""The layout's groups as Karpenter NodePools: requirements, limits and disruption from each group.

Pure Python. `build_node_pools` runs inside the layout build (model/layout/build.py), asked through the
provisioner (model/provisioners/karpenter.py) of stacks with `provisioner: karpenter`: it turns every group but
the initial one into a NodePoolSpec and marks the group as Karpenter-provisioned (its instance types become every
type the pool may launch, so the placement proof and the exported settings see what Karpenter can launch).
`pool` builds one pool for either Karpenter (flavors.py): EKS Auto Mode's pools (model/automode/pools.py) are
made by the same function. Problems go to `add(path, message)`, so a stack's Karpenter mistakes are reported
with all its other ones.

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
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol

from .. import efa as efa_model
from .. import instances
from ..config import StackConfig
from ..config.karpenter_settings import NodePoolSettings
from ..config.node_groups import NodeGroupSettings
from ..quantity import format_bytes, parse_quantity
from ..scheduling import CPU, DEVICE_PLUGIN_LABEL, GPU_RESOURCE, MEMORY, Taint
from . import amis
from . import capacity as cap
from .candidates import ami_arch as _arch
from .candidates import candidates as _candidates
from .flavors import KARPENTER_FLAVOR, Flavor, duration_hours
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
from .training import (
    capacity_type_of,
    efa_interfaces,
    efa_only_problems,
    efa_type_problems,
    pool_problems,
    zone_requirements,
)

INITIAL = "initial"  # the layout's core-services group (model/layout/spec.py); it never becomes a pool
SPOT_WEIGHT, ON_DEMAND_WEIGHT = 50, 10
DEFAULT_CONSOLIDATE_AFTER = "10m"  # absorbs the gap between one MLRun workflow step and the next
DEFAULT_EXPIRE_AFTER = KARPENTER_FLAVOR.default_expire_after
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


def group_settings(cfg: StackConfig, name: str) -> tuple[NodeGroupSettings, tuple]:
    for i, extra in enumerate(cfg.additional_node_groups):
        if extra.name == name:
            return extra, ("additionalNodeGroups", i)
    return cfg.node_groups.get(name, NodeGroupSettings()), ("nodeGroups", name)


def _k8s_arch(arch: str) -> str:
    return {"x86_64": "amd64"}.get(arch, arch)


def _restricted_label(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    restricted = any(domain == d or domain.endswith("." + d) for d in RESTRICTED_LABEL_DOMAINS)
    return restricted and key not in ALLOWED_RESTRICTED_LABELS


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


def _expire_after(ps: NodePoolSettings, flavor: Flavor, ppath: tuple, add: Add) -> str:
    value = ps.expire_after or flavor.default_expire_after
    ceiling = flavor.max_expire_after_hours
    if ceiling is not None and (value == "Never" or duration_hours(value) > ceiling):
        add(
            ppath + ("expireAfter",),
            f"{value!r}: {flavor.title} replaces every node within 21 days, draining it for up to 24 hours first "
            f"(the NodeClaim's default terminationGracePeriod), so expireAfter may be at most {ceiling}h; "
            f"leave it out for {flavor.default_expire_after}",
        )
    return value


def _ami(ami: str, flavor: Flavor, gpu: bool) -> str:
    """The group's AMI type; a flavor that picks the image itself (Auto Mode: Bottlerocket) gets its variant."""
    if flavor.fixed_ami_family != "Bottlerocket":
        return ami
    return f"BOTTLEROCKET_{'ARM_64' if _arch(ami) == 'arm64' else 'x86_64'}{'_NVIDIA' if gpu else ''}"


def _group_problems(g: GroupLike, cfg: StackConfig, flavor: Flavor, gpath: tuple, add: Add) -> None:
    """What a pool's group may not carry: a size (pools scale from zero) or a label in Karpenter's domains."""
    o = group_settings(cfg, g.name)[0]
    for field, value in (("minSize", o.min_size), ("desiredSize", o.desired_size)):
        if value and not flavor.settings(cfg).keep_node_groups:  # while migrating, they still size the kept group
            add(
                gpath + (field,),
                f"{value}: {flavor.pool_noun} has no {field}; it launches nodes for pending pods and scales "
                "from zero, so remove it (or use provisioner: nodeGroups for nodes that are always there)",
            )
    for key in g.labels:
        if _restricted_label(key):
            add(gpath + ("labels", key), "is in a domain Karpenter reserves for its own labels; choose another key")


def _requirements(
    g: GroupLike, ps: NodePoolSettings, flavor: Flavor, capacity_type: str, arch: str, types: Any
) -> list:
    requirements = [Requirement(CAPACITY_TYPE_LABEL, "In", (capacity_type,)), Requirement(ARCH_LABEL, "In", (arch,))]
    if flavor.os_requirement:
        requirements.append(Requirement(OS_LABEL, "In", ("linux",)))
    if ps.instance_families:
        requirements.append(Requirement(flavor.instance_label("family"), "In", tuple(ps.instance_families)))
        if ps.instance_sizes:
            requirements.append(Requirement(flavor.instance_label("size"), "In", tuple(ps.instance_sizes)))
    else:
        requirements.append(Requirement(INSTANCE_TYPE_LABEL, "In", types))
    if g.gpu:
        requirements.append(Requirement(flavor.instance_label("gpu-manufacturer"), "In", ("nvidia",)))
    return requirements + list(zone_requirements(g))


def _image(g: GroupLike, cfg: StackConfig, flavor: Flavor, ami: str) -> tuple[str, dict, tuple[BlockDevice, ...], str]:
    """The pool's AMI family, labels, block devices and AMI alias."""
    bottlerocket = ami.startswith("BOTTLEROCKET")
    family = amis.BOTTLEROCKET if bottlerocket else amis.AL2023
    labels = dict(g.labels)
    if flavor.fixed_ami_family:  # the image is the flavor's (no alias, no pin): it brings GPU drivers and plugins
        labels.pop(DEVICE_PLUGIN_LABEL, None)
        return family, labels, (), ""
    devices = (
        (BlockDevice("/dev/xvda", BOTTLEROCKET_OS_VOLUME_GIB), BlockDevice("/dev/xvdb", g.disk_size_gib))
        if bottlerocket
        else (BlockDevice("/dev/xvda", g.disk_size_gib),)
    )
    return family, labels, devices, amis.alias(family, cfg)  # pinned for the minor unless karpenter.amiVersion says


def _launched(g: Any, o: NodeGroupSettings, types: Any, flavor: Flavor, gpath: tuple, add: Add) -> Any:
    """The group with the EFA interfaces and placement group the flavor's nodes get; the flavor's launch checks."""
    if flavor.installed:
        pool_problems(g, o, gpath, types, add)
        efa_only_problems(g, o, gpath, types, add)
    else:  # Auto Mode's refusals are its own (model/automode/pools.py)
        efa_type_problems(g, o, gpath, types, add)
    g = dataclasses.replace(g, efa_interfaces=efa_interfaces(o, types))
    if not flavor.implied_placement_group and _implied_placement_group_only(g, o):
        g = dataclasses.replace(g, placement_group=False)
    return g


def build_pool(
    g: GroupLike, cfg: StackConfig, add: Add, flavor: Flavor = KARPENTER_FLAVOR
) -> tuple[NodePoolSpec, GroupLike] | None:
    """One group as a NodePool of `flavor`'s Karpenter, and the group marked as launched by it."""
    ps = flavor.settings(cfg).node_pools.get(g.name, NodePoolSettings())
    ppath = (flavor.settings_key, "nodePools", g.name)
    o, gpath = group_settings(cfg, g.name)
    _group_problems(g, cfg, flavor, gpath, add)
    found = _candidates(g, ps, o, ppath, gpath, add)
    if found is None:
        return None
    types, ami = found
    ami = _ami(ami, flavor, g.gpu)
    g = _launched(g, o, types, flavor, gpath, add)
    limits = _limits(g, types, ps, ppath, add)
    policy = _consolidation(g, ps, ppath, add)
    capacity_type = capacity_type_of(g)
    arch = _k8s_arch(_arch(ami))
    family, labels, devices, alias = _image(g, cfg, flavor, ami)
    pool = NodePoolSpec(
        name=g.name,
        role=g.role,
        capacity_type=capacity_type,
        arch=arch,
        instance_types=types,
        instance_families=tuple(ps.instance_families) if ps.instance_families else None,
        instance_sizes=tuple(ps.instance_sizes) if ps.instance_sizes else None,
        gpu=g.gpu,
        labels=labels,
        taints=g.taints,
        max_nodes=g.max_size,
        limits=limits,
        consolidation_policy=policy,
        consolidate_after=ps.consolidate_after or DEFAULT_CONSOLIDATE_AFTER,
        budgets=(Budget(DEFAULT_BUDGET), Budget(str(g.max_unavailable), ("Drifted",))),
        expire_after=_expire_after(ps, flavor, ppath, add),
        weight=ps.weight or (SPOT_WEIGHT if capacity_type == SPOT else ON_DEMAND_WEIGHT),
        ami_family=family,
        ami_alias=alias,
        block_devices=devices,
        imds_hop_limit=cfg.imds_hop_limit,
        config_path=g.config_path,
        requirements=tuple(_requirements(g, ps, flavor, capacity_type, arch, types)),
        node_class_api=flavor.node_class_api,
        node_class_kind=flavor.node_class_kind,
        ephemeral_storage_gib=g.disk_size_gib if flavor.fixed_ami_family else None,
        efa=g.efa,
        placement_group=g.placement_group,
        single_zone=g.single_zone,
        reservation_id=g.reservation.id if g.reservation else None,
        # The interfaces the node class lists: Karpenter's EC2NodeClass with efaOnly (Auto Mode chooses its own).
        efa_only_interfaces=g.efa_interfaces if flavor.installed and g.efa_layout == efa_model.EFA_ONLY else 0,
    )
    return pool, _marked(g, pool, ami, flavor)


def _marked(g: GroupLike, pool: NodePoolSpec, ami: str, flavor: Flavor) -> GroupLike:
    """The group as its pool launches it: the types the pool may launch, its image and labels, from zero."""
    return dataclasses.replace(  # type: ignore[type-var]
        g,
        instance_types=pool.instance_types,
        ami_type=ami,
        labels=pool.labels,
        min_size=0,
        desired_size=0,
        karpenter=True,
        auto_mode=not flavor.installed,
    )


def _implied_placement_group_only(g: Any, o: NodeGroupSettings) -> bool:
    """The group's placement group is only the one efa implies (no placementGroup: cluster, no reservation's)."""
    named = g.reservation is not None and g.reservation.placement_group is not None
    return g.placement_group and o.placement_group != "cluster" and not named


def check_pool_names(cfg: StackConfig, names: Mapping[str, Any], add: Add, flavor: Flavor, initial_why: str) -> None:
    """Every `<flavor>.nodePools` entry names an enabled group that becomes a pool."""
    for name in flavor.settings(cfg).node_pools:
        where = (flavor.settings_key, "nodePools", name)
        if name == INITIAL:
            add(where, f"the initial group has no NodePool: {initial_why}")
        elif name not in names:
            pools = ", ".join(n for n in names if n != INITIAL) or "none"
            add(where, f"is not an enabled group of this stack; its pools: {pools}")


def pools_of(
    cfg: StackConfig, groups: Sequence[Any], add: Add, flavor: Flavor
) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
    """Every group but the initial one as a pool of `flavor`: the groups (marked) and the pools."""
    out, pools = [], []
    for g in groups:
        built = build_pool(g, cfg, add, flavor) if g.name != INITIAL else None
        out.append(built[1] if built else g)
        if built:
            pools.append(built[0])
    return out, tuple(pools)


def build_node_pools(cfg: StackConfig, groups: Sequence[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
    """provisioner: karpenter: the groups (Karpenter ones marked, with the types they may launch) and one
    NodePoolSpec per pool."""
    settings = cfg.karpenter
    if err := compatibility_error(cfg.kubernetes_version):
        add(("kubernetesVersion",), err)
    names = {g.name: g for g in groups}
    why = "it stays a static managed node group, where the Karpenter controller and the core services run"
    check_pool_names(cfg, names, add, KARPENTER_FLAVOR, why)
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
    out, pools = pools_of(cfg, groups, add, KARPENTER_FLAVOR)
    ami_version_problems(cfg, pools, add)
    return out, pools


def ami_version_problems(cfg: StackConfig, pools: Sequence[NodePoolSpec], add: Add) -> None:
    """karpenter.amiVersion (or its pinned default) against the AMI families of Karpenter's pools."""
    for problem in amis.ami_problems(cfg, {p.ami_family for p in pools}):
        add(("karpenter", "amiVersion"), problem)
