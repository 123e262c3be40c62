"""Where a pod can land: the Kubernetes scheduler's filters against a layout's node templates.

Pure Python, no Pulumi import. A node group becomes a node template (the labels
the toolkit sets plus those EKS and the kubelet add, its taints, and the
allocatable resources of each instance type). A PodSpec becomes a Pod model. The
filters follow kube-scheduler (domain-facts section 3):

- TaintToleration: every NoSchedule / NoExecute taint must be tolerated;
  PreferNoSchedule only lowers the group's rank.
- NodeAffinity: every nodeSelector pair must equal a node label; required node
  affinity terms are ORed, a term's expressions ANDed, an empty term matches
  nothing; NotIn and DoesNotExist match nodes that lack the key; Gt/Lt compare
  integers and never match non-integers. Preferred terms only rank.
- NodeResourcesFit: a pod that asks for more cpu, memory, ephemeral-storage,
  hugepages, GPUs (or any extended resource) than an instance type allocates
  cannot land on it; a group fits when one of its instance types fits.
- ExtendedResourceToleration (an EKS admission plugin) adds an `<resource>`
  Exists NoSchedule toleration to pods that request extended resources such as
  nvidia.com/gpu, which is what lets GPU pods past the GPU taint.
- DynamicResources: a pod's ResourceClaims must be satisfiable at once by the
  devices one node publishes, where a DRA driver runs (dra_filter.py); on a
  group with gpuAllocation dra no device plugin advertises nvidia.com/gpu.

Reasons are worded like the scheduler's own event messages, followed by detail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..model import scheduler
from ..model.layout import Layout
from ..model.quantity import format_bytes, format_cpu
from ..model.scheduling import CPU, EKS_NODEGROUP_LABEL, GPU_RESOURCE, MEMORY, ROLE_LABEL, Taint, Toleration
from .admission import Admission
from .claims import PodClaims, unresolved
from .dra_devices import DRA
from .dra_filter import claim_filter, device_plugin_reason, is_device_plugin_resource
from .pods import Pod, SelectorTerm, is_extended_resource
from .reasons import Reason
from .templates import EPHEMERAL_STORAGE, PER_NODE_LABELS, NodeTemplate, NodeVariant, node_templates
from .validation import HUGEPAGES_PREFIX

_NATIVE_PREFIX = "kubernetes.io/"


def untolerated_taints(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> list[Taint]:
    """The NoSchedule / NoExecute taints no toleration tolerates (what the TaintToleration filter refuses)."""
    tols = tuple(tolerations)
    return [t for t in taints if t.repels and not any(tol.tolerates(t) for tol in tols)]


def _taint_reason(t: Taint) -> Reason:
    return Reason(
        "taint",
        f"node(s) had untolerated taint {{{t.key}: {t.value}}} (effect {t.effect})",
        f"taint {t.key.rsplit('/', 1)[-1]}",
    )


def _node_selector_miss(pod: Pod, labels: Mapping[str, str], notes: list[str]) -> str | None:
    for key, want in pod.node_selector.items():
        if key in PER_NODE_LABELS:
            notes.append(f"nodeSelector {key}={want} depends on the node; assumed to match some node")
        elif key not in labels:
            return f"nodeSelector needs {key}={want}, the nodes have no {key} label"
        elif labels[key] != want:
            return f"nodeSelector needs {key}={want}, the nodes have {key}={labels[key]}"
    return None


def _term_miss(term: SelectorTerm, labels: Mapping[str, str], notes: list[str]) -> str | None:
    """Why one nodeSelectorTerm's expressions refuse `labels` (None when they all match)."""
    for req in term.expressions:
        if req.key in PER_NODE_LABELS:  # every node has the label, with a value of its own
            if req.operator == "DoesNotExist":
                return f"{req}, every node has a {req.key} label"
            notes.append(f"{req} depends on the node; assumed to match some node")
            continue
        if not req.matches(labels):
            have = f"{req.key}={labels[req.key]}" if req.key in labels else f"no {req.key} label"
            return f"{req}, the nodes have {have}"
    return None


