"""The plan's checks of the teams against the layout and the workload layer, and what their quotas imply.

Refused (each problem names the team(s), the flavor, the value and what would be valid):
- capacity: a flavor's nominal quotas summed over every team (Kueue admits at most that much there, borrowing
  included: a team borrows only what another's nominal quota lends) more than its group can reach at max size
  (flavors.py: allocatable of the largest type x maxSize, capped by a pool's limits);
- a pool without an upper bound (Auto Mode's built-in general-purpose pool, or types the catalog cannot size):
  accepted as a flavor only when each team quotas it with a borrowingLimit on every resource it quotas there,
  so that the team's quota (nominal + borrowingLimit) bounds what Kueue lets the team run on it;
- tolerations: a flavor on the initial group (CriticalAddonsOnly: core services only); a spot flavor while the
  stack's MLRun preemption mode is prevent or none (MLRun then gives jobs no spot toleration, so Kueue, which
  gives a flavor only to workloads tolerating its nodeTaints, would never admit them there);
- priority classes: MLRun's default class (workloads.defaultPriority) not among a team's classes;
- LimitRanges: a namespace whose containers' default request (what a container that asks for nothing gets)
  exceeds the team's largest cpu or memory quota on any flavor (nominal + borrowingLimit), so such a pod could
  never be admitted.
"""

from __future__ import annotations

from fractions import Fraction

from ..config import Problem, show
from ..quantity import parse_quantity
from ..scheduling import CRITICAL_ADDONS_TAINT
from ..workloads import Workloads
from .spec import CPU, MEMORY, Quota, Team, Teams

# The cost model's month (model/cost/prices.py HOURS_PER_MONTH, AWS's 730 hours; a test keeps them equal): the
# teams sit below the cost model, which will price them.
HOURS_PER_MONTH = 730
SPOT_MODES = ("allow", "constrain")  # MLRun's preemption modes that give jobs the spot toleration


def _amount(resource: str, value: Fraction) -> str:
    if resource == MEMORY:
        gib = value / 2**30
        return f"{float(gib):g}Gi" if gib.denominator == 1 or gib > 1 else f"{int(value)}"
    return f"{float(value):g}"


def _capacity_problems(teams: Teams) -> list[Problem]:
    out = []
    for f in teams.flavors:
        users = [(t, q) for t in teams.teams for q in t.quotas if q.flavor == f.name]
        if f.capacity is None:
            for t, q in users:
                if q.borrowing_limit is None:
                    out.append(
                        Problem(
                            q.config_path,
                            f"team {t.name}: flavor {f.name} ({f.kind} with no node limit) has no capacity to check "
                            f"the quota against; set borrowingLimit (0 or more) for {q.resource} so the team's quota "
                            "bounds what it runs there",
                        )
                    )
            continue
        for resource in f.resources:
            quotas = [(t, q) for t, q in users if q.resource == resource]
            total = sum((q.nominal for _, q in quotas), Fraction(0))
            reach = f.capacity.get(resource)
            if reach is None or total <= reach:
                continue
            names = " and ".join(f"{t.name} ({_amount(resource, q.nominal)})" for t, q in quotas)
            out.append(
                Problem(
                    quotas[-1][1].config_path,
                    f"team{'s' if len(quotas) > 1 else ''} {names}: {_amount(resource, total)} {resource} of nominal "
                    f"quota on flavor {f.name}, more than {f.kind} {f.group} can reach at max size "
                    f"({_amount(resource, reach)} on {f.max_nodes} nodes); lower the quotas or raise the group's "
                    f"maxSize ({f.config_path})",
                )
            )
    return out


