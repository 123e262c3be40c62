"""Checks of Karpenter's NodePools: they keep the layout's promises (spot taints, GPU pools, limits, disruption).

EKS Auto Mode runs Karpenter too: its pools are the same karpenter.sh/v1 NodePools, pointing at an
eks.amazonaws.com NodeClass, and its instance-* labels are eks.amazonaws.com ones (EKS user guide,
automode/create-node-pool.adoc "EKS Auto Mode Supported Labels"), so every check here reads both.

NodePools are Kubernetes custom resources (pulumi_kubernetes
apiextensions.CustomResource): their type is kubernetes:<apiVersion>:<kind> and a policy sees
{apiVersion, kind, metadata, spec} as the program wrote them, offline and in a preview alike.

What a pool may launch is read from its requirements (and from template labels, which Karpenter
turns into `In` requirements). A pool that does not constrain karpenter.sh/capacity-type may launch
spot: Karpenter prefers reserved, then spot, then on-demand among the types a pool allows
(aws/karpenter-provider-aws website/content/en/v1.14/concepts/nodepools.md, "Capacity Type").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mlplatform_core.model.karpenter import capacity, spec
from mlplatform_core.model.resource_types import EKS_CLUSTER, NODE_GROUP, NODE_POOL
from mlplatform_core.model.scheduling import (
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    LIFECYCLE_LABEL,
    NON_PREEMPTIBLE,
    PREEMPTIBLE,
    ROLE_LABEL,
    Taint,
)

from .props import (
    ACCELERATED_TYPES,
    CORE_TAINT_KEY,
    MISSING,
    NVIDIA_GPU_TYPES,
    UNKNOWN,
    entries,
    fmt,
    get,
    is_accelerated,
    items,
    known,
    quantity,
)

# The labels Karpenter's requirements use, as the core writes them.
CAPACITY_TYPE = spec.CAPACITY_TYPE_LABEL
INSTANCE_TYPE = spec.INSTANCE_TYPE_LABEL
INSTANCE_FAMILY = capacity.INSTANCE_FAMILY_LABEL
GPU_MANUFACTURER = capacity.INSTANCE_GPU_MANUFACTURER_LABEL
GPU_COUNT = capacity.INSTANCE_GPU_COUNT_LABEL
AUTO_MODE_GROUP = "eks.amazonaws.com"  # nodeClassRef.group of Auto Mode's pools, the domain of their labels
SYSTEM_POOL = "system"  # Auto Mode's built-in pool for core services (computeConfig.nodePools)
CAPACITY_TYPES = frozenset({"spot", "on-demand", "reserved"})


def _family(itype: str) -> str:
    return itype.split(".", 1)[0]


# Families whose every known type has an NVIDIA GPU, and families with any accelerator (the pack's type lists).
ACCELERATED_FAMILIES = frozenset(map(_family, ACCELERATED_TYPES))
NVIDIA_GPU_FAMILIES = frozenset(map(_family, NVIDIA_GPU_TYPES)) - frozenset(
    map(_family, ACCELERATED_TYPES - NVIDIA_GPU_TYPES)
)


@dataclass
class Pool:
    """The facts the rules read from one NodePool (the attributes mirror layout.Group's where they overlap)."""

    name: str
    urn: str
    props: Any

    @property
    def labels(self) -> dict[str, Any]:
        return entries(get(self.props, "spec", "template", "metadata", "labels", default={}))

    @property
    def taints(self) -> list[Taint]:
        out = []
        for t in items(get(self.props, "spec", "template", "spec", "taints", default=[])):
            key, value, effect = (get(t, part) for part in ("key", "value", "effect"))
            out.append(Taint(*(x if isinstance(x, str) else "" for x in (key, value, effect))))
        return out

    def allowed(self, key: str) -> set[str] | None:
        """The values `key` may take on the pool's nodes (In requirements and template labels); None: any."""
        values: set[str] | None = None
        label = self.labels.get(key)
        if isinstance(label, str):
            values = {label}
        excluded: set[str] = set()
        for r in items(get(self.props, "spec", "template", "spec", "requirements", default=[])):
            if get(r, "key") != key:
                continue
            op, vals = get(r, "operator"), {v for v in items(get(r, "values", default=[])) if isinstance(v, str)}
            if op == "In":
                values = vals if values is None else values & vals
            elif op == "NotIn":
                excluded |= vals
            elif op == "DoesNotExist":
                return set()
        if values is None:
            # Only capacity types are a closed set; NotIn on anything else leaves it open.
            return set(CAPACITY_TYPES) - excluded if key == CAPACITY_TYPE and excluded else None
        return values - excluded

    @property
    def auto_mode(self) -> bool:
        return get(self.props, "spec", "template", "spec", "nodeClassRef", "group") == AUTO_MODE_GROUP

    def label(self, karpenter_key: str) -> str:
        """The pool's own spelling of a karpenter.k8s.aws/instance-* label (eks.amazonaws.com on Auto Mode)."""
        return AUTO_MODE_GROUP + karpenter_key[karpenter_key.index("/") :] if self.auto_mode else karpenter_key

    def requires(self, key: str) -> bool:
        reqs = items(get(self.props, "spec", "template", "spec", "requirements", default=[]))
        return any(get(r, "key") == key and get(r, "operator") in ("In", "Exists", "Gt", "Gte") for r in reqs)

    @property
    def capacity_types(self) -> set[str]:
        allowed = self.allowed(CAPACITY_TYPE)
        return set(CAPACITY_TYPES) if allowed is None else allowed

    @property
    def spot(self) -> bool:
        """May launch spot nodes (what MLRun's settings and the spot taint must cover)."""
        return "spot" in self.capacity_types

    @property
    def role(self) -> Any:
        return self.labels.get(ROLE_LABEL)

    @property
    def declared_gpu(self) -> bool:
        return (
            self.labels.get(GPU_PRESENT_LABEL) == "true"
            or any(t.key == GPU_RESOURCE for t in self.taints)
            or self.requires(self.label(GPU_MANUFACTURER))
            or self.requires(self.label(GPU_COUNT))
        )

    @property
    def consolidation(self) -> Any:
        # No disruption block: Karpenter's default, WhenEmptyOrUnderutilized (the CRD's default).
        return get(self.props, "spec", "disruption", "consolidationPolicy", default="WhenEmptyOrUnderutilized")


def _pool(name: str, urn: str, props: Any) -> Pool:
    # The NodePool's own name (what karpenter.sh/nodepool says), else the Pulumi name.
    meta = get(props, "metadata", "name")
    return Pool(meta if isinstance(meta, str) and meta else name, urn, props)


def pools_in(stack_args: Any) -> list[Pool]:
    return [_pool(r.name, r.urn, r.props) for r in stack_args.resources if r.resource_type == NODE_POOL]


def pool_of(args: Any) -> Pool:
    return _pool(args.name, args.urn, args.props)


# --- spot pools -----------------------------------------------------------------------------------


def spot_taint(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if p.spot and not any(t.repels for t in p.taints):
        what = "is a spot pool" if p.capacity_types == {"spot"} else "may launch spot nodes"
        yield (
            f"NodePool {p.name} {what} but has no NoSchedule/NoExecute taint; pods that never asked for "
            "interruptible capacity (MLRun's prevent mode) would be scheduled on it"
        )


def lifecycle_label(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    have = p.labels.get(LIFECYCLE_LABEL)
    if p.spot and p.capacity_types - {"spot"}:
        yield (
            f"NodePool {p.name} may launch spot and {'/'.join(sorted(p.capacity_types - {'spot'}))} nodes under one "
            f"{LIFECYCLE_LABEL} label; MLRun could not tell its interruptible nodes apart, so split it in two pools"
        )
        return
    want = PREEMPTIBLE if p.spot else NON_PREEMPTIBLE
    if known(have) and have != want:
        shown = "no label" if have is None else f"{LIFECYCLE_LABEL}={fmt(have)}"
        yield f"NodePool {p.name} needs the node label {LIFECYCLE_LABEL}={want}, found {shown}"


# --- GPUs ---------------------------------------------------------------------------------------


def _gpu_only(p: Pool) -> tuple[bool, list[str]]:
    """Whether the pool's requirements limit it to NVIDIA GPU types, and the non-GPU choices they allow."""
    types, families = p.allowed(INSTANCE_TYPE), p.allowed(p.label(INSTANCE_FAMILY))
    others = sorted(t for t in types or () if t not in NVIDIA_GPU_TYPES)
    others += sorted(f for f in families or () if f not in NVIDIA_GPU_FAMILIES)
    maker = p.allowed(p.label(GPU_MANUFACTURER))
    limited = (
        (types is not None and bool(types) and not [t for t in types if t not in NVIDIA_GPU_TYPES])
        or (families is not None and bool(families) and not [f for f in families if f not in NVIDIA_GPU_FAMILIES])
        or (maker is not None and bool(maker) and maker <= {"nvidia"})
    )
    return bool(limited), others


def gpu_dedicated(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if not p.declared_gpu:
        return
    if not any(t.key == GPU_RESOURCE and t.repels for t in p.taints):
        yield f"GPU NodePool {p.name} lacks the {GPU_RESOURCE} NoSchedule taint; pods that need no GPU would fill it"
    limited, others = _gpu_only(p)
    if others:
        yield f"GPU NodePool {p.name} allows instance types or families without an NVIDIA GPU: {', '.join(others)}"
    elif not limited:
        yield (
            f"GPU NodePool {p.name} does not limit itself to NVIDIA GPU types (no instance-type, instance-family or "
            f"{p.label(GPU_MANUFACTURER)} requirement does); Karpenter could launch any type for it"
        )


def gpu_types_elsewhere(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if p.declared_gpu:
        return
    found = sorted(t for t in p.allowed(INSTANCE_TYPE) or () if is_accelerated(t))
    found += sorted(f for f in p.allowed(p.label(INSTANCE_FAMILY)) or () if f in ACCELERATED_FAMILIES)
    if found:
        yield (
            f"NodePool {p.name} allows accelerated types or families {', '.join(found)} but is not a GPU pool (no GPU "
            "taint, label or requirement): ordinary pods would fill the expensive nodes"
        )


# --- limits and disruption ------------------------------------------------------------------------


def limits(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    limits = get(p.props, "spec", "limits", default={})
    if limits is UNKNOWN:
        return
    have = entries(limits)
    wanted = ["cpu", "memory"] + ([GPU_RESOURCE] if p.declared_gpu else [])
    if get(p.props, "spec", "replicas", default=MISSING) is not MISSING:
        # A static pool (replicas): the CRD's CEL rule allows limits.nodes only, and replicas bound what runs.
        wanted = ["nodes"]
    missing = [k for k in wanted if k not in have]
    if missing:
        yield (
            f"NodePool {p.name} sets no {', '.join(missing)} limit; without one it can grow past what the stack "
            "promises (and bills) until the account's quotas stop it"
        )
    for key in wanted:
        value = have.get(key)
        if key in have and known(value) and not (quantity(value) or 0) > 0:
            yield f"NodePool {p.name}: limits.{key} is {fmt(value)}; a pool needs room for at least one node"


def consolidation(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    runs_jobs = not p.spot and not any(t.repels for t in p.taints)
    policy = p.consolidation
    if (p.declared_gpu or runs_jobs) and known(policy) and policy != "WhenEmpty":
        what = "GPU" if p.declared_gpu else "job (on-demand, untainted: where MLRun's prevent mode sends jobs)"
        shown = fmt(policy) if policy is not MISSING else "unset (WhenEmptyOrUnderutilized)"
        yield (
            f"{what} NodePool {p.name} has consolidationPolicy {shown}; Karpenter would evict running jobs to "
            "pack nodes tighter, and MLRun does not restart a job whose node goes away"
        )


# --- the initial group ----------------------------------------------------------------------------


def _system_pool(args: Any) -> bool:
    """Whether the stack's cluster asks for Auto Mode's built-in system pool."""
    return any(
        SYSTEM_POOL in list(items(get(r.props, "computeConfig", "nodePools", default=[])))
        for r in args.resources
        if r.resource_type == EKS_CLUSTER
    )


def initial_group(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    pools = pools_in(args)
    for p in pools:
        if p.role == "initial" or any(t.key == CORE_TAINT_KEY for t in p.taints):
            home = (
                "Auto Mode's built-in system pool or a static managed node group"
                if p.auto_mode
                else "a static managed node group, where the Karpenter controller runs"
            )
            yield f"NodePool {p.name} is for the initial role (core services); they belong on {home}", p.urn
    # Node groups are made with the cluster: a stack without the cluster (the Kubernetes layer deployed on its
    # own, kubernetesLayer: separate) cannot see them, and the cluster's stack checks them.
    has_cluster = any(r.resource_type == EKS_CLUSTER for r in args.resources)
    initial_group = any(
        get(r.props, "labels", ROLE_LABEL) == "initial" for r in args.resources if r.resource_type == NODE_GROUP
    )
    if not pools or not has_cluster or initial_group:
        return
    if any(not p.auto_mode for p in pools):
        yield (
            "the stack has Karpenter NodePools but no managed node group labelled "
            f"{ROLE_LABEL}=initial; the Karpenter controller needs nodes Karpenter does not manage",
            None,
        )
    elif not _system_pool(args):
        yield (
            f"the stack has EKS Auto Mode NodePools but neither a managed node group labelled {ROLE_LABEL}=initial "
            "nor Auto Mode's built-in system pool (computeConfig.nodePools); core services would have no nodes",
            None,
        )
