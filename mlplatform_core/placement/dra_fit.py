"""Whether one node can satisfy all of a pod's claims at once: the scheduler's DRA allocator over the devices a
template's node publishes (dra_devices.py).

Pure Python. Follows k8s.io/dynamic-resource-allocation/structured/allocator.go: the requests of every claim
of the pod are allocated on the same node, each device to one request; a request's devices must match its
DeviceClass's selectors and its own (cel.py); ExactCount takes `count` devices, All every matching device (at
least one, none taken by another request); a firstAvailable request takes the first subrequest that works with
the others (tried in order, backtracking). A CEL runtime error fails the allocation on that node, as the
allocator does; a selector cel-python cannot evaluate fails it here and says so; one that depends on an
attribute known only on the node is assumed to match, with a note. Constraints (matchAttribute) compare such
attributes and are noted, not judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cel import ERROR, UNKNOWN, UNSUPPORTED, Verdict, evaluate
from .claims import ALL, DeviceRequest, PodClaims
from .dra_devices import Device, device_summary

UNSCHEDULABLE = "cannot allocate all claims"  # the scheduler's DynamicResources plugin (ErrReasonUnschedulable)


@dataclass(frozen=True)
class Allocation:
    ok: bool
    why: str = ""  # the first request that could not be satisfied, and why
    notes: tuple[str, ...] = ()


class _Failed(Exception):
    """A request no device choice can satisfy (or a selector that cannot be evaluated)."""


class _Allocator:
    def __init__(self, devices: Sequence[Device], classes: Mapping[str, tuple[str, ...]]):
        self.devices, self.classes = tuple(devices), classes
        self.notes: list[str] = []
        self._verdicts: dict[tuple, Verdict] = {}

    def _verdict(self, expression: str, device: Device) -> Verdict:
        # Devices of one node differ only in name: judge each kind of device once.
        key = (expression, device.type, tuple(sorted(device.attributes.items())), device.memory)
        if key not in self._verdicts:
            self._verdicts[key] = evaluate(expression, device)
        return self._verdicts[key]

    def matching(self, request: DeviceRequest) -> list[Device]:
        if request.device_class not in self.classes:
            known = ", ".join(sorted(self.classes))
            raise _Failed(
                f"{request.path}: DeviceClass {request.device_class!r} does not exist (the NVIDIA DRA driver's "
                f"chart creates {known})"
            )
        selectors = [
            *(("DeviceClass", e) for e in self.classes[request.device_class]),
            *(("", e) for e in request.selectors),
        ]
        out = []
        for device in self.devices:
            if all(self._selects(request, whose, e, device) for whose, e in selectors):
                out.append(device)
        return out

    def _selects(self, request: DeviceRequest, whose: str, expression: str, device: Device) -> bool:
        verdict = self._verdict(expression, device)
        where = f"{request.path}: {whose + ' ' if whose else ''}selector {expression!r}"
        if verdict.outcome == UNSUPPORTED:
            raise _Failed(f"{where} cannot be evaluated here ({verdict.detail}); place does not assume it matches")
        if verdict.outcome == ERROR:
            raise _Failed(f"{where}: {verdict.detail} on {device.type} devices")
        if verdict.outcome == UNKNOWN:
            self.notes.append(f"{where} {verdict.detail}: assumed to match")
        return verdict.matches

    def _short(self, request: DeviceRequest, matching: list[Device], free: list[Device]) -> str:
        published = ", ".join(f"{n} {kind}" for kind, n in device_summary(self.devices)["perNode"].items())
        taken = f", {len(free)} not taken by the pod's other requests" if len(free) < len(matching) else ""
        return (
            f"{request.path}: asks {request.count} device(s) of class {request.device_class}; a node publishes "
            f"{published or 'no devices'}, {len(matching)} of them match{taken}"
        )

    def allocate(self, requests: Sequence[DeviceRequest], taken: frozenset[str]) -> None:
        """Allocate `requests` in order besides the devices `taken`; raises _Failed with the first that fails."""
        if not requests:
            return
        request, rest = requests[0], requests[1:]
        if request.first_available:
            failures = []
            for alternative in request.first_available:
                try:
                    self.allocate([alternative, *rest], taken)
                    return
                except _Failed as exc:
                    failures.append(str(exc))
            raise _Failed("; ".join(failures) or f"{request.path}: firstAvailable is empty")
        matching = self.matching(request)
        free = [d for d in matching if d.name not in taken]
        if request.mode == ALL:
            if not matching or len(free) < len(matching):
                what = "no device matches" if not matching else "some matching devices are taken by other requests"
                raise _Failed(f"{request.path}: allocationMode All, but {what}")
            chosen = free
        else:
            if len(free) < request.count:
                raise _Failed(self._short(request, matching, free))
            chosen = free[: request.count]
        self.allocate(rest, taken | {d.name for d in chosen})


def allocate(claims: PodClaims, devices: Sequence[Device]) -> Allocation:
    """Whether one node publishing `devices` can satisfy every request of every claim of the pod at once."""
    allocator = _Allocator(devices, claims.device_classes)
    notes = [
        f"{claim.title}: {claim.constraints} constraint(s) compare attributes known only on the node; not judged"
        for _, claim in claims.claims
        if claim.constraints
    ]
    try:
        allocator.allocate([r for _, r in claims.requests], frozenset())
    except _Failed as exc:
        return Allocation(False, str(exc), tuple(dict.fromkeys([*notes, *allocator.notes])))
    return Allocation(True, "", tuple(dict.fromkeys([*notes, *allocator.notes])))
