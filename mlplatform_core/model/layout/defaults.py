"""The best-practice layout per environment: which groups exist and their default capacity, types and sizes.

The defaults follow Iguazio's cluster best practices (seed 003): an initial
on-demand group of static size reserved for core services, dev workload groups
for Jupyter and for jobs, a prod workload group, dedicated GPU groups and spot
groups. A new built-in node-group kind starts here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .spec import INITIAL


@dataclass(frozen=True)
class GroupDefaults:
    enabled: bool
    capacity_type: str
    instance_types: tuple[str, ...]
    min_size: int
    max_size: int
    desired_size: int
    gpu: bool = False
    disk_size_gib: int = 100
    dedicated: bool = False


_SPOT_TYPES = ("m5.2xlarge", "m5a.2xlarge", "m5d.2xlarge", "m6i.2xlarge")  # one size class: 8 vCPU, 32 GiB

DEFAULTS: Mapping[str, Mapping[str, GroupDefaults]] = {
    "dev": {
        INITIAL: GroupDefaults(True, "ON_DEMAND", ("m5.xlarge",), 2, 2, 2),
        # Dedicated: notebooks get their own nodes, jobs and functions do not crowd them out.
        "jupyter": GroupDefaults(True, "ON_DEMAND", ("m5.2xlarge",), 1, 5, 1, dedicated=True),
        "jobs": GroupDefaults(True, "ON_DEMAND", ("m5.2xlarge",), 1, 10, 1),
        "spot": GroupDefaults(True, "SPOT", _SPOT_TYPES, 0, 10, 0),
        # One size class per GPU group: the Cluster Autoscaler builds a new node from the first type.
        "gpu": GroupDefaults(False, "ON_DEMAND", ("g5.xlarge",), 0, 4, 0, gpu=True, disk_size_gib=200),
    },
    "prod": {
        INITIAL: GroupDefaults(True, "ON_DEMAND", ("m5.2xlarge",), 2, 2, 2),
        "workload": GroupDefaults(True, "ON_DEMAND", ("m5.4xlarge",), 1, 20, 2),
        "gpu": GroupDefaults(False, "ON_DEMAND", ("g5.2xlarge",), 0, 8, 0, gpu=True, disk_size_gib=200),
        "spot": GroupDefaults(False, "SPOT", _SPOT_TYPES, 0, 10, 0),
    },
}

# Roles only the dev layout has: the production cluster runs no development work (seed 003), whether the
# group is built in or added under additionalNodeGroups.
DEVELOPMENT_ROLES = tuple(role for role in DEFAULTS["dev"] if role not in DEFAULTS["prod"])
# Words that mark development work anywhere in a group's role or name; the policy pack's
# no-dev-groups-in-prod rule matches the same words by default (forbiddenRoles).
DEVELOPMENT_WORDS = ("jupyter", "dev", "notebook", "notebooks")


def development_role(role: str, name: str) -> str | None:
    """Why a group with this role and name is development work (None when it is not)."""
    if role in DEVELOPMENT_ROLES:
        return f"is a development role ({', '.join(DEVELOPMENT_ROLES)} are dev-only groups)"
    words = {w for text in (role, name) for w in text.lower().replace("_", "-").split("-")}
    found = sorted(words & set(DEVELOPMENT_WORDS))
    if found:
        return f"names development work ({', '.join(found)})"
    return None