def _affinity_miss(terms: tuple[SelectorTerm, ...], labels: Mapping[str, str], notes: list[str]) -> str | None:
    """Why the required node affinity's terms (ORed) refuse `labels` (None when one matches)."""
    failures = []
    for i, term in enumerate(terms):
        if term.empty:
            failures.append(
                f"term {i + 1} is empty and matches nothing"
                if len(terms) > 1
                else "its only term is empty and matches nothing"
            )
            continue
        missed = _term_miss(term, labels, notes)
        if missed is None:
            return None
        failures.append(f"term {i + 1} needs {missed}" if len(terms) > 1 else f"needs {missed}")
    if not failures:
        return "required node affinity has no nodeSelectorTerms"
    if len(failures) == 1:
        return f"required node affinity {failures[0]}"
    return "no required node affinity term matches: " + "; ".join(failures)


def _selector_mismatch(pod: Pod, labels: Mapping[str, str]) -> tuple[str | None, list[str]]:
    """Why the nodeSelector / required affinity refuse `labels` (None when they match), and notes."""
    notes: list[str] = []
    keys = set(pod.node_selector) | {r.key for t in pod.required_terms or () for r in t.expressions}
    if EKS_NODEGROUP_LABEL in keys:
        notes.append(
            f"{EKS_NODEGROUP_LABEL} is taken to be the group name, but Pulumi names EKS node groups "
            f"<group>-<suffix>; select {ROLE_LABEL} instead"
        )
    missed = _node_selector_miss(pod, labels, notes)
    if missed is None and pod.required_terms is not None:
        missed = _affinity_miss(pod.required_terms, labels, notes)
    return missed, notes


def _shortfalls(pod: Pod, alloc: Mapping[str, int]) -> list[tuple[str, int, int]]:
    """(resource, requested, allocatable) for every resource the instance type cannot provide.

    Every resource the scheduler's NodeResourcesFit counts (v1.20 noderesources/fit.go fitsRequest): cpu,
    memory, ephemeral-storage and every scalar resource (extended resources, hugepages-*); a resource the
    node does not advertise counts as 0. Requests of 0 are skipped, as the scheduler skips them.
    """
    out = []
    for rname, amount in sorted(pod.requests.items()):
        if amount == 0:
            continue
        if (
            rname in (CPU, MEMORY, EPHEMERAL_STORAGE, GPU_RESOURCE)
            or rname.startswith(HUGEPAGES_PREFIX)
            or (is_extended_resource(rname))
        ):
            have = alloc.get(rname, 0)
            if amount > have:
                out.append((rname, amount, have))
    return out


def _fmt(rname: str, amount: int) -> str:
    if rname == CPU:
        return format_cpu(amount)
    if rname in (MEMORY, EPHEMERAL_STORAGE) or rname.startswith(HUGEPAGES_PREFIX):
        return format_bytes(amount) if amount else "0"
    return str(amount)


