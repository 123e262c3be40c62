"""What each team's quota may cost a month (ceiling) and what it carries of the idle nodes (floor).

Pure Python, from the same estimate lines as the stack's cost (estimate.py), per flavor the team quotas:
- ceiling: the share of the group's nodes at max size the team's quota can fill (nominal + what it may borrow,
  model/teams/borrowing.py), by its largest resource share (GPUs, cpu or memory over what the group reaches at
  max size), times the group's cost at max size. A flavor with no upper bound (an Auto Mode built-in pool) has
  no ceiling to share: unknown, said;
- idle floor: the group's cost at its minimum size (0 when it scales to zero) times the team's share of the
  flavor's nominal quota (GPUs on a GPU flavor, else cpu), so the teams of a flavor together carry all of it.
Spot groups are priced on demand (an upper bound), as in the estimate. The team's key in the bill is the pod
label `mlplatform.io/team` (AWS split cost allocation data imports pod labels as cost allocation tags), next to
`aws:eks:namespace` for the team's namespaces: the same keys name the team here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ..teams.borrowing import reach
from ..teams.manifests import TEAM_LABEL
from ..teams.spec import CPU, Flavor, Team, Teams
from .estimate import StackCost
from .lines import Line
from .prices import HOURS_PER_MONTH


@dataclass(frozen=True)
class FlavorCost:
    flavor: str
    share_of_max: Fraction  # of the group's nodes at max size the team's quota can fill (<= 1)
    nominal_share: Fraction  # of the flavor's nominal quota of all teams (GPUs, else cpu)
    ceiling_usd_per_hour: Decimal | None  # None: unknown (no price, or no upper bound)
    floor_usd_per_hour: Decimal | None
    bound: str  # exact, or upper (spot at the on-demand price)
    note: str | None = None


@dataclass(frozen=True)
class TeamCost:
    team: str
    cost_key: tuple[str, str]  # (label key, value) in the bill
    namespaces: tuple[str, ...]
    flavors: tuple[FlavorCost, ...]

    def _sum(self, attr: str) -> Decimal | None:
        values = [getattr(f, attr) for f in self.flavors]
        return None if any(v is None for v in values) else sum(values, Decimal(0))

    @property
    def ceiling_usd_per_month(self) -> Decimal | None:
        total = self._sum("ceiling_usd_per_hour")
        return None if total is None else total * HOURS_PER_MONTH

    @property
    def floor_usd_per_month(self) -> Decimal | None:
        total = self._sum("floor_usd_per_hour")
        return None if total is None else total * HOURS_PER_MONTH


def _dec(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def _primary(f: Flavor) -> str:
    return f.gpu_resource or CPU


def _share_of_max(teams: Teams, team: Team, f: Flavor) -> Fraction | None:
    if f.capacity is None:
        return None
    shares = [Fraction(0)]
    for r in f.resources:
        cap = f.capacity.get(r)
        nominal, borrow = reach(teams, team, f.name, r)
        if cap:
            shares.append((nominal + borrow) / cap)
    return min(Fraction(1), max(shares))


def _nominal_share(teams: Teams, team: Team, f: Flavor) -> Fraction:
    r = _primary(f)
    total = sum((q.nominal for t in teams.teams if (q := t.quota(f.name, r))), Fraction(0))
    own = team.quota(f.name, r)
    return Fraction(0) if not total or own is None else own.nominal / total


def _flavor_cost(teams: Teams, team: Team, f: Flavor, line: Line | None) -> FlavorCost:
    share, nominal = _share_of_max(teams, team, f), _nominal_share(teams, team, f)
    ceiling_total = line.usd_per_hour("max") if line else None
    floor_total = line.usd_per_hour("min") if line else None
    note = None
    if share is None:
        note = f"{f.kind} {f.group} has no upper bound: no ceiling to share"
    elif line is None:
        note = f"the estimate has no cost line for {f.group}"
    ceiling = None if share is None or ceiling_total is None else ceiling_total * _dec(share)
    floor = None if floor_total is None else floor_total * _dec(nominal)
    bound = line.bound if line else "exact"
    return FlavorCost(f.name, share or Fraction(0), nominal, ceiling, floor, bound, note)


def team_costs(teams: Teams, cost: StackCost) -> list[TeamCost]:
    """Each team's ceiling and idle floor per flavor it quotas, priced from the stack's estimate."""
    lines = {line.name: line for line in cost.groups}
    return [
        TeamCost(
            t.name,
            (TEAM_LABEL, t.name),
            t.namespaces,
            tuple(
                _flavor_cost(teams, t, teams.flavor(name), lines.get(teams.flavor(name).group)) for name in t.flavors
            ),
        )
        for t in teams.teams
    ]
