"""Where a pod can land: the Kubernetes scheduler's filters against a layout's node groups.

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
- NodeResourcesFit: a pod that asks for more cpu, memory, GPUs (or any extended
  resource) than an instance type allocates cannot land on it; a group fits
  when one of its instance types fits.
- ExtendedResourceToleration (an EKS admission plugin) adds an `<resource>`
  Exists NoSchedule toleration to pods that request extended resources such as
  nvidia.com/gpu, which is what lets GPU pods past the GPU taint.

Reasons are worded like the scheduler's own event messages, followed by detail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from . import instances
from .layout import Layout, NodeGroupSpec
from .quantity import QuantityError, format_bytes, format_cpu, int_value, milli_value
from .scheduling import EFFECTS, EKS_CAPACITY_LABEL, EKS_NODEGROUP_LABEL, GPU_RESOURCE, ROLE_LABEL, Taint, Toleration

OS_LABEL = "kubernetes.io/os"
ARCH_LABEL = "kubernetes.io/arch"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
# Labels every node has but with a value of its own; a template cannot know them.
PER_NODE_LABELS = frozenset({
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "topology.ebs.csi.aws.com/zone",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
})

CPU, MEMORY = "cpu", "memory"
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOLERATION_OPERATORS = ("", "Equal", "Exists")
# Resources the scheduler does not check against a template's allocatable (no data in the instance table).
_UNCHECKED_RESOURCES = ("ephemeral-storage", "pods")
_NATIVE_PREFIX = "kubernetes.io/"


class PodSpecError(ValueError):
    """A PodSpec that cannot be read: wrong types, unparseable quantities. `path` locates the field."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


# --- node templates -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeVariant:
    """A node of the group running one of its instance types."""

    instance_type: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, int] | None  # cpu (millicores), memory (bytes), nvidia.com/gpu; None: type unknown


@dataclass(frozen=True)
class NodeTemplate:
    """What every node of a group looks like to the scheduler."""

    group: str
    labels: Mapping[str, str]  # common to all nodes (the instance-type label is per variant)
    taints: tuple[Taint, ...]
    variants: tuple[NodeVariant, ...]
    preemptible: bool
    gpu: bool
    initial: bool

    @property
    def instance_types(self) -> tuple[str, ...]:
        return tuple(v.instance_type for v in self.variants)

    @property
    def unknown_instance_types(self) -> tuple[str, ...]:
        return tuple(v.instance_type for v in self.variants if v.allocatable is None)

    @property
    def largest(self) -> NodeVariant | None:
        """The known instance type with the most GPUs, then cpu, then memory."""
        known = [v for v in self.variants if v.allocatable is not None]
        return max(known, key=lambda v: (v.allocatable.get(GPU_RESOURCE, 0), v.allocatable[CPU],
                                         v.allocatable[MEMORY]), default=None)

    @property
    def allocatable(self) -> Mapping[str, int] | None:
        """Allocatable resources of the largest known instance type."""
        big = self.largest
        return big.allocatable if big else None

    def to_dict(self) -> dict[str, Any]:
        alloc = self.allocatable
        return {
            "name": self.group,
            "labels": dict(self.labels),
            "taints": [t.to_dict() for t in self.taints],
            "instanceTypes": list(self.instance_types),
            "largestInstanceType": self.largest.instance_type if self.largest else None,
            "allocatable": None if alloc is None else {
                CPU: format_cpu(alloc[CPU]), MEMORY: format_bytes(alloc[MEMORY]), GPU_RESOURCE: alloc[GPU_RESOURCE],
            },
            "unknownInstanceTypes": list(self.unknown_instance_types),
        }


def _k8s_arch(arch: str) -> str:
    return {"x86_64": "amd64", "arm64": "arm64"}.get(arch, arch)


