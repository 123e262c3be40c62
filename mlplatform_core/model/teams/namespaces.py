"""Each team namespace labelled with the team's key, `mlplatform.io/team: <team>`.

The label names the team on the namespace for people, policies and cost tools that read namespace labels (the
pack, Kubecost/OpenCost). AWS split cost allocation data imports pod labels, not namespace labels
(docs.aws.amazon.com/cur/latest/userguide/split-cost-allocation-data-kubernetes-labels.html), so the bill sees the
key only on pods whose tool sets it (model/ml_settings/teams.py exports it per team); every pod is also billed
under `aws:eks:namespace`, which the plan's cost per team lists next to the key.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

from ..config import Problem, key_path, show
from ..workloads import Workloads
from .manifests import TEAM_LABEL
from .spec import Teams


def label_team_namespaces(workloads: Workloads, teams: Teams | None) -> tuple[Workloads, list[Problem]]:
    """The workload layer with the team label on each team namespace, or the namespaces whose own labels
    (workloads.namespaces.<ns>.labels) give the key another value."""
    if teams is None:
        return workloads, []
    problems, out = [], []
    for ns in workloads.namespaces:
        team = teams.team_of(ns.name)
        if team is None:
            out.append(ns)
            continue
        given = ns.labels.get(TEAM_LABEL)
        if given is not None and given != team.name:
            problems.append(
                Problem(
                    key_path("workloads", "namespaces", ns.name, "labels", TEAM_LABEL),
                    f"{show(given)} names another team than {team.name}, whose namespace it is (teams.{team.name}); "
                    f"remove the label: the stack sets {TEAM_LABEL}: {team.name}",
                )
            )
        out.append(dataclasses.replace(ns, labels=MappingProxyType({**ns.labels, TEAM_LABEL: team.name})))
    return dataclasses.replace(workloads, namespaces=tuple(out)), problems
