"""DRA device selectors evaluated with a real CEL library (cel-python's `celpy`) against a template's devices.

Pure Python. The environment follows Kubernetes' (k8s.io/dynamic-resource-allocation/cel/compile.go): the
variable `device` with `driver`, `attributes` (domain -> name -> value) and `capacity` (domain -> name ->
quantity), `allowMultipleAllocations`; an attribute published without a domain is in the driver's. Kubernetes'
quantity and semver libraries (k8s.io/apiserver/pkg/cel/library quantity.go, semver.go) are not in cel-python:
`quantity()`, `isQuantity()`, `semver()`, `isSemver()`, and on their values `compareTo`, `isGreaterThan`,
`isLessThan`, `asInteger`, `asApproximateFloat`, `major`, `minor`, `patch` are implemented here, minimally
(no arithmetic on quantities).

A selector gets one of four verdicts:
- match / no match, when it is decided by what the template knows (also when a short-circuit leaves an unknown
  attribute unread);
- unknown, when it depends on an attribute the driver reads from the GPU on the node (productName, ...) or on the
  exact memory NVML reports: `place` assumes it matches and says so;
- error, a CEL runtime error on a device the driver publishes (e.g. an attribute it never publishes): the
  scheduler's allocator fails the claim on that node with "CEL runtime error" (k8s.io/dynamic-resource-allocation
  structured/internal/stable/allocator_stable.go selectorsMatch); a domain the device has no attribute in reads
  as an empty map (cel/compile.go newStringInterfaceMapWithDefault), so a name in it is such an error;
- unsupported, an expression cel-python cannot parse or a function it lacks: said, never taken for a match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from ..model.quantity import QuantityError, parse_quantity
from .dra_devices import STANDARD_DOMAIN, STANDARD_NODE_ATTRIBUTES, Device

MATCH, NO_MATCH, UNKNOWN, ERROR, UNSUPPORTED = "match", "no match", "unknown", "error", "unsupported"
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_NODE_ONLY = object()  # the value of an attribute or capacity known only on the node
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")


@dataclass(frozen=True)
class Verdict:
    outcome: str  # match | no match | unknown | error | unsupported
    detail: str = ""

    @property
    def matches(self) -> bool:
        """Whether `place` takes the device as selected (an unknown attribute is assumed to match)."""
        return self.outcome in (MATCH, UNKNOWN)


def _celpy() -> Any:
    import celpy  # imported when a claim is placed: most stacks never need it

    return celpy


class _Values:
    """Values of Kubernetes' quantity and semver types inside CEL (ordered, compared by value)."""

    def __init__(self, kind: str, value: Any, text: str):
        self.kind, self.value, self.text = kind, value, text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Values) and other.kind == self.kind and other.value == self.value

    def __hash__(self) -> int:
        return hash((self.kind, self.value))

    def __repr__(self) -> str:
        return f"{self.kind}({self.text!r})"


def _quantity(text: Any) -> _Values:
    try:
        return _Values("quantity", parse_quantity(str(text)), str(text))
    except QuantityError as exc:
        raise ValueError(f"quantity({text!r}): {exc}") from None


def _semver(text: Any, normalize: Any = False) -> _Values:
    m = _SEMVER.match(str(text))
    if not m:
        raise ValueError(f"semver({text!r}): not a semantic version")
    return _Values("semver", tuple(int(p) for p in m.groups()), str(text))


def _compare(a: Any, b: Any) -> Any:
    celtypes = _celpy().celtypes
    if not (isinstance(a, _Values) and isinstance(b, _Values) and a.kind == b.kind):
        raise TypeError(f"cannot compare {a!r} with {b!r}")
    return celtypes.IntType((a.value > b.value) - (a.value < b.value))


def _functions() -> dict[str, Any]:
    celtypes = _celpy().celtypes

    def is_quantity(text: Any) -> Any:
        try:
            _quantity(text)
        except ValueError:
            return celtypes.BoolType(False)
        return celtypes.BoolType(True)

    def part(i: int) -> Any:
        return lambda v: celtypes.IntType(v.value[i])

    return {
        "quantity": _quantity,
        "isQuantity": is_quantity,
        "semver": _semver,
        "isSemver": lambda text, *_: celtypes.BoolType(bool(_SEMVER.match(str(text)))),
        "compareTo": _compare,
        "isGreaterThan": lambda a, b: celtypes.BoolType(int(_compare(a, b)) > 0),
        "isLessThan": lambda a, b: celtypes.BoolType(int(_compare(a, b)) < 0),
        "asInteger": lambda q: celtypes.IntType(int(q.value)),
        "asApproximateFloat": lambda q: celtypes.DoubleType(float(q.value)),
        "major": part(0),
        "minor": part(1),
        "patch": part(2),
    }


