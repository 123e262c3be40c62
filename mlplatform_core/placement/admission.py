"""What the API server does to a pod before the scheduler sees it: defaults, admission and validation.

Pure Python. A pod the API server refuses is never scheduled, so `place` must not call it schedulable;
a pod it admits carries the requests and limits the namespace's LimitRange filled in, so those, not
the manifest's, are what the scheduler fits. The steps and their order follow kube-apiserver v1.20
(the version the differential test runs):

1. defaulting (pkg/apis/core/v1/defaults.go SetDefaults_Pod): a missing request takes its limit;
2. mutating admission, in plugin order (pkg/kubeapiserver/options/plugins.go), stopping at the first
   refusal: LimitRanger fills missing requests from defaultRequest and missing limits from default
   (plugin/pkg/admission/limitranger/admission.go mergeContainerResources); Priority refuses a
   priorityClassName no PriorityClass has (plugin/pkg/admission/priority); RuntimeClass refuses a
   runtimeClassName no RuntimeClass has (plugin/pkg/admission/runtimeclass);
3. validation, every error at once (pkg/apis/core/validation/validation.go ValidateResourceRequirements,
   ValidateTolerations, node affinity): requests above limits, extended resources and hugepages whose
   request differs from their limit or has none, unknown resource names, fractional extended resources,
   malformed tolerations and affinity;
4. validating admission, stopping at the first refusal: LimitRanger's min, max and maxLimitRequestRatio
   per container; RuntimeClass refuses `overhead` without a RuntimeClass that defines it.

The cluster's objects are the stack's own (model/workloads.py manifests): its namespaces with their
LimitRanges and its PriorityClasses, plus what every cluster has (the system- priority classes, the
Kubernetes namespaces). Assumptions, each said in a note: a namespace the stack does not create exists
without a LimitRange (a Helm chart may create it); ResourceQuotas are not judged (they count what
already runs, and `place` judges one pod on empty nodes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ..model.quantity import QuantityError, parse_quantity
from .claims import PodClaims
from .pods import Pod
from .validation import requirements_problems

DEFAULT_NAMESPACE = "default"
# Namespaces and priority classes every cluster has: the API server creates them itself
# (pkg/apis/scheduling/types.go SystemPriorityClasses; pkg/controlplane bootstrap namespaces).
KUBERNETES_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
# A Namespace's name is a DNS-1123 label (apimachinery ValidateNamespaceName, IsDNS1123Label): no namespace
# with another name can exist, so the API server answers a pod created into one with NotFound.
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
SYSTEM_PRIORITY_CLASSES = MappingProxyType(
    {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}
)
_FIELDS = ("min", "max", "default", "defaultRequest", "maxLimitRequestRatio")


@dataclass(frozen=True)
class ClusterObjects:
    """The objects admission reads: namespaces, their LimitRange items (defaulted), priority and runtime classes."""

    namespaces: frozenset[str] = frozenset()
    limit_ranges: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    priority_classes: Mapping[str, int] = field(default_factory=dict)
    runtime_classes: frozenset[str] = frozenset()

    @classmethod
    def from_manifests(cls, objects: Iterable[Mapping[str, Any]]) -> ClusterObjects:
        """From Kubernetes objects as dicts, e.g. model.workloads.manifests(workloads)."""
        namespaces: set[str] = set()
        limits: dict[str, list[Mapping[str, Any]]] = {}
        classes: dict[str, int] = dict(SYSTEM_PRIORITY_CLASSES)
        runtime: set[str] = set()
        for obj in objects:
            kind, meta = obj.get("kind"), obj.get("metadata") or {}
            if kind == "Namespace":
                namespaces.add(meta["name"])
            elif kind == "LimitRange":
                at = meta.get("name") or "(unnamed)"
                items = [_defaulted_item(i, at, n) for n, i in enumerate((obj.get("spec") or {}).get("limits") or [])]
                limits.setdefault(meta.get("namespace") or DEFAULT_NAMESPACE, []).extend(items)
            elif kind == "PriorityClass":
                classes[meta["name"]] = int(obj.get("value", 0))
            elif kind == "RuntimeClass":
                runtime.add(meta["name"])
        return cls(
            frozenset(namespaces),
            MappingProxyType({ns: tuple(items) for ns, items in limits.items()}),
            MappingProxyType(classes),
            frozenset(runtime),
        )


def _defaulted_item(item: Mapping[str, Any], limit_range: str = "", index: int = 0) -> Mapping[str, Any]:
    """A LimitRange item as the API server stores it (SetDefaults_LimitRangeItem): for Container items,
    default takes max where unset, defaultRequest takes default, then min, where unset. `source` names where
    it is (LimitRange name, item index), for refusals to say which cap refused a pod."""
    out: dict[str, Any] = {k: dict(item.get(k) or {}) for k in _FIELDS}
    out["type"] = item.get("type")
    out["source"] = (limit_range, index)
    if out["type"] == "Container":
        for key, value in out["max"].items():
            out["default"].setdefault(key, value)
        for key, value in out["default"].items():
            out["defaultRequest"].setdefault(key, value)
        for key, value in out["min"].items():
            out["defaultRequest"].setdefault(key, value)
    return MappingProxyType(out)


@dataclass(frozen=True)
class Admission:
    """A pod as the API server would store it, or why it refuses it."""

    name: str
    namespace: str
    spec: Mapping[str, Any]  # the PodSpec after defaulting and admission (the manifest's, when rejected)
    pod: Pod  # the model of that spec
    rejected: tuple[str, ...] = ()  # the API server's reasons; empty when the pod is admitted
    notes: tuple[str, ...] = ()  # what admission changed or assumed
    claims: PodClaims | None = None  # the pod's ResourceClaims resolved in its namespace (manifests.py), if any

    @property
    def admitted(self) -> bool:
        return not self.rejected


def _q(value: Any) -> Fraction | None:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _containers(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for kind in ("containers", "initContainers"):
        items = spec.get(kind)
        if isinstance(items, list):
            out.extend((f"spec.{kind}[{i}]", c) for i, c in enumerate(items) if isinstance(c, dict))
    return out


def _copy_for_admission(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `spec` admission may fill in: new containers and resources dicts, the rest shared (it is only
    read). A deep copy of every spec cost more than placing it (`place` with 10,000 pods)."""
    admitted = dict(spec)
    for kind in ("containers", "initContainers"):
        items = admitted.get(kind)
        if isinstance(items, list):
            copied = []
            for c in items:
                if isinstance(c, dict):
                    c = dict(c)
                    res = c.get("resources")
                    if isinstance(res, dict):
                        c["resources"] = {k: dict(v) if isinstance(v, dict) else v for k, v in res.items()}
                copied.append(c)
            admitted[kind] = copied
    return admitted


