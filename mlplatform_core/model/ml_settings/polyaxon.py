"""Polyaxon `environment` sections that place an operation on one node group's nodes (seed 004)."""

from __future__ import annotations

from typing import Any

from ..layout import Layout, NodeGroupSpec
from ..scheduling import GROUP_LABEL, ROLE_LABEL, Toleration


def _selector_for(group: NodeGroupSpec, layout: Layout) -> dict[str, str]:
    """The role label, plus the per-group label when another group shares the role: an environment places
    an operation on one group, even when the groups of a role differ in nothing else."""
    selector = {ROLE_LABEL: group.role}
    if any(g is not group and g.role == group.role for g in layout.groups):
        selector[GROUP_LABEL] = group.name
    return selector


def polyaxon_environment(group: NodeGroupSpec, layout: Layout) -> dict[str, Any]:
    """A Polyaxon `environment` section that places an operation on `group`'s nodes."""
    return {
        "nodeSelector": _selector_for(group, layout),
        "tolerations": [Toleration.for_taint(t).to_dict() for t in group.taints if t.repels],
    }


def polyaxon_environments(layout: Layout) -> dict[str, dict[str, Any]]:
    """One environment per workload node group. The initial group is left out: it is for core services only; so
    are Auto Mode's built-in pools, whose nodes carry none of the toolkit's labels to select them by."""
    return {g.name: polyaxon_environment(g, layout) for g in layout.groups if not g.is_initial and not g.builtin}
