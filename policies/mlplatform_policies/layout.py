"""Rules for the node-group layout the seeds ask for (Iguazio best practices, MLRun's spot contract).

Node groups are aws:eks/nodeGroup:NodeGroup resources: the toolkit builds them
from pulumi_aws (not the pulumi_eks component) so labels, taints, capacity and
scaling are plain inputs, visible offline and in a real preview alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._props import (
    ACCELERATOR_LABEL,
    ASG_TAG,
    AUTOSCALER_PREFIX,
    CORE_TAINT_KEY,
    GPU_AMI_TYPES,
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    LIFECYCLE_LABEL,
    MISSING,
    NODE_GROUP,
    ROLE_LABEL,
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
    repels,
    taints_of,
)
from ._rule import ADVISORY, HIGH, LOW, MANDATORY, MEDIUM, resource_rule, stack_rule

PREEMPTIBLE, NON_PREEMPTIBLE = "preemptible", "non-preemptible"


@dataclass
class Group:
    """The facts the rules read from one node group."""

    name: str
    urn: str
    props: Any
    ignore_changes: list[str]
    parent: str | None

    @property
    def labels(self) -> dict[str, Any]:
        return entries(get(self.props, "labels", default={}))

    @property
    def taints(self) -> list[tuple[str, str, str]]:
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
        lo, hi = self.size("minSize"), self.size("maxSize")
        return lo is not None and hi is not None and lo != hi

    @property
    def is_initial(self) -> bool:
        return self.role == "initial"

    @property
    def declared_gpu(self) -> bool:
        """Marked as a GPU group by any of the toolkit's markers: GPU label, GPU taint or GPU AMI."""
        return (
            self.labels.get(GPU_PRESENT_LABEL) == "true"
            or any(t[0] == GPU_RESOURCE for t in self.taints)
            or get(self.props, "amiType") in GPU_AMI_TYPES
        )

    @property
    def spot(self) -> bool:
        return self.capacity == "SPOT"


def group_of(args: Any) -> Group:
    return Group(args.name, args.urn, args.props, list(args.opts.ignore_changes or []), args.opts.parent)


def groups_in(stack_args: Any) -> list[Group]:
    return [
        Group(r.name, r.urn, r.props, list(r.opts.ignore_changes or []), r.parent.urn if r.parent else None)
        for r in stack_args.resources
        if r.resource_type == NODE_GROUP
    ]


# --- initial group ------------------------------------------------------------------------------


