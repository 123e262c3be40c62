"""Shared by the model tests: a shipped stack's layout and workloads, and the scheduler's filter for a group."""

from __future__ import annotations

from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.scheduling import Toleration
from mlplatform_core.model.workloads import build_workloads
from tests.conftest import stack_config


def stack(name: str, **overrides):
    raw = stack_config(name)
    raw.update(overrides)
    cfg = parse(raw)
    return build_layout(cfg, name), build_workloads(cfg)


def tolerations_of(decoded: dict) -> list[Toleration]:
    return [Toleration.from_dict(t) for t in decoded["tolerations"]]


def admits(group, node_selector: dict, tolerations: list[Toleration]) -> bool:
    """The scheduler's filters for a group's nodes: every repelling taint tolerated, every selector pair matched."""
    labels_ok = all(group.labels.get(k) == v for k, v in node_selector.items())
    taints_ok = all(any(t.tolerates(taint) for t in tolerations) for taint in group.taints if taint.repels)
    return labels_ok and taints_ok