@dataclass(frozen=True)
class GroupPlacement:
    """The filters' verdict for one pod on one node group."""

    group: str
    schedulable: bool
    reasons: tuple[Reason, ...] = ()
    instance_types: tuple[str, ...] = ()  # the group's instance types the pod can land on
    score: int = 0  # sum of the weights of matching preferred node affinity terms
    prefer_not: tuple[Taint, ...] = ()  # untolerated PreferNoSchedule taints: lower rank, still schedulable
    notes: tuple[str, ...] = ()
    fit: Fraction = Fraction(0)  # NodeResourcesFit's score on the group's best node (model/scheduler.py)

    @property
    def short(self) -> str:
        return "; ".join(dict.fromkeys(r.short for r in self.reasons))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.group,
            "schedulable": self.schedulable,
            "reasons": [r.message for r in self.reasons],
        }
        if self.schedulable:
            out["instanceTypes"] = list(self.instance_types)
            out["preferenceScore"] = self.score
            if self.prefer_not:
                out["untoleratedPreferNoSchedule"] = [str(t) for t in self.prefer_not]
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class PodPlacement:
    pod: Pod
    groups: tuple[GroupPlacement, ...]  # empty when the API server rejects the pod
    rejected: tuple[str, ...] = ()  # why the API server refuses the pod (admission.py); it never reaches a node
    notes: tuple[str, ...] = ()  # what admission changed or assumed (namespace, LimitRange defaults)
    namespace: str | None = None
    replicas: int | None = None  # an operator's role: how many pods of this spec run at once

    @property
    def reachable(self) -> tuple[str, ...]:
        return tuple(g.group for g in self.groups if g.schedulable)

    @property
    def ranking(self) -> tuple[str, ...]:
        """Schedulable groups, preferred first: higher affinity score, then fewer PreferNoSchedule taints, then the
        cluster scheduler's resource-fit score (model/scheduler.py)."""
        ok = [g for g in self.groups if g.schedulable]
        return tuple(g.group for g in sorted(ok, key=lambda g: (-g.score, len(g.prefer_not), -g.fit)))

    def group(self, name: str) -> GroupPlacement:
        return next(g for g in self.groups if g.group == name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.pod.name, "groups": [g.to_dict() for g in self.groups]}
        out["ranking"] = list(self.ranking)
        if self.namespace is not None:
            out["namespace"] = self.namespace
        if self.replicas is not None:
            out["replicas"] = self.replicas
        if self.rejected:
            out["rejected"] = list(self.rejected)
        if self.notes:
            out["notes"] = list(self.notes)
        if self.pod.warnings:
            out["warnings"] = list(self.pod.warnings)
        return out


def preference_score(pod: Pod, labels: Mapping[str, str]) -> int:
    """NodeAffinity scoring: the summed weights of the preferred terms the labels match (empty terms match none)."""
    return sum(
        p.weight for p in pod.preferred_terms if not p.term.empty and all(r.matches(labels) for r in p.term.expressions)
    )


def _affinity(pod: Pod, template: NodeTemplate, notes: list[str]) -> tuple[list[NodeVariant], list[Reason]]:
    """The variants the nodeSelector and required node affinity allow, and why none does."""
    matched: list[NodeVariant] = []
    mismatch = None
    for v in template.variants:
        why, vnotes = _selector_mismatch(pod, v.labels)
        notes.extend(vnotes)
        if why is None:
            matched.append(v)
        elif mismatch is None:
            mismatch = why
    if matched:
        return matched, []
    short = "selector" if mismatch and mismatch.startswith("nodeSelector") else "affinity"
    return [], [Reason("affinity", f"node(s) didn't match Pod's node affinity/selector: {mismatch}", short)]


def _shortfall_reason(template: NodeTemplate, instance_type: str, rname: str, amount: int, have: int) -> Reason:
    if have == 0 and template.gpu_allocation == DRA and is_device_plugin_resource(rname):
        return device_plugin_reason(template, rname, amount)
    return Reason(
        "resources",
        f"Insufficient {rname}: the pod requests {_fmt(rname, amount)}, {instance_type} allocates {_fmt(rname, have)}",
        f"insufficient {rname.rsplit('/', 1)[-1]}",
    )


