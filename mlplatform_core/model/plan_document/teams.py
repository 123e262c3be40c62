"""`teams`: the teams sharing the cluster through Kueue (a stack with `teams:` only; mlplatform_core/model/teams).

Quantities are strings as Kubernetes writes them (memory in Gi); None where a limit is not set or a flavor has no
upper bound.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Part


class KueueInfo(Part):
    chart: str | None = None
    image: str | None = None
    integrations: list[str] = Field(default_factory=list)
    fair_sharing: bool = True


class TeamFlavor(Part):
    """A ResourceFlavor: one node group or pool, what it reaches at max size and what the teams quota there."""

    name: str
    group: str | None = None
    kind: str | None = None
    capacity_type: str | None = None
    node_labels: dict[str, str] = Field(default_factory=dict)
    node_taints: list[dict[str, Any]] = Field(default_factory=list)
    tolerations: list[dict[str, Any]] = Field(default_factory=list)
    max_nodes: int | None = None
    capacity: dict[str, str | None] | None = None  # None: no upper bound
    nominal_quota: dict[str, str | None] = Field(default_factory=dict)


class TeamQuota(Part):
    flavor: str
    resource: str
    nominal: str | None = None
    borrowing_limit: str | None = None
    lending_limit: str | None = None


class TeamEntry(Part):
    """A team: its namespaces, its ClusterQueue's quotas and the GPU hours a month its nominal quota implies."""

    name: str
    namespaces: list[str] = Field(default_factory=list)
    queue_name: str | None = None
    cohort: str | None = None
    fair_share_weight: float | int | None = None
    priority_classes: list[str] = Field(default_factory=list)
    quotas: list[TeamQuota] = Field(default_factory=list)
    gpu_hours: list[dict[str, Any]] = Field(default_factory=list)
    cost: dict[str, Any] | None = None  # the quota-based ceiling and idle floor a month (model/cost/teams.py)


class TeamsSection(Part):
    kueue: KueueInfo = Field(default_factory=KueueInfo)
    cohorts: list[str] = Field(default_factory=list)
    flavors: list[TeamFlavor] = Field(default_factory=list)
    priority_classes: list[dict[str, Any]] = Field(default_factory=list)
    teams: list[TeamEntry] = Field(default_factory=list)
