"""The pod model: what the scheduler's filters look at in a PodSpec, read strictly from a manifest's dict.

Every malformed field becomes a PodSpecError naming its path; what the API server's validation would
reject but can still be read (an unknown operator, a toleration with an empty key) is recorded on the
Pod as `invalid` (admission.py turns it into a rejection), what only limits the check as a warning.
The validation rules themselves live in validation.py (`place` also refuses them as bad input).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..model.quantity import QuantityError, int_value, milli_value
from ..model.scheduling import CPU, Toleration
from .validation import scheduling_problems


class PodSpecError(ValueError):
    """A PodSpec that cannot be read: wrong types, unparseable quantities. `path` locates the field."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


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
    warnings: tuple[str, ...] = ()  # what cannot be checked before the pod exists
    invalid: tuple[str, ...] = ()  # what the API server's validation refuses: the pod is never created
    # spec.resourceClaims: (the pod's name for it, ResourceClaim | ResourceClaimTemplate, the object's name)
    resource_claims: tuple[tuple[str, str, str], ...] = ()

    @property
    def admission_tolerations(self) -> tuple[Toleration, ...]:
        """The tolerations the ExtendedResourceToleration admission plugin adds."""
        return tuple(Toleration(name, "Exists", "", "NoSchedule") for name in sorted(self.extended_resources))

    @property
    def effective_tolerations(self) -> tuple[Toleration, ...]:
        added = [t for t in self.admission_tolerations if t not in self.tolerations]
        return self.tolerations + tuple(added)

    @classmethod
    def from_spec(cls, spec: Any, name: str = "pod") -> Pod:
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
            self.warnings.append(
                f"spec.nodeName {spec['nodeName']!r} bypasses the scheduler; the checks below "
                "show where it could go if it were scheduled"
            )
        affinity = self._mapping(
            self._mapping(spec.get("affinity"), "spec.affinity").get("nodeAffinity"), "spec.affinity.nodeAffinity"
        )
        requests, extended = self._requests(spec)
        claims, claim_problems = self._resource_claims(spec)
        return Pod(
            name=self.name,
            node_selector=MappingProxyType(self._string_map(spec.get("nodeSelector"), "spec.nodeSelector")),
            required_terms=self._required(affinity),
            preferred_terms=self._preferred(affinity),
            tolerations=tuple(
                self._toleration(t, f"spec.tolerations[{i}]")
                for i, t in enumerate(self._list(spec.get("tolerations"), "spec.tolerations"))
            ),
            requests=MappingProxyType(requests),
            extended_resources=frozenset(extended),
            warnings=tuple(self.warnings),
            invalid=tuple(f"spec.{problem}" for problem in scheduling_problems(spec)) + claim_problems,
            resource_claims=claims,
        )

    # -- dynamic resource allocation
    def _resource_claims(self, spec: Mapping) -> tuple[tuple[tuple[str, str, str], ...], tuple[str, ...]]:
        """spec.resourceClaims, and what the API server's validation refuses in them and in the containers'
        resources.claims (pkg/apis/core/validation validatePodResourceClaims, validateResourceClaimNames)."""
        refs, problems = [], []
        for i, raw in enumerate(self._list(spec.get("resourceClaims"), "spec.resourceClaims")):
            path = f"spec.resourceClaims[{i}]"
            raw = self._mapping(raw, path)
            name = self._string(raw.get("name"), f"{path}.name")
            claim = self._string(raw.get("resourceClaimName"), f"{path}.resourceClaimName")
            template = self._string(raw.get("resourceClaimTemplateName"), f"{path}.resourceClaimTemplateName")
            if not name or any(name == r[0] for r in refs):
                problems.append(f"{path}.name: {'a duplicate' if name else 'is required'} ({name!r})")
            if bool(claim) == bool(template):
                problems.append(f"{path}: must specify exactly one of resourceClaimName, resourceClaimTemplateName")
                continue
            refs.append((name, "ResourceClaim" if claim else "ResourceClaimTemplate", claim or template))
        names = {r[0] for r in refs}
        for kind in ("containers", "initContainers"):
            for i, c in enumerate(self._list(spec.get(kind), f"spec.{kind}")):
                res = self._mapping(self._mapping(c, f"spec.{kind}[{i}]").get("resources"), "resources")
                for j, used in enumerate(self._list(res.get("claims"), f"spec.{kind}[{i}].resources.claims")):
                    path = f"spec.{kind}[{i}].resources.claims[{j}].name"
                    used_name = self._string(self._mapping(used, path).get("name"), path)
                    if used_name not in names:
                        known = ", ".join(sorted(names)) or "none"
                        problems.append(f"{path}: {used_name!r} is not one of the pod's resourceClaims ({known})")
        return tuple(refs), tuple(problems)

    # -- affinity
    def _requirement(self, raw: Any, path: str) -> Requirement:
        raw = self._mapping(raw, path)
        key = self._string(raw.get("key"), f"{path}.key")
        op = self._string(raw.get("operator"), f"{path}.operator")
        values = tuple(
            self._string(v, f"{path}.values[{i}]")
            for i, v in enumerate(self._list(raw.get("values"), f"{path}.values"))
        )
        return Requirement(key, op, values)

    def _term(self, raw: Any, path: str) -> SelectorTerm:
        raw = self._mapping(raw, path)
        exprs = tuple(
            self._requirement(r, f"{path}.matchExpressions[{i}]")
            for i, r in enumerate(self._list(raw.get("matchExpressions"), f"{path}.matchExpressions"))
        )
        fields = tuple(
            self._requirement(r, f"{path}.matchFields[{i}]")
            for i, r in enumerate(self._list(raw.get("matchFields"), f"{path}.matchFields"))
        )
        if fields:
            self.warnings.append(
                f"{path}.matchFields select node names, which a node template does not have; they are assumed to match"
            )
        return SelectorTerm(exprs, fields)

    def _required(self, affinity: Mapping) -> tuple[SelectorTerm, ...] | None:
        path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        raw = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if raw is None:
            return None
        terms = self._list(self._mapping(raw, path).get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
        return tuple(self._term(t, f"{path}.nodeSelectorTerms[{i}]") for i, t in enumerate(terms))

    def _preferred(self, affinity: Mapping) -> tuple[PreferredTerm, ...]:
        path = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        out = []
        for i, raw in enumerate(self._list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), path)):
            raw = self._mapping(raw, f"{path}[{i}]")
            weight = raw.get("weight", 0)
            if isinstance(weight, bool) or not isinstance(weight, int):
                raise PodSpecError(f"{path}[{i}].weight", f"must be an integer 1-100 (got {weight!r})")
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
