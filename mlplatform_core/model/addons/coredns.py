"""CoreDNS as an EKS managed add-on, placed on the core-services group."""

from __future__ import annotations

from typing import Any

from .core_services import core_services_placement

ADDON_NAME = "coredns"


def coredns_configuration() -> dict[str, Any]:
    """EKS coredns add-on configuration: run on the initial group like the other core services.

    Replaces the add-on's default tolerations, so the control-plane one is kept.
    """
    placement = core_services_placement()
    placement["tolerations"].append({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"})
    return placement