def _toleration_problems(teams: Teams, workloads: Workloads) -> list[Problem]:
    out = []
    for t in teams.teams:
        for name in t.flavors:
            f = teams.flavor(name)
            where = f"{t.config_path}.quotas.{name}"
            if any(taint.key == CRITICAL_ADDONS_TAINT.key for taint in f.node_taints):
                out.append(
                    Problem(
                        where,
                        f"team {t.name}: {name} is the core services' group (taint {CRITICAL_ADDONS_TAINT}); team "
                        "workloads do not run there; quota a workload group instead",
                    )
                )
            elif f.spot and workloads.preemption_mode not in SPOT_MODES:
                out.append(
                    Problem(
                        where,
                        f"team {t.name}: flavor {name} is spot, and with MLRun's preemption mode "
                        f"{show(workloads.preemption_mode)} jobs do not tolerate spot nodes, so Kueue would never "
                        "admit them there; set workloads.preemptionMode to allow or constrain, or quota an "
                        "on-demand group",
                    )
                )
    return out


def _priority_problems(teams: Teams, workloads: Workloads) -> list[Problem]:
    out = []
    for t in teams.teams:
        if workloads.default_priority_class not in t.priority_classes:
            out.append(
                Problem(
                    f"{t.config_path}.priorityClasses",
                    f"team {t.name}: MLRun gives jobs that name no class {workloads.default_priority_class} "
                    f"(workloads.defaultPriority), which the team may not use ({', '.join(t.priority_classes)}); "
                    "add it, or change workloads.defaultPriority",
                )
            )
    return out


def _ceiling(q: Quota | None) -> Fraction | None:
    """What the team may use of one resource on one flavor: nominal + borrowingLimit (None: unbounded)."""
    if q is None:
        return Fraction(0)
    return None if q.borrowing_limit is None else q.nominal + q.borrowing_limit


def _limit_range_problems(teams: Teams, workloads: Workloads) -> list[Problem]:
    out = []
    for t in teams.teams:
        for ns_name in t.namespaces:
            ns = next((n for n in workloads.namespaces if n.name == ns_name), None)
            if ns is None:
                continue
            for resource in (CPU, MEMORY):
                request = parse_quantity(getattr(ns.limits.default_request, resource))
                ceilings = [_ceiling(t.quota(f, resource)) for f in t.flavors]
                if any(c is None or c >= request for c in ceilings):
                    continue
                best = max(c for c in ceilings if c is not None)
                out.append(
                    Problem(
                        f"{t.config_path}.namespaces",
                        f"team {t.name}: a container in namespace {ns_name} that requests nothing gets {resource} "
                        f"{getattr(ns.limits.default_request, resource)} (its LimitRange), more than the team may "
                        f"use on any flavor ({_amount(resource, best)}); raise the team's {resource} quota or lower "
                        f"workloads.namespaces.{ns_name}.limits.defaultRequest.{resource}",
                    )
                )
    return out


def team_problems(teams: Teams, workloads: Workloads) -> list[Problem]:
    """Every plan check of the teams (module docstring)."""
    return (
        _capacity_problems(teams)
        + _toleration_problems(teams, workloads)
        + _priority_problems(teams, workloads)
        + _limit_range_problems(teams, workloads)
    )


def gpu_hours(team: Team, teams: Teams) -> list[dict[str, object]]:
    """Per GPU flavor of the team: the GPUs of its nominal quota and the GPU hours a month they imply (every GPU
    of the quota busy every hour), and with a borrowingLimit the most it may reach borrowing."""
    out = []
    for name in team.flavors:
        f = teams.flavor(name)
        if f.gpu_resource is None:
            continue
        q = team.quota(name, f.gpu_resource)
        if q is None:
            continue
        row: dict[str, object] = {
            "flavor": name,
            "resource": f.gpu_resource,
            "nominal": int(q.nominal),
            "gpuHoursPerMonth": int(q.nominal * HOURS_PER_MONTH),
        }
        if q.borrowing_limit is not None:
            row["withBorrowingHoursPerMonth"] = int((q.nominal + q.borrowing_limit) * HOURS_PER_MONTH)
        out.append(row)
    return out