@cache
def _program(expression: str) -> Any:
    """The compiled program, or the message why cel-python cannot compile it."""
    celpy = _celpy()
    env = celpy.Environment()
    try:
        return env.program(env.compile(expression), functions=_functions())
    except celpy.CELParseError as exc:
        return f"cel-python cannot parse it: {str(exc).splitlines()[0]}"


@cache
def _map_classes() -> tuple[type, type]:
    """CEL maps for a device: one that knows which of its keys exist only on the node (reading one records it
    and fails), and attributes / capacity by domain, where a domain the device has nothing in reads as an empty
    map (so a name in it is a runtime error, as Kubernetes' lookup makes it)."""
    celtypes = _celpy().celtypes

    class NodeMap(celtypes.MapType):  # type: ignore[misc, name-defined]
        """Keys known only on the node are present (so `in` and has() see them) with no value to read."""

        def __init__(self, known: dict, node_only: frozenset[str], touched: set[str], domain: str):
            values = {celtypes.StringType(k): _NODE_ONLY for k in node_only}
            values.update({celtypes.StringType(k): v for k, v in known.items()})
            super().__init__(values)
            self.touched, self.domain = touched, domain

        def __getitem__(self, key: Any) -> Any:
            value = super().__getitem__(key)
            if value is _NODE_ONLY:
                self.touched.add(f"{self.domain}/{key}")
                raise KeyError(key)
            return value

        def get(self, key: Any, default: Any = None) -> Any:  # reading a node-only key must fail, not default
            if key not in self:
                return default
            return self[key]

    class Domains(celtypes.MapType):  # type: ignore[misc, name-defined]
        def __getitem__(self, key: Any) -> Any:
            found = super().get(key)
            return celtypes.MapType({}) if found is None else found

    return NodeMap, Domains


def _activation(device: Device, memory: int | None, touched: set[str]) -> dict[str, Any]:
    celtypes = _celpy().celtypes
    node_map, domains = _map_classes()
    strings = {k: celtypes.StringType(v) for k, v in device.attributes.items()}
    capacity = {} if memory is None else {"memory": _Values("quantity", Fraction(memory), str(memory))}
    node_caps = device.node_capacities | ({"memory"} if memory is None else set())
    attributes = {
        device.driver: node_map(strings, device.node_attributes, touched, device.driver),
        STANDARD_DOMAIN: node_map({}, STANDARD_NODE_ATTRIBUTES, touched, STANDARD_DOMAIN),
    }
    s = celtypes.StringType
    return {
        "device": celtypes.MapType(
            {
                s("driver"): s(device.driver),
                s("allowMultipleAllocations"): celtypes.BoolType(False),
                s("attributes"): domains({s(k): v for k, v in attributes.items()}),
                s("capacity"): domains({s(device.driver): node_map(capacity, node_caps, touched, device.driver)}),
            }
        )
    }


def _run(program: Any, device: Device, memory: int | None) -> tuple[Any, set[str]]:
    celpy = _celpy()
    touched: set[str] = set()
    try:
        return program.evaluate(_activation(device, memory, touched)), touched
    except celpy.CELEvalError as exc:
        return exc, touched


def evaluate(expression: str, device: Device) -> Verdict:
    """Whether `expression` selects `device` (see the module's docstring for the verdicts)."""
    celpy = _celpy()
    program = _program(expression)
    if isinstance(program, str):
        return Verdict(UNSUPPORTED, program)
    low, high = device.memory or (None, None)
    result, touched = _run(program, device, low)
    if high != low and "memory" in expression:  # decided only if the memory's whole range agrees
        other, touched_high = _run(program, device, high)
        touched |= touched_high
        if type(other) is not type(result) or (not isinstance(result, Exception) and bool(other) != bool(result)):
            gib = f"{low / 2**30:.1f}-{high / 2**30:.1f} GiB"  # type: ignore[operator]
            return Verdict(UNKNOWN, f"depends on the memory NVML reports for {device.type} devices (about {gib})")
    if isinstance(result, celpy.CELEvalError):
        message = str(result.args[0]) if result.args else str(result)
        if touched:
            names = ", ".join(sorted(touched))
            return Verdict(UNKNOWN, f"depends on {names}, which the driver reads from the GPU on the node")
        if m := _UNDECLARED.search(message):
            return Verdict(UNSUPPORTED, f"cel-python lacks the function {m[1]!r} Kubernetes' CEL library has")
        return Verdict(ERROR, f"CEL runtime error: {message}")
    if touched and "has(" in expression:  # has() of an attribute known only on the node: cel-python says false
        names = ", ".join(sorted(touched))
        return Verdict(UNKNOWN, f"depends on {names}, which the driver reads from the GPU on the node")
    if not isinstance(result, celpy.celtypes.BoolType):
        return Verdict(ERROR, f"must evaluate to a bool, got {type(result).__name__}")
    return Verdict(MATCH if result else NO_MATCH)
