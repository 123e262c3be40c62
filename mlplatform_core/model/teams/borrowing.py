"""How much of one resource a team may use on one flavor: its nominal quota and what it may borrow there.

Kueue (pkg/cache/scheduler/resource_node.go potentialAvailable, read at the pinned tag): with nothing running, a
ClusterQueue reaches its nominal quota plus what the cohort's other ClusterQueues lend (each its nominal quota, or
its lendingLimit when set), capped at nominal + borrowingLimit. A resource the team does not quota on the flavor
has nominal 0 there (it may still borrow). Used by `place`'s queue answers (placement/queues.py) and the cost per
team (model/cost/teams.py).
"""

from __future__ import annotations

from fractions import Fraction

from .spec import Team, Teams


def lent(teams: Teams, team: Team, flavor: str, resource: str) -> Fraction:
    """What the other teams of the team's cohort lend of one resource on one flavor."""
    out = Fraction(0)
    for other in teams.teams:
        if other.name == team.name or other.cohort != team.cohort:
            continue
        if (q := other.quota(flavor, resource)) is not None:
            out += q.nominal if q.lending_limit is None else min(q.lending_limit, q.nominal)
    return out


def reach(teams: Teams, team: Team, flavor: str, resource: str) -> tuple[Fraction, Fraction]:
    """(nominal, the most it may borrow) of one resource on one flavor."""
    q = team.quota(flavor, resource)
    nominal = q.nominal if q else Fraction(0)
    cohort = lent(teams, team, flavor, resource)
    borrow = cohort if q is None or q.borrowing_limit is None else min(q.borrowing_limit, cohort)
    return nominal, borrow
