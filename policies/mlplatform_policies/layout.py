"""Checks of the node-group layout the seeds ask for (Iguazio best practices, MLRun's spot contract).

Node groups are aws:eks/nodeGroup:NodeGroup resources: the toolkit builds them
from pulumi_aws (not the pulumi_eks component) so labels, taints, capacity and
scaling are plain inputs, visible offline and in a real preview alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mlplatform_core.model.config.node_groups import GPU_AMI_TYPES
from mlplatform_core.model.karpenter.spec import DISCOVERY_TAG
from mlplatform_core.model.layout.autoscaler_tags import AUTOSCALER_PREFIX
from mlplatform_core.model.layout.sharing import MIG_CONFIG_LABEL
from mlplatform_core.model.layout.spec import MIG_RESOURCE_PREFIX as MIG_PREFIX
from mlplatform_core.model.resource_types import ASG_TAG, EC2_TAG, EKS_CLUSTER, NODE_GROUP, SUBNET
from mlplatform_core.model.scheduling import (
    ACCELERATOR_LABEL,
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    LIFECYCLE_LABEL,
    NON_PREEMPTIBLE,
    PREEMPTIBLE,
    ROLE_LABEL,
    Taint,
)

from .props import (
    CORE_TAINT_KEY,
    MISSING,
    entries,
    environment,
    fmt,
    get,
    is_accelerated,
    is_nvidia_gpu,
    items,
    known,
    number,
    prod_rules,
    taints_of,
)


@dataclass
class Group:
    """The facts the rules read from one node group."""

    name: str
    urn: str
    props: Any
    ignore_changes: list[str]
    parent: str | None
    # Whether the stack runs the Cluster Autoscaler (cluster_autoscaler_runs); a rule that sees one resource only
    # cannot tell, and assumes it does.
    autoscaler: bool = True

    @property
    def labels(self) -> dict[str, Any]:
        return entries(get(self.props, "labels", default={}))

    @property
    def taints(self) -> list[Taint]:
        return taints_of(self.props)

    @property
    def capacity(self) -> Any:
        cap = get(self.props, "capacityType")
        return "ON_DEMAND" if cap is None or cap is MISSING else cap  # the EKS default

    @property
    def instance_types(self) -> list[Any]:
        return list(items(get(self.props, "instanceTypes", default=[])))

    @property
    def role(self) -> Any:
        role = self.labels.get(ROLE_LABEL)
        return role if isinstance(role, str) else self.name

    @property
    def environment(self) -> str | None:
        return environment(self.props)

    def size(self, which: str) -> float | None:
        return number(get(self.props, "scalingConfig", which))

    @property
    def autoscaled(self) -> bool:
        """Resized by the Cluster Autoscaler: a group of several sizes (minSize != maxSize) in a stack that runs
        it. A group a migration keeps next to Karpenter or Auto Mode is not (it holds the nodes it has until it is
        drained), as the plan says (mlplatform/reports/plan_document.py, Layout.runs_cluster_autoscaler)."""
        lo, hi = self.size("minSize"), self.size("maxSize")
        return self.autoscaler and lo is not None and hi is not None and lo != hi

    @property
    def is_initial(self) -> bool:
        return self.role == "initial"

    @property
    def declared_gpu(self) -> bool:
        """Marked as a GPU group by any of the toolkit's markers: GPU label, GPU taint or GPU AMI."""
        return (
            self.labels.get(GPU_PRESENT_LABEL) == "true"
            or any(t.key == GPU_RESOURCE for t in self.taints)
            or get(self.props, "amiType") in GPU_AMI_TYPES
        )

    @property
    def spot(self) -> bool:
        return self.capacity == "SPOT"


def group_of(args: Any) -> Group:
    return Group(args.name, args.urn, args.props, list(args.opts.ignore_changes or []), args.opts.parent)


