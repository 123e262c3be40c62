"""`teams:` the teams that share the cluster, each with GPU, cpu and memory quotas per node group or pool (Kueue).

Shape (stack file, camelCase keys):

    ml-platform-eks:teams:
      vision:                          # the team's name: its ClusterQueue and its LocalQueues are named after it
        namespaces: [vision, vision-dev]   # workload namespaces (workloads.namespaces, or mlrun / jupyter)
        quotas:                        # per node group or pool (a Kueue ResourceFlavor each); order = preference
          gpu:                         # a group's name (nodeGroups / additionalNodeGroups / a pool)
            gpu: {nominal: 4, borrowingLimit: 4, lendingLimit: 2}
            cpu: {nominal: 16}
            memory: {nominal: 64Gi}
        cohort: platform               # teams of one cohort borrow each other's unused quota (default: platform)
        fairShareWeight: 2             # Kueue fair sharing weight (default 1)
        priorityClasses: [low, medium] # tiers (low/medium/high) or class names; default: every workload class

Resources per flavor: `gpu` (the group's GPU resource: nvidia.com/gpu, or nvidia.com/mig-<profile> with MIG mixed),
`cpu`, `memory`; each `nominal` (required), `borrowingLimit` and `lendingLimit` (unset: Kueue's default, no limit).
A resource a team does not quota on a flavor has nominal quota 0 there (it may still borrow what others lend).
Amounts are Kubernetes quantities (model/quantity.py): GPUs whole numbers, cpu down to 1m, memory whole bytes.
Omitted (or empty): no Kueue is installed and nothing of the stack changes.

Checks that need the layout and the workload layer (unknown group, priority class, namespace) are made where the
teams are built (model/teams/build.py); here: each setting on its own and namespaces claimed by two teams.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import Field, field_validator, model_validator

from ..quantity import parse_quantity
from ..scheduling import dns_label_error
from .base import QuotaAmount, SettingsModel
from .errors import show
from .workloads import quota_value_error

DEFAULT_COHORT = "platform"
DEFAULT_FAIR_SHARE_WEIGHT = 1
# The resources a team quotas per flavor (setting key), and the ResourceQuota key whose value rules they follow.
QUOTA_RESOURCES = {"gpu": "requests.nvidia.com/gpu", "cpu": "cpu", "memory": "memory"}
MAX_TEAMS = 100  # Kueue has no limit; a stack with more teams is a typo or belongs in a generator
MAX_FLAVORS_PER_TEAM = 16  # Kueue: at most 16 flavors in a ClusterQueue's resource group (CRD maxItems)


def _amount(value: Any, resource: str) -> Fraction:
    if err := quota_value_error(QUOTA_RESOURCES[resource], value):
        raise ValueError(err.split(": ", 1)[-1] if ": " in err else err)
    return parse_quantity(value)


class ResourceQuotaSettings(SettingsModel):
    """One resource's quota on one flavor: Kueue's nominalQuota, borrowingLimit and lendingLimit."""

    nominal: QuotaAmount
    borrowing_limit: QuotaAmount | None = None  # unset: borrow as much as the cohort lends
    lending_limit: QuotaAmount | None = None  # unset: lend everything unused

    def amounts(self, resource: str) -> tuple[Fraction, Fraction | None, Fraction | None]:
        """(nominal, borrowingLimit, lendingLimit) as exact numbers (None: unset)."""
        return (
            _amount(self.nominal, resource),
            None if self.borrowing_limit is None else _amount(self.borrowing_limit, resource),
            None if self.lending_limit is None else _amount(self.lending_limit, resource),
        )


class FlavorQuotaSettings(SettingsModel):
    """A team's quotas on one node group or pool (one ResourceFlavor): gpu, cpu and memory."""

    gpu: ResourceQuotaSettings | None = None
    cpu: ResourceQuotaSettings | None = None
    memory: ResourceQuotaSettings | None = None

    @model_validator(mode="after")
    def _amounts(self) -> FlavorQuotaSettings:
        for resource in QUOTA_RESOURCES:
            q: ResourceQuotaSettings | None = getattr(self, resource)
            if q is None:
                continue
            for field, value in (
                ("nominal", q.nominal),
                ("borrowingLimit", q.borrowing_limit),
                ("lendingLimit", q.lending_limit),
            ):
                if value is not None and (err := quota_value_error(QUOTA_RESOURCES[resource], value)):
                    raise ValueError(f"{resource}.{field}: {err.split(': ', 1)[-1]}")
            nominal, _, lending = q.amounts(resource)
            if lending is not None and lending > nominal:
                raise ValueError(
                    f"{resource}.lendingLimit {show(q.lending_limit)} is more than its nominal {show(q.nominal)}; "
                    "a team can lend at most its own quota (Kueue refuses it)"
                )
        if all(getattr(self, r) is None for r in QUOTA_RESOURCES):
            raise ValueError("quotas nothing; give gpu, cpu and/or memory (e.g. gpu: {nominal: 4})")
        return self

    def resources(self) -> dict[str, ResourceQuotaSettings]:
        """The quotas it sets, by resource key (gpu, cpu, memory)."""
        return {r: q for r in QUOTA_RESOURCES if (q := getattr(self, r)) is not None}


