"""Rules for Karpenter: NodePools keep the layout's promises, EC2NodeClasses the node security baseline.

NodePools and EC2NodeClasses are Kubernetes custom resources (pulumi_kubernetes
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

from ._props import (
    ACCELERATED_TYPES,
    CORE_TAINT_KEY,
    EKS_CLUSTER,
    GPU_PRESENT_LABEL,
    GPU_RESOURCE,
    IAM_POLICY,
    IAM_ROLE,
    IAM_ROLE_POLICY,
    LIFECYCLE_LABEL,
    MISSING,
    NODE_GROUP,
    NVIDIA_GPU_TYPES,
    ROLE_LABEL,
    UNKNOWN,
    action_matches,
    as_list,
    entries,
    environment,
    fmt,
    get,
    items,
    known,
    number,
    policy_document,
    prod_rules,
    quantity,
    repels,
    statements,
    truthy,
)
from ._rule import CRITICAL, HIGH, MANDATORY, MEDIUM, resource_rule, stack_rule

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family"
GPU_MANUFACTURER = "karpenter.k8s.aws/instance-gpu-manufacturer"
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
CAPACITY_TYPES = frozenset({"spot", "on-demand", "reserved"})
PREEMPTIBLE, NON_PREEMPTIBLE = "preemptible", "non-preemptible"


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
    def taints(self) -> list[tuple[str, str, str]]:
        out = []
        for t in items(get(self.props, "spec", "template", "spec", "taints", default=[])):
            key, value, effect = get(t, "key"), get(t, "value", default=""), get(t, "effect")
            out.append(tuple(x if isinstance(x, str) else "" for x in (key, value, effect)))
        return out  # type: ignore[return-value]

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
            or any(t[0] == GPU_RESOURCE for t in self.taints)
            or self.requires(GPU_MANUFACTURER)
            or self.requires(GPU_COUNT)
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


def _spot_taint(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if p.spot and not any(repels(t) for t in p.taints):
        what = "is a spot pool" if p.capacity_types == {"spot"} else "may launch spot nodes"
        yield (
            f"NodePool {p.name} {what} but has no NoSchedule/NoExecute taint; pods that never asked for "
            "interruptible capacity (MLRun's prevent mode) would be scheduled on it"
        )


karpenter_spot_pool_taint = resource_rule(
    "karpenter-spot-pool-taint",
    "Karpenter NodePools that may launch spot nodes (karpenter.sh/capacity-type allows spot, or is left open) "
    "carry a NoSchedule or NoExecute taint.",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=HIGH,
    check=_spot_taint,
    remediation="Keep spotTaint at effect NoSchedule or NoExecute; the toolkit puts it on every spot NodePool. "
    "A hand-written pool should constrain karpenter.sh/capacity-type and taint its spot nodes.",
    tags=["karpenter", "spot"],
)


def _lifecycle(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
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


karpenter_pool_lifecycle_label = resource_rule(
    "karpenter-pool-lifecycle-label",
    "Karpenter NodePools label their nodes app.iguazio.com/lifecycle = preemptible (spot) or non-preemptible, "
    "and do not mix spot with on-demand nodes.",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=MEDIUM,
    check=_lifecycle,
    remediation="Do not override app.iguazio.com/lifecycle; give each pool one capacity type (the toolkit does).",
    tags=["karpenter", "mlrun"],
)


# --- GPUs ---------------------------------------------------------------------------------------


def _gpu_only(p: Pool) -> tuple[bool, list[str]]:
    """Whether the pool's requirements limit it to NVIDIA GPU types, and the non-GPU choices they allow."""
    types, families = p.allowed(INSTANCE_TYPE), p.allowed(INSTANCE_FAMILY)
    others = sorted(t for t in types or () if t not in NVIDIA_GPU_TYPES)
    others += sorted(f for f in families or () if f not in NVIDIA_GPU_FAMILIES)
    maker = p.allowed(GPU_MANUFACTURER)
    limited = (
        (types is not None and bool(types) and not [t for t in types if t not in NVIDIA_GPU_TYPES])
        or (families is not None and bool(families) and not [f for f in families if f not in NVIDIA_GPU_FAMILIES])
        or (maker is not None and bool(maker) and maker <= {"nvidia"})
    )
    return bool(limited), others