def cluster_autoscaler_runs(resources: Any) -> bool:
    """Whether the toolkit runs the Cluster Autoscaler in this stack: only when no other provisioner launches
    nodes, since two autoscalers would both launch nodes for the same pending pods (Layout.runs_cluster_autoscaler,
    addons/releases.addons_of). The autoscaler itself may be in the other program of a split stack, but what
    provisions instead is marked in the cluster program next to the node groups: the discovery tag Karpenter's
    and Auto Mode's node classes select the cluster's subnets and security group by (karpenter.sh/discovery, on a
    created subnet's tags or an aws.ec2.Tag), and Auto Mode's computeConfig on the EKS cluster."""
    for r in resources:
        if r.resource_type == SUBNET and DISCOVERY_TAG in entries(get(r.props, "tags", default={})):
            return False
        if r.resource_type == EC2_TAG and get(r.props, "key") == DISCOVERY_TAG:
            return False
        if r.resource_type == EKS_CLUSTER and get(r.props, "computeConfig", "enabled") is True:
            return False
    return True


def groups_in(stack_args: Any) -> list[Group]:
    autoscaler = cluster_autoscaler_runs(stack_args.resources)
    return [
        Group(r.name, r.urn, r.props, list(r.opts.ignore_changes or []), r.parent.urn if r.parent else None, autoscaler)
        for r in stack_args.resources
        if r.resource_type == NODE_GROUP
    ]


# --- initial group ------------------------------------------------------------------------------