def node_template(spec: NodeGroupSpec) -> NodeTemplate:
    """The node template of one group. The EKS node group label carries the toolkit's group name."""
    ami_arch = "arm64" if "ARM" in spec.ami_type else "amd64"
    labels = {
        **spec.labels,
        EKS_CAPACITY_LABEL: spec.capacity_type,
        EKS_NODEGROUP_LABEL: spec.name,
        OS_LABEL: "linux",
        ARCH_LABEL: ami_arch,
    }
    variants = []
    for name in spec.instance_types:
        info = instances.lookup(name)
        alloc = None
        if info is not None:
            alloc = MappingProxyType({
                CPU: info.allocatable_cpu_millis,
                MEMORY: info.allocatable_memory_mib * 2**20,
                GPU_RESOURCE: info.gpus,
            })
        vlabels = {**labels, INSTANCE_TYPE_LABEL: name}
        if info is not None:
            vlabels[ARCH_LABEL] = _k8s_arch(info.arch)
        variants.append(NodeVariant(name, MappingProxyType(vlabels), alloc))
    return NodeTemplate(
        group=spec.name,
        labels=MappingProxyType(labels),
        taints=tuple(spec.taints),
        variants=tuple(variants),
        preemptible=spec.preemptible,
        gpu=spec.gpu,
        initial=spec.is_initial,
    )


def node_templates(layout: Layout) -> tuple[NodeTemplate, ...]:
    return tuple(node_template(g) for g in layout.groups)


# --- the pod model --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One matchExpressions entry of a node selector term."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Kubernetes' labels.Requirement.Matches for node selector operators."""
        has = self.key in labels
        if self.operator == "In":
            return has and labels[self.key] in self.values
        if self.operator == "NotIn":
            return not has or labels[self.key] not in self.values
        if self.operator == "Exists":
            return has
        if self.operator == "DoesNotExist":
            return not has
        if self.operator in ("Gt", "Lt"):
            if not has or len(self.values) != 1:
                return False
            node_value, wanted = _int_or_none(labels[self.key]), _int_or_none(self.values[0])
            if node_value is None or wanted is None:
                return False
            return node_value > wanted if self.operator == "Gt" else node_value < wanted
        return False  # an operator the API server would reject

    def __str__(self) -> str:
        if self.operator in ("Exists", "DoesNotExist"):
            return f"{self.key} {self.operator}"
        return f"{self.key} {self.operator} ({', '.join(self.values)})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


def _int_or_none(text: str) -> int | None:
    # Kubernetes parses with strconv.ParseInt(s, 10, 64): optional sign, decimal digits only.
    t = text[1:] if text[:1] in "+-" else text
    if not t or not t.isascii() or not t.isdigit():
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


@dataclass(frozen=True)
class SelectorTerm:
    """A nodeSelectorTerm. matchFields (node names) cannot be known for a template and are kept only to report."""

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.expressions and not self.fields

    def __str__(self) -> str:
        parts = [str(r) for r in self.expressions] + [f"field {r}" for r in self.fields]
        return " and ".join(parts) if parts else "(empty term)"


@dataclass(frozen=True)
class PreferredTerm:
    weight: int
    term: SelectorTerm


@dataclass(frozen=True)
class Pod:
    """What the scheduler's filters look at in a PodSpec."""

    name: str
    node_selector: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    required_terms: tuple[SelectorTerm, ...] | None = None  # None: no required node affinity at all
    preferred_terms: tuple[PreferredTerm, ...] = ()
    tolerations: tuple[Toleration, ...] = ()  # as written in the spec
    requests: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))  # cpu in millicores
    extended_resources: frozenset[str] = frozenset()  # named in any container's requests or limits
    warnings: tuple[str, ...] = ()  # what the API server would reject or what cannot be checked

    @property
    def admission_tolerations(self) -> tuple[Toleration, ...]:
        """The tolerations the ExtendedResourceToleration admission plugin adds."""
        return tuple(Toleration(name, "Exists", "", "NoSchedule") for name in sorted(self.extended_resources))

    @property
    def effective_tolerations(self) -> tuple[Toleration, ...]:
        added = [t for t in self.admission_tolerations if t not in self.tolerations]
        return self.tolerations + tuple(added)

    @classmethod
    def from_spec(cls, spec: Any, name: str = "pod") -> "Pod":
        """Read a PodSpec dict (camelCase, as in a manifest). Raises PodSpecError for malformed specs."""
        return _PodReader(name).read(spec)


