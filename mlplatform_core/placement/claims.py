"""ResourceClaims, ResourceClaimTemplates and DeviceClasses (resource.k8s.io/v1) read from a manifest, and a
pod's claims resolved against them.

Pure Python. A pod names its claims in `spec.resourceClaims` (each entry one of `resourceClaimName`, a claim
that exists, or `resourceClaimTemplateName`, a template the resourceclaim controller makes a claim of for the
pod) and its containers use them by name in `resources.claims` (k8s.io/api core/v1 types.go PodResourceClaim,
ResourceClaim). A claim asks for devices (resource/v1 types.go DeviceClaim): each request either `exactly` one
kind (deviceClassName, CEL selectors, allocationMode ExactCount with a count, default 1, or All) or the first of
its `firstAvailable` subrequests that can be satisfied. DeviceClasses add their own selectors; the NVIDIA
driver's chart creates gpu.nvidia.com and mig.nvidia.com (dra_devices.py), and a manifest may bring more.

The objects are namespaced: a pod uses the claims and templates of its own namespace. One the manifest does not
hold cannot be judged (`place` sees only the manifest): the pod then lands nowhere, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .dra_devices import DEVICE_CLASSES

API_GROUP = "resource.k8s.io"
CLAIM, TEMPLATE, DEVICE_CLASS = "ResourceClaim", "ResourceClaimTemplate", "DeviceClass"
KINDS = frozenset({CLAIM, TEMPLATE, DEVICE_CLASS})
EXACT_COUNT, ALL = "ExactCount", "All"
# kind -> path from the object to its DeviceClaim (spec.devices)
DEVICES_PATH: Mapping[str, tuple[str, ...]] = {CLAIM: ("spec", "devices"), TEMPLATE: ("spec", "spec", "devices")}


class ClaimError(ValueError):
    """A claim, template or device class `place` cannot read (wrong types): the path names the field."""


@dataclass(frozen=True)
class DeviceRequest:
    """One request of a claim, or one subrequest of a firstAvailable request."""

    name: str
    path: str  # where it is, e.g. ResourceClaimTemplate/one-mig spec.spec.devices.requests[0]
    device_class: str = ""
    selectors: tuple[str, ...] = ()  # CEL expressions
    mode: str = EXACT_COUNT
    count: int = 1
    first_available: tuple[DeviceRequest, ...] = ()  # the alternatives, in order (then the fields above are unset)


@dataclass(frozen=True)
class Claim:
    kind: str  # ResourceClaim | ResourceClaimTemplate
    name: str
    namespace: str | None
    requests: tuple[DeviceRequest, ...]
    constraints: int = 0  # matchAttribute constraints (not judged: they compare attributes known on the node)

    @property
    def title(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(frozen=True)
class PodClaims:
    """A pod's claims as its namespace resolves them: the claims found, and the references found nowhere."""

    claims: tuple[tuple[str, Claim], ...] = ()  # (the pod's name for it, the claim)
    missing: tuple[str, ...] = ()  # why a reference cannot be judged
    device_classes: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEVICE_CLASSES))

    @property
    def requests(self) -> tuple[tuple[Claim, DeviceRequest], ...]:
        return tuple((c, r) for _, c in self.claims for r in c.requests)


def _typed(value: Any, kind: type, path: str, default: Any) -> Any:
    if value is None:
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ClaimError(f"{path}: must be a {kind.__name__} (got {type(value).__name__})")
    return value


def _selectors(raw: Any, path: str) -> tuple[str, ...]:
    out = []
    for i, s in enumerate(_typed(raw, list, path, [])):
        cel = _typed(_typed(s, dict, f"{path}[{i}]", {}).get("cel"), dict, f"{path}[{i}].cel", {})
        out.append(_typed(cel.get("expression"), str, f"{path}[{i}].cel.expression", ""))
    return tuple(out)


def _exact(raw: Mapping[str, Any], name: str, path: str) -> DeviceRequest:
    mode = _typed(raw.get("allocationMode"), str, f"{path}.allocationMode", EXACT_COUNT)
    count = _typed(raw.get("count"), int, f"{path}.count", 1)
    return DeviceRequest(
        name,
        path,
        _typed(raw.get("deviceClassName"), str, f"{path}.deviceClassName", ""),
        _selectors(raw.get("selectors"), f"{path}.selectors"),
        mode,
        count,
    )