def _gpu_dedicated(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if not p.declared_gpu:
        return
    if not any(t[0] == GPU_RESOURCE and repels(t) for t in p.taints):
        yield f"GPU NodePool {p.name} lacks the {GPU_RESOURCE} NoSchedule taint; pods that need no GPU would fill it"
    limited, others = _gpu_only(p)
    if others:
        yield f"GPU NodePool {p.name} allows instance types or families without an NVIDIA GPU: {', '.join(others)}"
    elif not limited:
        yield (
            f"GPU NodePool {p.name} does not limit itself to NVIDIA GPU types (no instance-type, instance-family or "
            f"{GPU_MANUFACTURER} requirement does); Karpenter could launch any type for it"
        )


karpenter_gpu_pool_dedicated = resource_rule(
    "karpenter-gpu-pool-dedicated",
    "GPU NodePools are dedicated: the nvidia.com/gpu taint, and requirements that allow NVIDIA GPU types only.",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=HIGH,
    check=_gpu_dedicated,
    remediation="Configure GPUs through nodeGroups.gpu or an additional group with gpu: true; the toolkit taints "
    "the pool and requires instance-gpu-manufacturer nvidia and NVIDIA GPU types.",
    tags=["karpenter", "gpu"],
)


def _gpu_types_elsewhere(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    if p.declared_gpu:
        return
    found = sorted(t for t in p.allowed(INSTANCE_TYPE) or () if t in ACCELERATED_TYPES)
    found += sorted(f for f in p.allowed(INSTANCE_FAMILY) or () if f in ACCELERATED_FAMILIES)
    if found:
        yield (
            f"NodePool {p.name} allows accelerated types or families {', '.join(found)} but is not a GPU pool (no GPU "
            "taint, label or requirement): ordinary pods would fill the expensive nodes"
        )


karpenter_gpu_types_only_in_gpu_pools = resource_rule(
    "karpenter-gpu-types-only-in-gpu-pools",
    "GPU and other accelerated instance types or families appear only in GPU NodePools.",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=HIGH,
    check=_gpu_types_elsewhere,
    remediation="Move accelerated types and families (g*, p*, inf*, trn*) to the gpu group or an additional group "
    "with gpu: true.",
    tags=["karpenter", "gpu", "cost"],
)


# --- limits and disruption ------------------------------------------------------------------------


def _limits(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    limits = get(p.props, "spec", "limits", default={})
    if limits is UNKNOWN:
        return
    have = entries(limits)
    wanted = ["cpu", "memory"] + ([GPU_RESOURCE] if p.declared_gpu else [])
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


karpenter_pool_limits = resource_rule(
    "karpenter-pool-limits",
    "Karpenter NodePools set cpu and memory limits (and nvidia.com/gpu on GPU pools).",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=HIGH,
    check=_limits,
    remediation="Keep the limits the toolkit derives from the group's maxSize, or set karpenter.nodePools.<g>.limits.",
    tags=["karpenter", "cost"],
)


def _consolidation(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    p = pool_of(args)
    runs_jobs = not p.spot and not any(repels(t) for t in p.taints)
    policy = p.consolidation
    if (p.declared_gpu or runs_jobs) and known(policy) and policy != "WhenEmpty":
        what = "GPU" if p.declared_gpu else "job (on-demand, untainted: where MLRun's prevent mode sends jobs)"
        shown = fmt(policy) if policy is not MISSING else "unset (WhenEmptyOrUnderutilized)"
        yield (
            f"{what} NodePool {p.name} has consolidationPolicy {shown}; Karpenter would evict running jobs to "
            "pack nodes tighter, and MLRun does not restart a job whose node goes away"
        )


karpenter_job_pool_consolidation = resource_rule(
    "karpenter-job-pool-consolidation",
    "NodePools that run MLRun jobs (on-demand, untainted) or GPU work consolidate only when empty (WhenEmpty).",
    types=[NODE_POOL],
    level=MANDATORY,
    severity=HIGH,
    check=_consolidation,
    remediation="Leave karpenter.nodePools.<g>.consolidationPolicy unset for job and GPU pools (the toolkit uses "
    "WhenEmpty) or set it to WhenEmpty.",
    tags=["karpenter", "mlrun", "disruption"],
)


# --- the initial group ----------------------------------------------------------------------------


def _initial(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    pools = pools_in(args)
    for p in pools:
        if p.role == "initial" or any(t[0] == CORE_TAINT_KEY for t in p.taints):
            yield (
                f"NodePool {p.name} is for the initial role (core services); that group must stay a static managed "
                "node group, where the Karpenter controller runs",
                p.urn,
            )
    # Node groups are made with the cluster: a stack without the cluster (the Kubernetes layer deployed on its
    # own, kubernetesLayer: separate) cannot see them, and the cluster's stack checks them.
    has_cluster = any(r.resource_type == EKS_CLUSTER for r in args.resources)
    if (
        pools
        and has_cluster
        and not any(
            get(r.props, "labels", ROLE_LABEL) == "initial" for r in args.resources if r.resource_type == NODE_GROUP
        )
    ):
        yield (
            "the stack has Karpenter NodePools but no managed node group labelled "
            f"{ROLE_LABEL}=initial; the Karpenter controller needs nodes Karpenter does not manage",
            None,
        )


karpenter_initial_group = stack_rule(
    "karpenter-initial-group",
    "No Karpenter NodePool serves the initial role; a stack with NodePools keeps a managed initial node group.",
    level=MANDATORY,
    severity=HIGH,
    check=_initial,
    remediation="Keep nodeGroups.initial enabled; the toolkit never makes a NodePool of it.",
    tags=["karpenter", "layout"],
)


# --- EC2NodeClass ---------------------------------------------------------------------------------


def _imdsv2(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    # Left out, metadataOptions and each of its fields default to IMDSv2 with hop limit 1 (the CRD's defaults).
    tokens = get(args.props, "spec", "metadataOptions", "httpTokens")
    if known(tokens) and tokens is not MISSING and tokens != "required":
        yield (
            f"EC2NodeClass {args.name}: metadataOptions.httpTokens is {fmt(tokens)}; IMDSv1 lets any process (or "
            "SSRF) on the node read the node role's credentials"
        )
    hops = number(get(args.props, "spec", "metadataOptions", "httpPutResponseHopLimit"))
    if hops is not None and hops > 2:
        yield f"EC2NodeClass {args.name}: httpPutResponseHopLimit is {fmt(hops)}; more than 2 lets pods reach IMDS"
    elif hops is not None and hops > 1 and prod_rules(environment(get(args.props, "spec"))):
        # As for node groups' launch templates (security.py): above 1 a pod can fetch an IMDSv2 token.
        yield (
            f"EC2NodeClass {args.name}: httpPutResponseHopLimit is {fmt(hops)} on a prod node; above 1 pods can "
            "fetch IMDS tokens and borrow the node role's credentials (use IRSA for pods that need AWS)"
        )


karpenter_node_class_imdsv2 = resource_rule(
    "karpenter-node-class-imdsv2",
    "EC2NodeClasses require IMDSv2 (session tokens) with a hop limit of at most 2, and 1 in prod.",
    types=[EC2_NODE_CLASS],
    level=MANDATORY,
    severity=HIGH,
    check=_imdsv2,
    remediation="Set metadataOptions httpTokens: required and httpPutResponseHopLimit: 1 (the toolkit does).",
    tags=["karpenter", "security", "checkov:CKV_AWS_79"],
)


def _encrypted(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    # Left out, blockDeviceMappings default to encrypted gp3 volumes (provider amifamily/resolver.go DefaultEBS).
    for m in items(get(args.props, "spec", "blockDeviceMappings", default=[])):
        ebs = get(m, "ebs")
        if not known(ebs) or ebs is None:
            continue
        enc = get(ebs, "encrypted")
        if known(enc) and not truthy(enc) and get(ebs, "snapshotID") in (MISSING, None):
            shown = fmt(enc) if enc is not MISSING else "unset"
            yield f"EC2NodeClass {args.name}: volume {fmt(get(m, 'deviceName'))} is not encrypted (encrypted={shown})"


karpenter_node_class_encrypted_volumes = resource_rule(
    "karpenter-node-class-encrypted-volumes",
    "EC2NodeClasses map only encrypted EBS volumes.",
    types=[EC2_NODE_CLASS],
    level=MANDATORY,
    severity=HIGH,
    check=_encrypted,
    remediation="Set ebs.encrypted: true on every blockDeviceMapping (the toolkit maps an encrypted gp3 root volume).",
    tags=["karpenter", "security", "checkov:CKV_AWS_8"],
)


# --- the controller's IAM -------------------------------------------------------------------------

DESTRUCTIVE = ("ec2:TerminateInstances", "ec2:DeleteLaunchTemplate")
CLUSTER_TAG = "kubernetes.io/cluster/"


def _tag_scoped(st: dict) -> bool:
    for conditions in (st.get("Condition") or {}).values():
        if isinstance(conditions, dict) and any(f"ResourceTag/{CLUSTER_TAG}" in k for k in conditions):
            return True
    return False


def _controller_scope(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    docs: list[tuple[Any, Any]] = []
    for r in args.resources:
        if r.resource_type in (IAM_POLICY, IAM_ROLE_POLICY):
            docs.append((r, get(r.props, "policy")))
        elif r.resource_type == IAM_ROLE:
            docs.extend((r, get(p, "policy")) for p in items(get(r.props, "inlinePolicies", default=[])))
    for r, raw in docs:
        doc = policy_document(raw)
        if doc is None:
            continue
        for st in statements(doc):
            if st.get("Effect") != "Allow":
                continue
            actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
            granted = [s for s in DESTRUCTIVE if any(action_matches(a, s) for a in actions)]
            if granted and not _tag_scoped(st):
                yield (
                    f"{r.name} allows {', '.join(granted)} on every instance in the account; scope it with a "
                    f"Condition on aws:ResourceTag/{CLUSTER_TAG}<cluster> = owned (Karpenter's reference policy)",
                    r.urn,
                )
            if any(action_matches(a, "iam:PassRole") for a in actions) and "*" in as_list(st.get("Resource")):
                yield f"{r.name} allows iam:PassRole on every role; name the node role it may pass", r.urn


karpenter_controller_iam_scoped = stack_rule(
    "karpenter-controller-iam-scoped",
    "Instance termination and launch-template deletion are allowed only on resources tagged for this cluster, "
    "and iam:PassRole only for named roles (Karpenter's reference policy).",
    level=MANDATORY,
    severity=CRITICAL,
    check=_controller_scope,
    remediation="Use the controller policies of mlplatform_core/model/addons/karpenter.py (Karpenter's reference "
    "policies, generated from the release).",
    tags=["karpenter", "security", "iam"],
)


POLICIES = [
    karpenter_spot_pool_taint,
    karpenter_pool_lifecycle_label,
    karpenter_gpu_pool_dedicated,
    karpenter_gpu_types_only_in_gpu_pools,
    karpenter_pool_limits,
    karpenter_job_pool_consolidation,
    karpenter_initial_group,
    karpenter_node_class_imdsv2,
    karpenter_node_class_encrypted_volumes,
    karpenter_controller_iam_scoped,
]