class TeamSettings(SettingsModel):
    """One team: its namespaces, its quotas per node group or pool, its cohort, weight and priority classes."""

    namespaces: list[str] = Field(min_length=1, max_length=50)
    quotas: dict[str, FlavorQuotaSettings] = Field(min_length=1, max_length=MAX_FLAVORS_PER_TEAM)
    cohort: str = DEFAULT_COHORT
    fair_share_weight: QuotaAmount = DEFAULT_FAIR_SHARE_WEIGHT
    # Tiers (low, medium, high) or priority class names of the stack's workload classes; None: all of them.
    priority_classes: list[str] | None = Field(default=None, min_length=1, max_length=3)

    @field_validator("namespaces")
    @classmethod
    def _namespaces(cls, v: list[str]) -> list[str]:
        for name in v:
            if err := dns_label_error(name):
                raise ValueError(f"namespace {show(name)} {err}")
            if name.startswith("kube-") or name in ("default", "kueue-system"):
                raise ValueError(f"namespace {show(name)} belongs to Kubernetes or Kueue; give the team its own")
        if len(set(v)) != len(v):
            raise ValueError(f"{show(v)} lists a namespace twice")
        return v

    @field_validator("cohort")
    @classmethod
    def _cohort(cls, v: str) -> str:
        if err := dns_label_error(v):
            raise ValueError(f"cohort {show(v)} {err}")
        return v

    @field_validator("fair_share_weight")
    @classmethod
    def _weight(cls, v: Any) -> Any:
        try:
            w = parse_quantity(v)
        except ValueError:
            raise ValueError(f"{show(v)} is not a number such as 1, 2 or 0.5") from None
        if w < 0:
            raise ValueError(f"{show(v)} is negative; a fair-share weight is >= 0 (0: borrows only what is idle)")
        return v

    @property
    def weight(self) -> Fraction:
        return parse_quantity(self.fair_share_weight)


def team_settings_problems(teams: dict[str, TeamSettings]) -> list[tuple[tuple, str]]:
    """Problems across teams (key path under `teams`, message): a namespace claimed by two teams."""
    out: list[tuple[tuple, str]] = []
    owner: dict[str, str] = {}
    for team, t in teams.items():
        for i, ns in enumerate(t.namespaces):
            if ns in owner:
                out.append(
                    (
                        (team, "namespaces", i),
                        f"namespace {show(ns)} is already team {owner[ns]}'s; a namespace belongs to one team "
                        "(its LocalQueue points at one ClusterQueue)",
                    )
                )
            else:
                owner[ns] = team
    return out


def check_team_names(teams: dict[str, TeamSettings]) -> dict[str, TeamSettings]:
    """Team names name a ClusterQueue and LocalQueues: DNS labels."""
    for name in teams:
        if err := dns_label_error(name):
            raise ValueError(f"team name {show(name)} {err} (it names the team's ClusterQueue and LocalQueues)")
    problems = team_settings_problems(teams)
    if problems:
        path, message = problems[0]
        raise ValueError(f"team {path[0]}: {message}")
    return teams