def _request(raw: Any, path: str) -> DeviceRequest:
    raw = _typed(raw, dict, path, {})
    name = _typed(raw.get("name"), str, f"{path}.name", "")
    if raw.get("exactly") is not None:
        return _exact(_typed(raw["exactly"], dict, f"{path}.exactly", {}), name, f"{path}.exactly")
    subs = _typed(raw.get("firstAvailable"), list, f"{path}.firstAvailable", [])
    alternatives = []
    for i, sub in enumerate(subs):
        sub = _typed(sub, dict, f"{path}.firstAvailable[{i}]", {})
        sub_name = _typed(sub.get("name"), str, f"{path}.firstAvailable[{i}].name", "")
        alternatives.append(_exact(sub, f"{name}/{sub_name}", f"{path}.firstAvailable[{i}]"))
    return DeviceRequest(name, path, first_available=tuple(alternatives))


def read_claim(obj: Mapping[str, Any]) -> Claim:
    """A ResourceClaim or ResourceClaimTemplate as a dict. Raises ClaimError naming the field."""
    kind = obj["kind"]
    meta = _typed(obj.get("metadata"), dict, "metadata", {})
    name = _typed(meta.get("name"), str, "metadata.name", "")
    namespace = _typed(meta.get("namespace"), str, "metadata.namespace", None)
    node: Any = obj
    for part in DEVICES_PATH[kind]:
        node = _typed(node.get(part) if isinstance(node, Mapping) else None, dict, ".".join(DEVICES_PATH[kind]), {})
    where = ".".join(DEVICES_PATH[kind])
    requests = tuple(
        _request(r, f"{kind}/{name} {where}.requests[{i}]")
        for i, r in enumerate(_typed(node.get("requests"), list, f"{where}.requests", []))
    )
    constraints = len(_typed(node.get("constraints"), list, f"{where}.constraints", []))
    return Claim(kind, name, namespace, requests, constraints)


@dataclass
class ClaimCatalog:
    """The claims, templates and device classes a manifest holds (filled as its documents are read)."""

    claims: dict[tuple[str, str | None, str], Claim] = field(default_factory=dict)
    device_classes: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEVICE_CLASSES))

    def add(self, obj: Mapping[str, Any]) -> None:
        """Record a resource.k8s.io object of one of KINDS. Raises ClaimError."""
        if obj["kind"] == DEVICE_CLASS:
            meta = _typed(obj.get("metadata"), dict, "metadata", {})
            spec = _typed(obj.get("spec"), dict, "spec", {})
            name = _typed(meta.get("name"), str, "metadata.name", "")
            self.device_classes[name] = _selectors(spec.get("selectors"), "spec.selectors")
            return
        claim = read_claim(obj)
        self.claims[claim.kind, claim.namespace, claim.name] = claim

    def has(self, kind: str, name: str) -> bool:
        return any(k == kind and n == name for k, _, n in self.claims)

    def find(self, kind: str, namespace: str, name: str, default_namespace: str) -> Claim | None:
        """The object of the pod's namespace; one written without a namespace goes where the pod's would."""
        found = self.claims.get((kind, namespace, name))
        if found is None and namespace == default_namespace:
            found = self.claims.get((kind, None, name))
        return found

    def resolve(self, references: tuple[tuple[str, str, str], ...], namespace: str, default: str) -> PodClaims:
        """A pod's references ((its name, kind, object name)) in `namespace`; `default` is where objects that
        name no namespace are applied."""
        found, missing = [], []
        for pod_name, kind, name in references:
            claim = self.find(kind, namespace, name, default)
            if claim is None:
                where = "elsewhere" if self.has(kind, name) else "not"
                missing.append(
                    f"spec.resourceClaims {pod_name!r}: {kind} {name!r} is {where} in the manifest"
                    + (f" (not in namespace {namespace})" if where == "elsewhere" else "")
                    + "; place judges a claim only from the manifest it is given: add it there"
                )
            else:
                found.append((pod_name, claim))
        return PodClaims(tuple(found), tuple(missing), dict(self.device_classes))


def unresolved(pod: Any) -> PodClaims:
    """The claims of a pod placed without the manifest that holds them: none can be judged."""
    return PodClaims(
        missing=tuple(
            f"spec.resourceClaims {name!r}: {kind} {ref!r} is not known (place was given no manifest holding it)"
            for name, kind, ref in pod.resource_claims
        )
    )


def references(spec: Any) -> tuple[tuple[str, str], ...]:
    """The (kind, name) of every claim and template a PodSpec names; malformed entries are left to Pod's reader."""
    raw = spec.get("resourceClaims") if isinstance(spec, Mapping) else None
    out = []
    for entry in raw if isinstance(raw, list) else ():
        if isinstance(entry, Mapping):
            for key, kind in (("resourceClaimName", CLAIM), ("resourceClaimTemplateName", TEMPLATE)):
                if isinstance(entry.get(key), str) and entry[key]:
                    out.append((kind, entry[key]))
    return tuple(out)
