"""The plan's cost per team (in its teams section): each team's quota-based ceiling and idle floor a month, under
the key the bill uses (mlplatform_core/model/cost/teams.py), priced from the same estimate as the cost section."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rich.console import Console
from rich.table import Table

from mlplatform_core.model.cost import HOURS_PER_MONTH
from mlplatform_core.model.cost.teams import team_costs
from mlplatform_core.model.teams import Teams

from ..plan import Plan
from .cost import plan_cost
from .tables import print_table

CENT = Decimal("0.01")


def _usd(value: Decimal | None) -> float | None:
    return None if value is None else float(value.quantize(CENT))


def _monthly(usd_per_hour: Decimal | None) -> float | None:
    return _usd(None if usd_per_hour is None else usd_per_hour * HOURS_PER_MONTH)


def team_cost_rows(plan: Plan, teams: Teams) -> dict[str, dict[str, Any]]:
    """Per team: the cost key, its ceiling and idle floor a month, and per flavor the shares they come from."""
    out = {}
    for c in team_costs(teams, plan_cost(plan)):
        out[c.team] = {
            "costKey": {c.cost_key[0]: c.cost_key[1]},
            "namespaces": list(c.namespaces),  # aws:eks:namespace in split cost allocation data
            "ceilingUsdPerMonth": _usd(c.ceiling_usd_per_month),
            "idleFloorUsdPerMonth": _usd(c.floor_usd_per_month),
            "upperBound": any(f.bound == "upper" for f in c.flavors),
            "flavors": [
                {
                    "flavor": f.flavor,
                    "shareOfMaxSize": round(float(f.share_of_max), 4),
                    "nominalShare": round(float(f.nominal_share), 4),
                    "ceilingUsdPerMonth": _usd(
                        None if f.ceiling_usd_per_hour is None else f.ceiling_usd_per_hour * HOURS_PER_MONTH
                    ),
                    "idleFloorUsdPerMonth": _usd(
                        None if f.floor_usd_per_hour is None else f.floor_usd_per_hour * HOURS_PER_MONTH
                    ),
                    "note": f.note,
                }
                for f in c.flavors
            ],
        }
    return out


def _cell(value: float | None, upper: bool) -> str:
    if value is None:
        return "unknown"
    return f"{'<= ' if upper else ''}${value:,.2f}"


def render_team_cost(section: dict[str, Any], console: Console) -> None:
    table = Table(title="Cost per team a month (quota-based ceiling; share of the idle nodes)")
    for col in ("team", "cost key (pod label)", "namespaces", "ceiling", "idle floor", "flavors"):
        table.add_column(col)
    for t in section["teams"]:
        c = t.get("cost")
        if c is None:
            continue
        key = ", ".join(f"{k}={v}" for k, v in c["costKey"].items())
        flavors = ", ".join(f"{f['flavor']} {f['shareOfMaxSize']:.0%} of max" for f in c["flavors"])
        table.add_row(
            t["name"],
            key,
            ", ".join(c["namespaces"]),
            _cell(c["ceilingUsdPerMonth"], c["upperBound"]),
            _cell(c["idleFloorUsdPerMonth"], False),
            flavors,
        )
    print_table(console, table)
