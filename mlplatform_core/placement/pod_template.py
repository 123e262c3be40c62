"""One role of an operator's workload (a PyTorchJob's Worker, a RayCluster's head...): its PodSpec and how many
pods of it run at once, and the accessors the kinds' readers share (workload_kinds.py, built_pods.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class KindError(ValueError):
    """A custom resource of a known kind whose pod templates cannot be read (the message names the field)."""


@dataclass(frozen=True)
class PodTemplate:
    role: str  # e.g. Worker, head, worker group gpu
    path: str  # where the PodSpec (or what it is built from) is in the object, e.g. spec.pytorchReplicaSpecs.Worker
    spec: Mapping[str, Any]
    replicas: int | None  # pods at once; None: as many as the operator starts (a note says)
    notes: tuple[str, ...] = ()


def get(obj: Any, path: str) -> Any:
    """The value at a dotted path, None where any part is missing."""
    for part in path.split(".") if path else ():
        obj = obj.get(part) if isinstance(obj, Mapping) else None
    return obj


def spec_at(obj: Any, path: str, kind: str) -> Mapping[str, Any]:
    spec = get(obj, path)
    if not isinstance(spec, Mapping):
        got = "is missing" if spec is None else f"must be a mapping (got {type(spec).__name__})"
        raise KindError(f"{path} {got}; a {kind} keeps this role's PodSpec there")
    return spec


def count(obj: Any, path: str, default: int) -> int:
    value = get(obj, path)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise KindError(f"{path} must be a whole number >= 0 (got {value!r})")
    return value
