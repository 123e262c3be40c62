"""The plan's teams section (stacks with `teams` only): Kueue's chart and integrations, each flavor with what its
group reaches at max size and what the teams quota there, each team with its queue, quotas and the GPU hours a
month its nominal quota implies (mlplatform_core/model/teams)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table

from mlplatform_core.model import addon_versions
from mlplatform_core.model.layout.gpu import whole_nodes
from mlplatform_core.model.plan_document import TeamsSection
from mlplatform_core.model.teams import Teams, build_teams
from mlplatform_core.model.teams.checks import gpu_hours
from mlplatform_core.model.teams.spec import MEMORY
from mlplatform_core.model.workloads import build_workloads

from ..plan import Plan
from .tables import print_table
from .team_cost import render_team_cost, team_cost_rows


def teams_of(plan: Plan) -> Teams | None:
    """The plan's teams (validated with the stack: build_plan refused a stack whose teams fail their checks)."""
    if not plan.config.teams:
        return None
    workloads = build_workloads(plan.config, whole_nodes(plan.layout.node_sources))
    return build_teams(plan.config, plan.layout, workloads)


def _text(resource: str, value: Fraction | None) -> str | None:
    if value is None:
        return None
    if resource == MEMORY:
        gib = value / 2**30
        return f"{float(gib):g}Gi"
    return f"{float(value):g}"


def _flavor_entry(f: Any, teams: Teams) -> dict[str, Any]:
    quoted = {r: sum((q.nominal for t in teams.teams if (q := t.quota(f.name, r))), Fraction(0)) for r in f.resources}
    return {
        "name": f.name,
        "group": f.group,
        "kind": f.kind,
        "capacityType": f.capacity_type,
        "nodeLabels": dict(f.node_labels),
        "nodeTaints": [t.to_dict() for t in f.node_taints],
        "tolerations": [t.to_dict() for t in f.tolerations],
        "maxNodes": f.max_nodes,
        # None: no upper bound (the teams' borrowingLimits bound it: model/teams/checks.py)
        "capacity": {r: _text(r, v) for r, v in f.capacity.items()} if f.capacity is not None else None,
        "nominalQuota": {r: _text(r, v) for r, v in quoted.items()},
    }


def _team_entry(t: Any, teams: Teams, cost: Any) -> dict[str, Any]:
    return {
        "name": t.name,
        "namespaces": list(t.namespaces),
        "queueName": t.queue_name,
        "cohort": t.cohort,
        "fairShareWeight": t.weight,
        "priorityClasses": list(t.priority_classes),
        "quotas": [
            {
                "flavor": q.flavor,
                "resource": q.resource,
                "nominal": _text(q.resource, q.nominal),
                "borrowingLimit": _text(q.resource, q.borrowing_limit),
                "lendingLimit": _text(q.resource, q.lending_limit),
            }
            for q in t.quotas
        ],
        "gpuHours": gpu_hours(t, teams),
        "cost": cost,
    }


def teams_section(plan: Plan) -> TeamsSection | None:
    teams = teams_of(plan)
    if teams is None:
        return None
    pin = addon_versions.pinned(addon_versions.KUEUE, plan.layout.kubernetes_version) or {}
    costs = team_cost_rows(plan, teams)  # per team: ceiling and idle floor under the bill's key (team_cost.py)
    return TeamsSection.model_validate(
        {
            "kueue": {
                "chart": pin.get("chart"),
                "image": pin.get("image"),
                "integrations": list(teams.integrations),
                "fairSharing": True,
            },
            "cohorts": list(teams.cohorts),
            "flavors": [_flavor_entry(f, teams) for f in teams.flavors],
            "priorityClasses": [{"name": p.name, "value": p.value} for p in teams.priorities],
            "teams": [_team_entry(t, teams, costs[t.name]) for t in teams.teams],
        }
    )


def render_teams(section: dict[str, Any] | None, console: Console) -> None:
    if section is None:
        return
    k = section["kueue"]
    console.print(
        f"[bold]Teams[/bold] (Kueue {k['chart']}, cohort{'s' if len(section['cohorts']) > 1 else ''} "
        f"{', '.join(section['cohorts'])}, fair sharing): jobs join a queue with the label "
        "kueue.x-k8s.io/queue-name: <team>"
    )
    table = Table(title="Team quotas (nominal / borrowing limit / lending limit per flavor)")
    for col in ("team", "namespaces", "flavor", "cpu", "memory", "GPUs", "GPU hours/month"):
        table.add_column(col)
    for t in section["teams"]:
        hours = {h["flavor"]: h for h in t["gpuHours"]}
        for flavor in dict.fromkeys(q["flavor"] for q in t["quotas"]):
            cells = {}
            for q in t["quotas"]:
                if q["flavor"] != flavor:
                    continue
                key = "GPUs" if q["resource"] not in ("cpu", "memory") else q["resource"]
                cells[key] = " / ".join(v or "-" for v in (q["nominal"], q["borrowingLimit"], q["lendingLimit"]))
            h = hours.get(flavor)
            table.add_row(
                t["name"],
                ", ".join(t["namespaces"]),
                flavor,
                cells.get("cpu", "0"),
                cells.get("memory", "0"),
                cells.get("GPUs", ""),
                str(h["gpuHoursPerMonth"]) if h else "",
            )
    print_table(console, table)
    caps = Table(title="Flavors: nominal quota of every team / what the group reaches at max size")
    for col in ("flavor", "group", "capacity type", "cpu", "memory", "GPUs"):
        caps.add_column(col)
    for f in section["flavors"]:
        cap = f["capacity"] or {}
        gpu = next((r for r in f["nominalQuota"] if r not in ("cpu", "memory")), None)

        def cell(r: str | None, f: dict[str, Any] = f, cap: dict[str, Any] = cap) -> str:
            if r is None:
                return ""
            return f"{f['nominalQuota'].get(r) or '0'} / {cap.get(r) or 'unbounded'}"

        caps.add_row(
            f["name"], f"{f['group']} ({f['kind']})", f["capacityType"], cell("cpu"), cell("memory"), cell(gpu)
        )
    print_table(console, caps)
    render_team_cost(section, console)
