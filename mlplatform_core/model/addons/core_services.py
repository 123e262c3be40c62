"""Where core add-ons run: the initial group, whose CriticalAddonsOnly taint they tolerate (seed 003).

On Auto Mode the built-in `system` pool may take the initial group's place. AWS owns its template, so its
nodes carry none of the toolkit's labels: core services select it by `karpenter.sh/nodepool: system` and
tolerate CriticalAddonsOnly with Exists, as the EKS user guide places critical add-ons there
(automode/critical-workload.adoc).
"""

from __future__ import annotations

from typing import Any

from ..karpenter.spec import NODEPOOL_LABEL
from ..layout import INITIAL, Layout
from ..scheduling import CRITICAL_ADDONS_TAINT, ROLE_LABEL, Toleration
from .run_by_aws import needs_node_addons


def _system_pool(layout: Layout | None) -> str | None:
    """The built-in pool in the initial group's place, if any."""
    return next((g.name for g in layout.groups if g.is_initial and g.builtin), None) if layout else None


def core_services_placement(layout: Layout | None = None) -> dict[str, Any]:
    """Pin a core add-on to the initial group (or the system pool in its place) and tolerate its taint."""
    pool = _system_pool(layout)
    if pool is not None:
        return {
            "nodeSelector": {NODEPOOL_LABEL: pool},
            "tolerations": [Toleration(CRITICAL_ADDONS_TAINT.key, "Exists").to_dict()],
        }
    return {
        "nodeSelector": {ROLE_LABEL: INITIAL},
        "tolerations": [Toleration(CRITICAL_ADDONS_TAINT.key, "Exists", "", CRITICAL_ADDONS_TAINT.effect).to_dict()],
    }


def core_services_sources(layout: Layout) -> tuple[str, ...]:
    """The placement proof's names (layout.node_sources) of the nodes core services land on: the initial group,
    or the system pool in its place. A stack that keeps a managed initial group while it migrates (keepNodeGroups)
    still places its core add-ons by role (coredns_configuration, the EBS CSI controller, a kept Karpenter's
    controller): on that kept group, not on the system pool, until the migration moves them."""
    by_role = needs_node_addons(layout)
    return tuple(name for name, g in layout.node_sources if g.is_initial and not (by_role and g.builtin))


def core_services_groups(layout: Layout) -> tuple[str, ...]:
    """The groups (by the layout's names, as the programs key node groups) the core add-ons run on: their deployment
    waits for these only. Where the stack keeps a managed initial group (a migration's keepNodeGroups with the
    system pool in its place), CoreDNS, the EBS CSI controller and a kept Karpenter select it by role (as
    core_services_sources): the kept group, not the system pool."""
    if needs_node_addons(layout):
        kept = tuple(g.name for g in layout.retained_groups if g.is_initial)
        return tuple(g.name for g in layout.groups if g.is_initial and not g.builtin) + kept
    return placement_groups(layout)


def placement_groups(layout: Layout) -> tuple[str, ...]:
    """The groups core_services_placement(layout) selects: the system pool in the initial group's place, or that
    group (what an add-on placed by the layout, like the GPU operator's controller, runs on)."""
    return tuple(g.name for g in layout.groups if g.is_initial)
