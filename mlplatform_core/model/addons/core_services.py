"""Where core add-ons run: the initial group, whose CriticalAddonsOnly taint they tolerate (seed 003)."""

from __future__ import annotations

from typing import Any

from ..layout import INITIAL, Layout
from ..scheduling import CRITICAL_ADDONS_TAINT, ROLE_LABEL, Toleration


def core_services_placement() -> dict[str, Any]:
    """Pin a core add-on to the initial group and tolerate its taint."""
    return {
        "nodeSelector": {ROLE_LABEL: INITIAL},
        "tolerations": [Toleration(CRITICAL_ADDONS_TAINT.key, "Exists", "", CRITICAL_ADDONS_TAINT.effect).to_dict()],
    }


def core_services_groups(layout: Layout) -> tuple[str, ...]:
    """The groups core add-ons run on (what core_services_placement selects): their deployment waits for these only."""
    return tuple(g.name for g in layout.groups if g.is_initial)