def _resources(container: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The container's requests and limits dicts (created in place so admission can fill them)."""
    res = container.get("resources")
    if not isinstance(res, dict):
        res = container["resources"] = {}
    for key in ("requests", "limits"):
        if not isinstance(res.get(key), dict):
            res[key] = {}
    return res["requests"], res["limits"]


def _cap(source: tuple[str, int], bound: str, resource: str) -> str:
    """Not in the API server's message: which object and field refused the pod, to know what to edit."""
    name, index = source
    return f" (LimitRange {name}, spec.limits[{index}].{bound}.{resource})" if name else ""


def _limit_range_errors(items: Iterable[Mapping[str, Any]], containers: list[tuple[str, dict]]) -> list[str]:
    """LimitRanger's validation: min, max and maxLimitRequestRatio of every Container item, per container."""
    errs: list[str] = []
    for item in items:
        if item["type"] != "Container":
            continue
        source = item.get("source", ("", 0))
        for path, c in containers:
            requests, limits = _resources(c)
            for name, bound in item["min"].items():
                enforced, req, lim = _q(bound), _q(requests.get(name)), _q(limits.get(name))
                rule = f"{path}: minimum {name} usage per Container is {bound}"
                if name not in requests:
                    errs.append(f"{rule}.  No request is specified")
                elif req is not None and enforced is not None and req < enforced:
                    errs.append(f"{rule}, but request is {requests[name]}{_cap(source, 'min', name)}")
                elif lim is not None and enforced is not None and lim < enforced:
                    errs.append(f"{rule}, but limit is {limits[name]}{_cap(source, 'min', name)}")
            for name, bound in item["max"].items():
                enforced, req, lim = _q(bound), _q(requests.get(name)), _q(limits.get(name))
                rule = f"{path}: maximum {name} usage per Container is {bound}"
                if name not in limits:
                    errs.append(f"{rule}.  No limit is specified")
                elif lim is not None and enforced is not None and lim > enforced:
                    errs.append(f"{rule}, but limit is {limits[name]}{_cap(source, 'max', name)}")
                elif req is not None and enforced is not None and req > enforced:
                    errs.append(f"{rule}, but request is {requests[name]}{_cap(source, 'max', name)}")
            for name, ratio in item["maxLimitRequestRatio"].items():
                req, lim, most = _q(requests.get(name)), _q(limits.get(name)), _q(ratio)
                if not req or not lim or most is None:
                    errs.append(
                        f"{path}: {name} max limit to request ratio per Container is {ratio}, "
                        "but no request or no limit is specified or one is 0"
                        + _cap(source, "maxLimitRequestRatio", name)
                    )
                elif lim / req > most:
                    errs.append(
                        f"{path}: {name} max limit to request ratio per Container is {ratio}, "
                        f"but provided ratio is {float(lim / req):f}" + _cap(source, "maxLimitRequestRatio", name)
                    )
    return errs


def _unknown_namespace(ns: str) -> str | None:
    """The API server's answer to a pod created into a namespace no Namespace can be named (None: it can)."""
    if DNS1123_LABEL.fullmatch(ns):
        return None
    why = (
        f'namespaces "{ns}" not found: a namespace name is at most 63 lower-case letters, digits and "-", '
        "starting and ending with a letter or digit, so none has this name"
    )
    return f"not found: {why}"


def _namespace_note(namespace: str | None, cluster: ClusterObjects) -> str | None:
    if namespace is None:
        return f"no namespace given: the pod goes to {DEFAULT_NAMESPACE!r}, as kubectl creates it without -n"
    if namespace not in cluster.namespaces and namespace not in KUBERNETES_NAMESPACES:
        return (
            f"namespace {namespace!r} is not created by this stack; assumed to exist (e.g. made by a Helm chart) "
            "with no LimitRange"
        )
    return None


def _default_requests(containers: list[tuple[str, dict[str, Any]]]) -> bool:
    """Defaulting: a missing request takes its limit. Whether anything was filled in."""
    defaulted = False
    for _, c in containers:
        requests, limits = _resources(c)
        for key, value in limits.items():
            if key not in requests:
                requests[key] = value
                defaulted = True
    return defaulted


@dataclass
class _Pending:
    """A pod going through admission: its spec as admission changes it, and the notes it leaves."""

    admitted: dict[str, Any]
    containers: list[tuple[str, dict[str, Any]]]
    namespace: str
    notes: list[str]
    filled: bool = False  # whether admission filled in a request or limit (then the spec is read again)


def _limit_ranger(pod: _Pending, cluster: ClusterObjects) -> list[str]:
    """LimitRanger (mutating): missing limits from default, missing requests from defaultRequest."""
    filled: list[str] = []
    for item in cluster.limit_ranges.get(pod.namespace, ()):
        if item["type"] != "Container":
            continue
        for path, c in pod.containers:
            requests, limits = _resources(c)
            for key, value in item["default"].items():
                if key not in limits:
                    limits[key] = value
                    filled.append(f"{path} limit {key}={value}")
            for key, value in item["defaultRequest"].items():
                if key not in requests:
                    requests[key] = value
                    filled.append(f"{path} request {key}={value}")
    if filled:
        pod.filled = True
        pod.notes.append(f"the LimitRange of namespace {pod.namespace} set " + ", ".join(filled))
    return []


def _priority(pod: _Pending, cluster: ClusterObjects) -> list[str]:
    """Priority: the class must exist, and a priority given beside it must be the class's."""
    priority_class, given = pod.admitted.get("priorityClassName"), pod.admitted.get("priority")
    if priority_class and priority_class not in cluster.priority_classes:
        known = ", ".join(sorted(cluster.priority_classes))
        return [f"no PriorityClass with name {priority_class} was found (the stack creates {known})"]
    if priority_class and isinstance(given, int) and given != cluster.priority_classes[priority_class]:
        return [
            f"the integer value of priority ({given}) must not be provided in pod spec; "
            f"PriorityClass {priority_class} gives {cluster.priority_classes[priority_class]}"
        ]
    return []


def _runtime_class(pod: _Pending, cluster: ClusterObjects) -> list[str]:
    runtime_class = pod.admitted.get("runtimeClassName")
    if runtime_class and runtime_class not in cluster.runtime_classes:
        return [f'pod rejected: RuntimeClass "{runtime_class}" not found (the stack creates none)']
    return []


# Mutating admission plugins in kube-apiserver's order; each returns the reasons it refuses the pod for ("forbidden").
MUTATING = (_limit_ranger, _priority, _runtime_class)


def _validation_errors(pod: _Pending) -> list[str]:
    """Validation (every error at once) of the resources and the overhead."""
    errors: list[str] = []
    for path, c in pod.containers:
        requests, limits = _resources(c)
        errors += [str(p) for p in requirements_problems(f"{path}.resources", requests, limits)]
    overhead = pod.admitted.get("overhead")
    if isinstance(overhead, dict):
        errors += [str(p) for p in requirements_problems("spec.overhead", {}, overhead)]
    return errors


def _limit_range_bounds(pod: _Pending, cluster: ClusterObjects) -> list[str]:
    """LimitRanger (validating): min, max and maxLimitRequestRatio."""
    return _limit_range_errors(cluster.limit_ranges.get(pod.namespace, ()), pod.containers)


def _overhead(pod: _Pending, cluster: ClusterObjects) -> list[str]:
    """RuntimeClass (validating): overhead only from a RuntimeClass that defines it."""
    if pod.admitted.get("overhead"):
        return ["pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"]
    return []


# Validating admission plugins in order; the first refusal wins ("forbidden").
VALIDATING = (_limit_range_bounds, _overhead)


def admit(
    spec: Mapping[str, Any], cluster: ClusterObjects, name: str = "pod", namespace: str | None = None
) -> Admission:
    """The pod as the API server would admit it into `namespace` (None: the default namespace), or why not.

    Raises PodSpecError for specs too malformed to read at all (wrong types, unparseable quantities)."""
    written = Pod.from_spec(spec, name)  # malformed input is the user's to fix before anything else
    ns = namespace or DEFAULT_NAMESPACE
    if missing := _unknown_namespace(ns):
        return Admission(name, ns, spec, written, (missing,), ())
    admitted = _copy_for_admission(spec)
    note = _namespace_note(namespace, cluster)
    pod = _Pending(admitted, _containers(admitted), ns, [note] if note else [])
    pod.filled = _default_requests(pod.containers)  # 1. defaulting

    def refuse(reasons: list[str], stage: str) -> Admission:
        rejected = tuple(f"{stage}: {r}" for r in reasons)
        return Admission(name, ns, spec, written, rejected, tuple(pod.notes))

    for plugin in MUTATING:  # 2. mutating admission, in plugin order: the first refusal wins
        if refused := plugin(pod, cluster):
            return refuse(refused, "forbidden")
    # 3. validation: every error at once. The spec as written is the pod unless admission filled something in.
    model = Pod.from_spec(admitted, name) if pod.filled else written
    if errors := _validation_errors(pod) + list(model.invalid):
        return refuse(errors, "invalid")
    for plugin in VALIDATING:  # 4. validating admission: the first refusal wins
        if refused := plugin(pod, cluster):
            return refuse(refused, "forbidden")
    return Admission(name, ns, MappingProxyType(admitted), model, (), tuple(pod.notes))