def is_extended_resource(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, not a request prefix."""
    if "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


class _PodReader:
    """Turns a PodSpec dict into a Pod, collecting warnings for what the API server would reject."""

    def __init__(self, name: str):
        self.name = name
        self.warnings: list[str] = []

    # -- small typed accessors: every malformed field becomes a PodSpecError naming its path
    @staticmethod
    def _mapping(value: Any, path: str) -> Mapping:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise PodSpecError(path, f"must be a mapping (got {type(value).__name__})")
        return value

    @staticmethod
    def _list(value: Any, path: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise PodSpecError(path, f"must be a list (got {type(value).__name__})")
        return value

    @staticmethod
    def _string(value: Any, path: str, default: str = "") -> str:
        if value is None:
            return default
        if not isinstance(value, str):
            raise PodSpecError(path, f"must be a string (got {type(value).__name__} {value!r}); quote it in YAML")
        return value

    def _string_map(self, value: Any, path: str) -> dict[str, str]:
        out = {}
        for k, v in self._mapping(value, path).items():
            out[self._string(k, f"{path} key")] = self._string(v, f"{path}.{k}")
        return out

    def read(self, spec: Any) -> Pod:
        spec = self._mapping(spec, "spec")
        if not spec:
            raise PodSpecError("spec", "is empty; a PodSpec needs at least one container")
        containers = self._list(spec.get("containers"), "spec.containers")
        if not containers:
            raise PodSpecError("spec.containers", "is missing or empty; a PodSpec needs at least one container")
        if spec.get("nodeName"):
            self.warnings.append(f"spec.nodeName {spec['nodeName']!r} bypasses the scheduler; the checks below "
                                 "show where it could go if it were scheduled")
        affinity = self._mapping(self._mapping(spec.get("affinity"), "spec.affinity").get("nodeAffinity"),
                                 "spec.affinity.nodeAffinity")
        requests, extended = self._requests(spec)
        return Pod(
            name=self.name,
            node_selector=MappingProxyType(self._string_map(spec.get("nodeSelector"), "spec.nodeSelector")),
            required_terms=self._required(affinity),
            preferred_terms=self._preferred(affinity),
            tolerations=tuple(self._toleration(t, f"spec.tolerations[{i}]")
                              for i, t in enumerate(self._list(spec.get("tolerations"), "spec.tolerations"))),
            requests=MappingProxyType(requests),
            extended_resources=frozenset(extended),
            warnings=tuple(self.warnings),
        )

    # -- affinity
    def _requirement(self, raw: Any, path: str) -> Requirement:
        raw = self._mapping(raw, path)
        key = self._string(raw.get("key"), f"{path}.key")
        op = self._string(raw.get("operator"), f"{path}.operator")
        values = tuple(self._string(v, f"{path}.values[{i}]")
                       for i, v in enumerate(self._list(raw.get("values"), f"{path}.values")))
        if not key:
            self.warnings.append(f"{path}.key is empty; the API server rejects this pod")
        if op not in OPERATORS:
            self.warnings.append(f"{path}.operator {op!r} is not one of {', '.join(OPERATORS)}; "
                                 "the API server rejects this pod (treated as matching no node)")
        elif op in ("In", "NotIn") and not values:
            self.warnings.append(f"{path}: operator {op} needs at least one value; the API server rejects this pod")
        elif op in ("Exists", "DoesNotExist") and values:
            self.warnings.append(f"{path}: operator {op} takes no values; the API server rejects this pod")
        elif op in ("Gt", "Lt") and len(values) != 1:
            self.warnings.append(f"{path}: operator {op} needs exactly one value; the API server rejects this pod")
        return Requirement(key, op, values)

    def _term(self, raw: Any, path: str) -> SelectorTerm:
        raw = self._mapping(raw, path)
        exprs = tuple(self._requirement(r, f"{path}.matchExpressions[{i}]")
                      for i, r in enumerate(self._list(raw.get("matchExpressions"), f"{path}.matchExpressions")))
        fields = tuple(self._requirement(r, f"{path}.matchFields[{i}]")
                       for i, r in enumerate(self._list(raw.get("matchFields"), f"{path}.matchFields")))
        if fields:
            self.warnings.append(f"{path}.matchFields select node names, which a node template does not have; "
                                 "they are assumed to match")
        return SelectorTerm(exprs, fields)

    def _required(self, affinity: Mapping) -> tuple[SelectorTerm, ...] | None:
        path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        raw = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if raw is None:
            return None
        terms = self._list(self._mapping(raw, path).get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
        if not terms:
            self.warnings.append(f"{path}.nodeSelectorTerms is empty; the API server rejects this pod "
                                 "(treated as matching no node)")
        return tuple(self._term(t, f"{path}.nodeSelectorTerms[{i}]") for i, t in enumerate(terms))

    def _preferred(self, affinity: Mapping) -> tuple[PreferredTerm, ...]:
        path = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        out = []
        for i, raw in enumerate(self._list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), path)):
            raw = self._mapping(raw, f"{path}[{i}]")
            weight = raw.get("weight", 0)
            if isinstance(weight, bool) or not isinstance(weight, int):
                raise PodSpecError(f"{path}[{i}].weight", f"must be an integer 1-100 (got {weight!r})")
            if not 1 <= weight <= 100:
                self.warnings.append(f"{path}[{i}].weight {weight} is outside 1-100; the API server rejects this pod")
            out.append(PreferredTerm(weight, self._term(raw.get("preference"), f"{path}[{i}].preference")))
        return tuple(out)

    # -- tolerations
    def _toleration(self, raw: Any, path: str) -> Toleration:
        raw = self._mapping(raw, path)
        key = self._string(raw.get("key"), f"{path}.key")
        op = self._string(raw.get("operator"), f"{path}.operator")
        value = self._string(raw.get("value"), f"{path}.value")
        effect = self._string(raw.get("effect"), f"{path}.effect")
        seconds = raw.get("tolerationSeconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
            raise PodSpecError(f"{path}.tolerationSeconds", f"must be an integer (got {seconds!r})")
        if op not in TOLERATION_OPERATORS:
            self.warnings.append(f"{path}.operator {op!r} is not Equal or Exists; the API server rejects this pod "
                                 "(treated as tolerating nothing)")
        if not key and op != "Exists":
            self.warnings.append(f"{path}: an empty key needs operator Exists; the API server rejects this pod "
                                 "(treated as tolerating nothing)")
        if op == "Exists" and value:
            self.warnings.append(f"{path}: operator Exists takes no value; the API server rejects this pod")
        if effect and effect not in EFFECTS:
            self.warnings.append(f"{path}.effect {effect!r} is not one of {', '.join(EFFECTS)}; "
                                 "the API server rejects this pod")
        # Keep the operator as written ("" stays ""): Toleration.tolerates treats "" like Equal.
        return Toleration(key=key, operator=op, value=value, effect=effect)

    # -- resources
    def _container_requests(self, c: Any, path: str, extended: set[str]) -> dict[str, int]:
        c = self._mapping(c, path)
        res = self._mapping(c.get("resources"), f"{path}.resources")
        requests = self._mapping(res.get("requests"), f"{path}.resources.requests")
        limits = self._mapping(res.get("limits"), f"{path}.resources.limits")
        out: dict[str, int] = {}
        # The API server defaults a missing request to the limit, resource by resource.
        for source, values in (("limits", limits), ("requests", requests)):
            for rname, q in values.items():
                rname = self._string(rname, f"{path}.resources.{source} key")
                qpath = f"{path}.resources.{source}.{rname}"
                try:
                    amount = milli_value(q) if rname == CPU else int_value(q)
                except QuantityError as exc:
                    raise PodSpecError(qpath, str(exc)) from None
                if amount < 0:
                    raise PodSpecError(qpath, f"{q!r} is negative; requests and limits must be >= 0")
                if is_extended_resource(rname):
                    extended.add(rname)
                if source == "requests" or rname not in requests:
                    out[rname] = amount
        for rname in extended & set(requests) & set(limits):
            if int_value(requests[rname]) != int_value(limits[rname]):
                self.warnings.append(f"{path}.resources: {rname} request must equal its limit (extended resources "
                                     "cannot be overcommitted); the API server rejects this pod")
        return out

    def _requests(self, spec: Mapping) -> tuple[dict[str, int], set[str]]:
        """The pod's effective requests, as the scheduler computes them (resourcehelper.PodRequests)."""
        extended: set[str] = set()
        total: dict[str, int] = {}
        for i, c in enumerate(self._list(spec.get("containers"), "spec.containers")):
            _add(total, self._container_requests(c, f"spec.containers[{i}]", extended))
        # Init containers run one at a time before the app containers; sidecars (restartPolicy Always) keep running.
        init_peak: dict[str, int] = {}
        sidecars: dict[str, int] = {}
        for i, c in enumerate(self._list(spec.get("initContainers"), "spec.initContainers")):
            reqs = self._container_requests(c, f"spec.initContainers[{i}]", extended)
            if isinstance(c, Mapping) and c.get("restartPolicy") == "Always":
                _add(sidecars, reqs)
                _max(init_peak, sidecars)
            else:
                step = dict(sidecars)
                _add(step, reqs)
                _max(init_peak, step)
        _add(total, sidecars)
        _max(total, init_peak)
        overhead = self._mapping(spec.get("overhead"), "spec.overhead")
        for rname, q in overhead.items():
            try:
                _add(total, {rname: milli_value(q) if rname == CPU else int_value(q)})
            except QuantityError as exc:
                raise PodSpecError(f"spec.overhead.{rname}", str(exc)) from None
        return total, extended


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = max(into.get(k, 0), v)


# --- the filters ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reason:
    """Why a pod cannot land on a group: the scheduler's wording plus detail, and a short form for tables."""

    kind: str  # taint | affinity | resources
    message: str
    short: str

    def __str__(self) -> str:
        return self.message


def untolerated_taints(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> list[Taint]:
    """The NoSchedule / NoExecute taints no toleration tolerates (what the TaintToleration filter refuses)."""
    tols = tuple(tolerations)
    return [t for t in taints if t.repels and not any(tol.tolerates(t) for tol in tols)]


def _taint_reason(t: Taint) -> Reason:
    return Reason("taint", f"node(s) had untolerated taint {{{t.key}: {t.value}}} (effect {t.effect})",
                  f"taint {t.key.rsplit('/', 1)[-1]}")


def _selector_mismatch(pod: Pod, labels: Mapping[str, str]) -> tuple[str | None, list[str]]:
    """Why the nodeSelector / required affinity refuse `labels` (None when they match), and notes."""
    notes: list[str] = []
    keys = set(pod.node_selector) | {r.key for t in pod.required_terms or () for r in t.expressions}
    if EKS_NODEGROUP_LABEL in keys:
        notes.append(f"{EKS_NODEGROUP_LABEL} is taken to be the group name, but Pulumi names EKS node groups "
                     f"<group>-<suffix>; select {ROLE_LABEL} instead")
    for key, want in pod.node_selector.items():
        if key in PER_NODE_LABELS:
            notes.append(f"nodeSelector {key}={want} depends on the node; assumed to match some node")
        elif key not in labels:
            return f"nodeSelector needs {key}={want}, the nodes have no {key} label", notes
        elif labels[key] != want:
            return f"nodeSelector needs {key}={want}, the nodes have {key}={labels[key]}", notes
    if pod.required_terms is None:
        return None, notes
    failures = []
    for i, term in enumerate(pod.required_terms):
        if term.empty:
            failures.append(f"term {i + 1} is empty and matches nothing" if len(pod.required_terms) > 1
                            else "its only term is empty and matches nothing")
            continue
        missed = None
        for req in term.expressions:
            if req.key in PER_NODE_LABELS:  # every node has the label, with a value of its own
                if req.operator == "DoesNotExist":
                    missed = f"{req}, every node has a {req.key} label"
                    break
                notes.append(f"{req} depends on the node; assumed to match some node")
                continue
            if not req.matches(labels):
                have = f"{req.key}={labels[req.key]}" if req.key in labels else f"no {req.key} label"
                missed = f"{req}, the nodes have {have}"
                break
        if missed is None:
            return None, notes
        failures.append(f"term {i + 1} needs {missed}" if len(pod.required_terms) > 1 else f"needs {missed}")
    if not failures:
        return "required node affinity has no nodeSelectorTerms", notes
    if len(failures) == 1:
        return f"required node affinity {failures[0]}", notes
    return "no required node affinity term matches: " + "; ".join(failures), notes


def _shortfalls(pod: Pod, alloc: Mapping[str, int]) -> list[tuple[str, int, int]]:
    """(resource, requested, allocatable) for every resource the instance type cannot provide."""
    out = []
    for rname, amount in sorted(pod.requests.items()):
        if amount == 0 or rname in _UNCHECKED_RESOURCES or rname.startswith("hugepages-"):
            continue
        if rname in (CPU, MEMORY, GPU_RESOURCE) or is_extended_resource(rname):
            have = alloc.get(rname, 0)
            if amount > have:
                out.append((rname, amount, have))
    return out


def _fmt(rname: str, amount: int) -> str:
    if rname == CPU:
        return format_cpu(amount)
    if rname == MEMORY:
        return format_bytes(amount)
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

    @property
    def short(self) -> str:
        return "; ".join(dict.fromkeys(r.short for r in self.reasons))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.group, "schedulable": self.schedulable,
                               "reasons": [r.message for r in self.reasons]}
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
    groups: tuple[GroupPlacement, ...]

    @property
    def reachable(self) -> tuple[str, ...]:
        return tuple(g.group for g in self.groups if g.schedulable)

    @property
    def ranking(self) -> tuple[str, ...]:
        """Schedulable groups, preferred first: higher affinity score, then fewer PreferNoSchedule taints."""
        ok = [g for g in self.groups if g.schedulable]
        return tuple(g.group for g in sorted(ok, key=lambda g: (-g.score, len(g.prefer_not))))

    def group(self, name: str) -> GroupPlacement:
        return next(g for g in self.groups if g.group == name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.pod.name, "groups": [g.to_dict() for g in self.groups]}
        out["ranking"] = list(self.ranking)
        if self.pod.warnings:
            out["warnings"] = list(self.pod.warnings)
        return out


def preference_score(pod: Pod, labels: Mapping[str, str]) -> int:
    """NodeAffinity scoring: the summed weights of the preferred terms the labels match (empty terms match none)."""
    return sum(p.weight for p in pod.preferred_terms
               if not p.term.empty and all(r.matches(labels) for r in p.term.expressions))


def place_on(pod: Pod, template: NodeTemplate) -> GroupPlacement:
    """Run the filters for `pod` against every instance type of a group; the group fits if one type does."""
    reasons: list[Reason] = [_taint_reason(t) for t in untolerated_taints(template.taints, pod.effective_tolerations)]
    notes: list[str] = []

    matched: list[NodeVariant] = []
    mismatch = None
    for v in template.variants:
        why, vnotes = _selector_mismatch(pod, v.labels)
        notes.extend(vnotes)
        if why is None:
            matched.append(v)
        elif mismatch is None:
            mismatch = why
    if not matched:
        reasons.append(Reason("affinity", f"node(s) didn't match Pod's node affinity/selector: {mismatch}",
                              "selector" if mismatch and mismatch.startswith("nodeSelector") else "affinity"))

    # Resource fit over the variants the selectors allow (all of them when none does, to report every reason).
    candidates = matched or list(template.variants)
    fits = [v for v in candidates if v.allocatable is None or not _shortfalls(pod, v.allocatable)]
    unknown = [v.instance_type for v in candidates if v.allocatable is None]
    if unknown:
        notes.append(f"instance type(s) {', '.join(unknown)} not in the instance table; "
                     "resource fit not checked for them")
    known = [v for v in candidates if v.allocatable is not None]
    if not fits and known:
        # Report against the type that comes closest: fewest shortfalls, then the largest.
        best = min(known, key=lambda v: (len(_shortfalls(pod, v.allocatable)), -v.allocatable[CPU]))
        for rname, amount, have in _shortfalls(pod, best.allocatable):
            reasons.append(Reason(
                "resources",
                f"Insufficient {rname}: the pod requests {_fmt(rname, amount)}, "
                f"{best.instance_type} allocates {_fmt(rname, have)}",
                f"insufficient {rname.rsplit('/', 1)[-1]}",
            ))
    landing = [v for v in fits if v in matched]
    schedulable = not reasons
    score, prefer_not = 0, ()
    if schedulable:
        score = max(preference_score(pod, v.labels) for v in landing)
        prefer_not = tuple(t for t in template.taints if t.effect == "PreferNoSchedule"
                           and not any(tol.tolerates(t) for tol in pod.effective_tolerations))
    return GroupPlacement(
        group=template.group,
        schedulable=schedulable,
        reasons=tuple(reasons),
        instance_types=tuple(v.instance_type for v in landing) if schedulable else (),
        score=score,
        prefer_not=prefer_not,
        notes=tuple(dict.fromkeys(notes)),
    )


def place(pod: Pod, layout_or_templates: Layout | Iterable[NodeTemplate]) -> PodPlacement:
    """The verdict for `pod` on every node group of a layout (or on the given templates)."""
    templates = (node_templates(layout_or_templates) if isinstance(layout_or_templates, Layout)
                 else tuple(layout_or_templates))
    return PodPlacement(pod, tuple(place_on(pod, t) for t in templates))


def place_spec(spec: Mapping[str, Any], layout: Layout, name: str = "pod") -> PodPlacement:
    return place(Pod.from_spec(spec, name), layout)
