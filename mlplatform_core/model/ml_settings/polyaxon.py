"""Polyaxon `environment` sections that place an operation on one node group's nodes (seed 004)."""

from __future__ import annotations

from typing import Any

from ..layout import Layout, NodeGroupSpec
from ..scheduling import ROLE_LABEL, Toleration


def _selector_for(group: NodeGroupSpec, layout: Layout) -> dict[str, str]:
    """The role label, plus the group's other labels when another group shares the role."""
    selector = {ROLE_LABEL: group.role}
    others = [g for g in layout.groups if g is not group and g.labels.get(ROLE_LABEL) == group.role]
    for key, value in sorted(group.labels.items()):
        if not others:
            break
        if key not in selector and any(g.labels.get(key) != value for g in others):
            selector[key] = value
            others = [g for g in others if g.labels.get(key) == value]
    return selector


def polyaxon_environment(group: NodeGroupSpec, layout: Layout) -> dict[str, Any]:
    """A Polyaxon `environment` section that places an operation on `group`'s nodes."""
    return {
        "nodeSelector": _selector_for(group, layout),
        "tolerations": [Toleration.for_taint(t).to_dict() for t in group.taints if t.repels],
    }


def polyaxon_environments(layout: Layout) -> dict[str, dict[str, Any]]:
    """One environment per workload node group. The initial group is left out: it is for core services only."""
    return {g.name: polyaxon_environment(g, layout) for g in layout.groups if not g.is_initial}