def _initial_group(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
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
        if not any(t[0] == CORE_TAINT_KEY and repels(t) for t in g.taints):
            yield (
                f"node group {g.name} lacks the {CORE_TAINT_KEY} NoSchedule taint; without it user pods "
                "land on the core-services nodes",
                g.urn,
            )


initial_node_group = stack_rule(
    "initial-node-group",
    "The initial node group for core services is static, on-demand, large enough "
    "(>= 1 node in dev, >= 2 in prod) and tainted so that nothing else runs there.",
    level=MANDATORY,
    severity=HIGH,
    check=_initial_group,
    config={"minNodes": ({"type": ["integer", "null"], "minimum": 1}, None)},
    remediation="Keep nodeGroups.initial at capacityType ON_DEMAND with minSize = maxSize = desiredSize "
    "(2 or more in prod) and do not remove the CriticalAddonsOnly taint the toolkit adds.",
    tags=["layout"],
)


# --- labels and taints --------------------------------------------------------------------------


def _lifecycle(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    want = PREEMPTIBLE if g.spot else NON_PREEMPTIBLE
    have = g.labels.get(LIFECYCLE_LABEL)
    if known(have) and have != want:
        shown = "no label" if have is None else f"{LIFECYCLE_LABEL}={fmt(have)}"
        yield (
            f"capacityType {fmt(g.capacity)} needs the node label {LIFECYCLE_LABEL}={want}, found {shown}; "
            "MLRun tells spot from on-demand nodes by this label"
        )


node_lifecycle_label = resource_rule(
    "node-lifecycle-label",
    "Every node group is labelled app.iguazio.com/lifecycle = preemptible (SPOT) or non-preemptible (ON_DEMAND).",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=MEDIUM,
    check=_lifecycle,
    remediation="Do not override the app.iguazio.com/lifecycle label; the toolkit sets it from capacityType.",
    tags=["layout", "mlrun"],
)


def _spot_taint(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.spot and not any(repels(t) for t in g.taints):
        yield (
            "spot node group has no NoSchedule/NoExecute taint; pods that never asked for interruptible "
            "capacity (MLRun's prevent mode) would be scheduled on it"
        )


spot_node_taint = resource_rule(
    "spot-node-taint",
    "Spot node groups carry a NoSchedule or NoExecute taint so that only pods tolerating preemption land there.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=HIGH,
    check=_spot_taint,
    remediation="Keep spotTaint at effect NoSchedule or NoExecute (default app.iguazio.com/lifecycle="
    "preemptible:NoSchedule).",
    tags=["layout", "spot"],
)


# --- GPUs --------------------------------------------------------------------------------------


MIG_CONFIG_LABEL = "nvidia.com/mig.config"
MIG_PREFIX = "nvidia.com/mig-"


def _gpu_dedicated(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if not g.declared_gpu:
        return
    # A MIG group with the mixed strategy advertises nvidia.com/mig-<profile> only, and is tainted with that name:
    # the ExtendedResourceToleration admission plugin tolerates it for pods that request it (layout/sharing.py).
    mig = bool(g.labels.get(MIG_CONFIG_LABEL))
    if not any((t[0] == GPU_RESOURCE or (mig and str(t[0]).startswith(MIG_PREFIX))) and repels(t) for t in g.taints):
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


gpu_node_group_dedicated = resource_rule(
    "gpu-node-group-dedicated",
    "GPU node groups are dedicated: GPU taint, NVIDIA GPU AMI and only NVIDIA GPU instance types.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=HIGH,
    check=_gpu_dedicated,
    remediation="Configure GPUs through nodeGroups.gpu or an additionalNodeGroups entry with gpu: true; the "
    "toolkit adds the nvidia.com/gpu taint and the NVIDIA AMI.",
    tags=["layout", "gpu"],
)


def _accelerator_label(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.declared_gpu and not g.labels.get(ACCELERATOR_LABEL):
        yield (
            f"GPU node group has no {ACCELERATOR_LABEL} label; without it the Cluster Autoscaler does not wait "
            "for a new node's GPUs to be advertised and adds more nodes meanwhile"
        )


gpu_accelerator_label = resource_rule(
    "gpu-accelerator-label",
    f"GPU node groups carry the {ACCELERATOR_LABEL} label the Cluster Autoscaler's AWS provider recognises "
    "GPU nodes by.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=MEDIUM,
    check=_accelerator_label,
    remediation="Configure GPUs through nodeGroups.gpu or an additionalNodeGroups entry with gpu: true; the "
    f"toolkit labels the group {ACCELERATOR_LABEL}=nvidia-<GPU model>.",
    tags=["layout", "gpu", "autoscaling"],
)


def _gpu_types_elsewhere(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.declared_gpu:
        return
    accelerated = [t for t in g.instance_types if isinstance(t, str) and is_accelerated(t)]
    if accelerated:
        yield (
            f"instance types {', '.join(accelerated)} have accelerators but the group is not a GPU group "
            "(no GPU taint, label or AMI): ordinary pods would fill the expensive nodes"
        )


gpu_types_only_in_gpu_groups = resource_rule(
    "gpu-types-only-in-gpu-groups",
    "GPU and other accelerated instance types appear only in GPU node groups.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=HIGH,
    check=_gpu_types_elsewhere,
    remediation="Move accelerated instance types (g*, p*, inf*, trn*) to the gpu group or to an "
    "additionalNodeGroups entry with gpu: true.",
    tags=["layout", "gpu", "cost"],
)


# --- scaling ----------------------------------------------------------------------------------


def _bounds(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    lo, hi, want = g.size("minSize"), g.size("maxSize"), g.size("desiredSize")
    if lo is not None and hi is not None and lo > hi:
        yield f"minSize {fmt(lo)} is greater than maxSize {fmt(hi)}"
    elif None not in (lo, hi, want) and not lo <= want <= hi:
        yield f"desiredSize {fmt(want)} is outside [minSize, maxSize] = [{fmt(lo)}, {fmt(hi)}]"
    if hi is not None and hi < 1:
        yield f"maxSize {fmt(hi)}: a node group needs room for at least one node"


node_group_scaling_bounds = resource_rule(
    "node-group-scaling-bounds",
    "Node group sizes are consistent: minSize <= desiredSize <= maxSize and maxSize >= 1.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=MEDIUM,
    check=_bounds,
    remediation="Set minSize <= desiredSize <= maxSize for the group in the stack file.",
    tags=["layout", "autoscaling"],
)


def _desired_ignored(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if g.autoscaled and not ({"scalingConfig.desiredSize", "scalingConfig"} & set(g.ignore_changes)):
        yield (
            "autoscaled node group does not ignore changes to scalingConfig.desiredSize; every `pulumi up` "
            "would reset the size the Cluster Autoscaler chose"
        )


autoscaled_desired_size_ignored = resource_rule(
    "autoscaled-desired-size-ignored",
    "Autoscaled node groups (minSize != maxSize) leave the desired size to the Cluster Autoscaler.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=MEDIUM,
    check=_desired_ignored,
    remediation="Register the node group with ResourceOptions(ignore_changes=['scalingConfig.desiredSize']) "
    "(components/node_group.py does this for every autoscaled group).",
    tags=["layout", "autoscaling"],
)


def _asg_tags(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
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
        for key, value, effect in g.taints:
            wanted[f"{template}/taint/{key}"] = f"{value}:{effect}"
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


autoscaler_asg_tags = stack_rule(
    "autoscaler-asg-tags",
    "Autoscaled node groups' Auto Scaling groups carry node-template tags for every label, taint and GPU "
    "(EKS copies none of them to the ASG); no Tag resource duplicates the discovery tags EKS puts there itself.",
    level=MANDATORY,
    severity=MEDIUM,
    check=_asg_tags,
    remediation="Create node groups through mlplatform_program.components.node_group.NodeGroup, which adds an "
    "aws.autoscaling.Tag per node-template tag and none for k8s.io/cluster-autoscaler/enabled or /<cluster> "
    "(EKS owns those).",
    tags=["layout", "autoscaling"],
)


# --- prod --------------------------------------------------------------------------------------


def _dev_groups(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if not prod_rules(g.environment):
        return
    forbidden = {str(r).lower() for r in cfg["forbiddenRoles"]}
    # Word match, so jupyter-gpu or gpu-dev count and devops does not.
    words = {w for x in (g.role, g.name) for w in str(x).lower().replace("_", "-").split("-")}
    # The dev layout's own roles, matched whole: a prod group with role jobs is the dev jobs group, whatever
    # its name (a prod group named nightly-jobs with another role is not).
    dev_role = str(g.role).lower() in {str(r).lower() for r in cfg["developmentRoles"]}
    if words & forbidden or dev_role:
        yield (
            f"node group {g.name} (role {g.role}) is for development work; no Jupyter, jobs or dev groups on the "
            "production cluster"
        )


no_dev_groups_in_prod = resource_rule(
    "no-dev-groups-in-prod",
    "The production cluster has no Jupyter, jobs or other development node groups, built in or added.",
    types=[NODE_GROUP],
    level=MANDATORY,
    severity=HIGH,
    check=_dev_groups,
    config={
        "forbiddenRoles": ({"type": "array", "items": {"type": "string"}}, ["jupyter", "dev", "notebook", "notebooks"]),
        # The roles of the dev layout's development groups (mlplatform_core/model/layout/defaults.py).
        "developmentRoles": ({"type": "array", "items": {"type": "string"}}, ["jupyter", "jobs"]),
    },
    remediation="Remove the group from the prod stack; run notebooks on the dev cluster.",
    tags=["layout", "prod"],
)


def _prod_on_demand(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    g = group_of(args)
    if prod_rules(g.environment) and not g.is_initial and g.spot:
        yield (
            f"prod workload group {g.name} runs on SPOT capacity; production jobs are stateful more often "
            "than not and should run on ON_DEMAND nodes"
        )


prod_workload_on_demand = resource_rule(
    "prod-workload-on-demand",
    "Production workload node groups run on on-demand capacity (recommended).",
    types=[NODE_GROUP],
    level=ADVISORY,
    severity=LOW,
    check=_prod_on_demand,
    remediation="Use capacityType ON_DEMAND for prod workload groups; keep spot for dev or clearly interruptible work.",
    tags=["layout", "prod"],
)


POLICIES = [
    initial_node_group,
    node_lifecycle_label,
    spot_node_taint,
    gpu_node_group_dedicated,
    gpu_accelerator_label,
    gpu_types_only_in_gpu_groups,
    node_group_scaling_bounds,
    autoscaled_desired_size_ignored,
    autoscaler_asg_tags,
    no_dev_groups_in_prod,
    prod_workload_on_demand,
]