def _resource_fit(
    pod: Pod, template: NodeTemplate, candidates: list[NodeVariant], notes: list[str]
) -> tuple[list[NodeVariant], list[Reason]]:
    """The candidates whose allocatable fits the pod's requests, and why none does (against the closest)."""
    fits = [v for v in candidates if v.allocatable is None or not _shortfalls(pod, v.allocatable)]
    unknown = [v.instance_type for v in candidates if v.allocatable is None]
    if unknown:
        notes.append(
            f"instance type(s) {', '.join(unknown)} described only by network limits in the instance catalog; "
            "resource fit not checked for them"
        )
    known = [v for v in candidates if v.allocatable is not None]
    if fits or not known:
        return fits, []
    # Report against the type that comes closest: fewest shortfalls, then the largest.
    best = min(known, key=lambda v: (len(_shortfalls(pod, v.allocatable)), -v.allocatable[CPU]))
    return [], [_shortfall_reason(template, best.instance_type, *s) for s in _shortfalls(pod, best.allocatable)]


def place_on(pod: Pod, template: NodeTemplate, claims: PodClaims | None = None) -> GroupPlacement:
    """Run the filters for `pod` against every instance type of a group; the group fits if one type does.
    `claims`: the pod's claims as its namespace resolves them (claims.py), when it has any."""
    reasons: list[Reason] = [_taint_reason(t) for t in untolerated_taints(template.taints, pod.effective_tolerations)]
    notes: list[str] = []
    matched, why = _affinity(pod, template, notes)
    reasons += why
    # Resource fit over the variants the selectors allow (all of them when none does, to report every reason).
    candidates = matched or list(template.variants)
    fits, why = _resource_fit(pod, template, candidates, notes)
    reasons += why
    # By identity: comparing variants field by field is quadratic in a pool's hundreds of types.
    matched_ids = {id(v) for v in matched}
    landing = [v for v in fits if id(v) in matched_ids]
    if pod.resource_claims:
        allocated, why, claim_notes = claim_filter(template, landing or candidates, claims or unresolved(pod))
        reasons += why
        notes += claim_notes
        landing = [v for v in landing if any(v is a for a in allocated)]
    schedulable = not reasons
    score, prefer_not = 0, ()
    if schedulable:
        score = max(preference_score(pod, v.labels) for v in landing)
        prefer_not = tuple(
            t
            for t in template.taints
            if t.effect == "PreferNoSchedule" and not any(tol.tolerates(t) for tol in pod.effective_tolerations)
        )
    fit = scheduler.best_fit(pod.requests, [v.allocatable for v in landing]) if schedulable else Fraction(0)
    return GroupPlacement(
        group=template.group,
        schedulable=schedulable,
        reasons=tuple(reasons),
        instance_types=tuple(v.instance_type for v in landing) if schedulable else (),
        score=score,
        prefer_not=prefer_not,
        notes=tuple(dict.fromkeys(notes)),
        fit=fit,
    )


def place(
    pod: Pod, layout_or_templates: Layout | Iterable[NodeTemplate], claims: PodClaims | None = None
) -> PodPlacement:
    """The verdict for `pod` on every node group of a layout (or on the given templates); `claims`: its claims
    resolved (claims.py), without which a pod with claims lands nowhere (what it asks is unknown)."""
    if pod.invalid:  # the API server's validation refuses it: it never reaches the scheduler
        return PodPlacement(pod, (), tuple(f"invalid: {r}" for r in pod.invalid))
    templates = (
        node_templates(layout_or_templates) if isinstance(layout_or_templates, Layout) else tuple(layout_or_templates)
    )
    return PodPlacement(pod, tuple(place_on(pod, t, claims) for t in templates))


def place_admitted(admission: Admission, layout_or_templates: Layout | Iterable[NodeTemplate]) -> PodPlacement:
    """The verdict for a pod the API server has judged: nowhere when it rejects the pod, else `place`."""
    if admission.rejected:
        return PodPlacement(admission.pod, (), admission.rejected, admission.notes, admission.namespace)
    placed = place(admission.pod, layout_or_templates, admission.claims)
    return PodPlacement(placed.pod, placed.groups, (), admission.notes, admission.namespace)


def place_spec(spec: Mapping[str, Any], layout: Layout, name: str = "pod") -> PodPlacement:
    return place(Pod.from_spec(spec, name), layout)