def initial_group(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    groups = groups_in(args)
    initial = [g for g in groups if g.is_initial]
    if groups and not initial:
        yield (
            f"no node group is labelled {ROLE_LABEL}=initial; core services need a static on-demand group of their own",
            None,
        )
    for g in initial:
        prod = prod_rules(g.environment)
        minimum = cfg["minNodes"] if cfg["minNodes"] is not None else (2 if prod else 1)
        if g.capacity != "ON_DEMAND":
            yield (
                f"node group {g.name} has capacityType {fmt(g.capacity)}; the initial group must be ON_DEMAND "
                "(spot nodes can be reclaimed at any time)",
                g.urn,
            )
        lo, hi, want = g.size("minSize"), g.size("maxSize"), g.size("desiredSize")
        if None not in (lo, hi, want) and not lo == hi == want:
            yield (
                f"node group {g.name} scales {fmt(lo)}..{fmt(hi)} (desired {fmt(want)}); the initial group "
                "must be static: minSize = maxSize = desiredSize",
                g.urn,
            )
        if lo is not None and lo < minimum:
            env = "prod" if prod else "dev"
            yield (f"node group {g.name} has {fmt(lo)} node(s); a {env} initial group needs at least {minimum}", g.urn)
        if not any(t.key == CORE_TAINT_KEY and t.repels for t in g.taints):
            yield (
                f"node group {g.name} lacks the {CORE_TAINT_KEY} NoSchedule taint; without it user pods "
                "land on the core-services nodes",
                g.urn,
            )


# --- labels and taints --------------------------------------------------------------------------


def lifecycle_label(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    want = PREEMPTIBLE if g.spot else NON_PREEMPTIBLE
    have = g.labels.get(LIFECYCLE_LABEL)
    if known(have) and have != want:
        shown = "no label" if have is None else f"{LIFECYCLE_LABEL}={fmt(have)}"
        yield (
            f"capacityType {fmt(g.capacity)} needs the node label {LIFECYCLE_LABEL}={want}, found {shown}; "
            "MLRun tells spot from on-demand nodes by this label"
        )


def spot_taint(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.spot and not any(t.repels for t in g.taints):
        yield (
            "spot node group has no NoSchedule/NoExecute taint; pods that never asked for interruptible "
            "capacity (MLRun's prevent mode) would be scheduled on it"
        )


# --- GPUs --------------------------------------------------------------------------------------


def gpu_dedicated(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if not g.declared_gpu:
        return
    # A MIG group with the mixed strategy advertises nvidia.com/mig-<profile> only, and is tainted with that name:
    # the ExtendedResourceToleration admission plugin tolerates it for pods that request it (layout/sharing.py).
    mig = bool(g.labels.get(MIG_CONFIG_LABEL))
    if not any((t.key == GPU_RESOURCE or (mig and t.key.startswith(MIG_PREFIX))) and t.repels for t in g.taints):
        yield (
            f"GPU node group lacks the {GPU_RESOURCE} NoSchedule taint (or, on a MIG group, its {MIG_PREFIX}<profile> "
            "taint); pods that need no GPU would occupy the GPU nodes"
        )
    ami = get(g.props, "amiType")
    if known(ami) and ami not in GPU_AMI_TYPES:
        yield f"GPU node group uses amiType {fmt(ami)}, which has no NVIDIA driver; use AL2023_x86_64_NVIDIA"
    others = [t for t in g.instance_types if isinstance(t, str) and not is_nvidia_gpu(t)]
    if others:
        yield f"GPU node group lists instance types without an NVIDIA GPU: {', '.join(others)}"


def accelerator_label(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.declared_gpu and not g.labels.get(ACCELERATOR_LABEL):
        yield (
            f"GPU node group has no {ACCELERATOR_LABEL} label; without it the Cluster Autoscaler does not wait "
            "for a new node's GPUs to be advertised and adds more nodes meanwhile"
        )


def gpu_types_elsewhere(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.declared_gpu:
        return
    accelerated = [t for t in g.instance_types if isinstance(t, str) and is_accelerated(t)]
    if accelerated:
        yield (
            f"instance types {', '.join(accelerated)} have accelerators (or, unknown to the catalog, may have) "
            "but the group is not a GPU group (no GPU taint, label or AMI): ordinary pods would fill the expensive "
            "nodes"
        )


# --- scaling ----------------------------------------------------------------------------------


def scaling_bounds(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    lo, hi, want = g.size("minSize"), g.size("maxSize"), g.size("desiredSize")
    if lo is not None and hi is not None and lo > hi:
        yield f"minSize {fmt(lo)} is greater than maxSize {fmt(hi)}"
    elif None not in (lo, hi, want) and not lo <= want <= hi:
        yield f"desiredSize {fmt(want)} is outside [minSize, maxSize] = [{fmt(lo)}, {fmt(hi)}]"
    if hi is not None and hi < 1:
        yield f"maxSize {fmt(hi)}: a node group needs room for at least one node"


def desired_size_ignored(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.autoscaled and not ({"scalingConfig.desiredSize", "scalingConfig"} & set(g.ignore_changes)):
        yield (
            "autoscaled node group does not ignore changes to scalingConfig.desiredSize; every `pulumi up` "
            "would reset the size the Cluster Autoscaler chose"
        )


def asg_tags(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    tag_resources = [r for r in args.resources if r.resource_type == ASG_TAG]
    for g in groups_in(args):
        # ASG Tag resources share the node group's parent component. Their ASG name is an output of the
        # node group, unknown during a preview, so the parent is what links them in both worlds.
        tags: dict[str, Any] = {}
        for r in tag_resources:
            if g.parent is not None and r.parent is not None and r.parent.urn == g.parent:
                key, value = get(r.props, "tag", "key"), get(r.props, "tag", "value")
                if isinstance(key, str):
                    tags[key] = value
        # EKS tags every managed node group's ASG for discovery itself; a Tag resource of ours for those keys
        # would delete EKS's tag when it is destroyed (a rename, a refactor) and the autoscaler loses the group.
        cluster = get(g.props, "clusterName")
        discovery = [k for k in tags if k == f"{AUTOSCALER_PREFIX}/enabled" or k == f"{AUTOSCALER_PREFIX}/{cluster}"]
        if discovery:
            yield (
                f"node group {g.name}: Tag resources for {', '.join(discovery)}, which EKS puts on every managed "
                "node group's Auto Scaling group itself; destroying ours would remove EKS's tag",
                g.urn,
            )
        if not g.autoscaled:
            continue
        template = f"{AUTOSCALER_PREFIX}/node-template"
        wanted: dict[str, str | None] = {}
        for key, value in g.labels.items():
            if isinstance(value, str):
                wanted[f"{template}/label/{key}"] = value
        for t in g.taints:
            wanted[f"{template}/taint/{t.key}"] = f"{t.value}:{t.effect}"
        if g.declared_gpu:
            wanted[f"{template}/resources/{GPU_RESOURCE}"] = None
        missing = [k for k in wanted if k not in tags]
        wrong = [
            f"{k}={fmt(tags[k])} (want {v})"
            for k, v in wanted.items()
            if k in tags and v is not None and known(tags[k]) and tags[k] != v
        ]
        if missing:
            yield (
                f"node group {g.name} is autoscaled but its Auto Scaling group lacks the node-template tags "
                f"{', '.join(missing)}; the Cluster Autoscaler needs them to scale the group from zero",
                g.urn,
            )
        if wrong:
            yield f"node group {g.name}: Auto Scaling group tags disagree with the group: {', '.join(wrong)}", g.urn


# --- prod --------------------------------------------------------------------------------------
