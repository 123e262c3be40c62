"""`build_teams`: the stack's `teams` settings against its layout and workload layer, as Kueue's objects' data.

Every problem is raised at once as a ConfigError whose key path names the team and the setting, with the value
and what would be valid: a group the layout does not have (did you mean), a GPU quota on a group without GPUs,
a namespace that is no workload namespace, a priority class the stack does not install. The checks against
capacity and tolerations are the plan's (checks.py).
"""

from __future__ import annotations

from .. import addon_versions as versions
from ..config import ConfigError, Problem, StackConfig, key_path, show
from ..config.messages import did_you_mean
from ..config.teams import QUOTA_RESOURCES, TeamSettings
from ..layout import Layout
from ..workloads import Workloads
from .checks import team_problems
from .flavors import flavor_of
from .integrations import INTEGRATIONS
from .spec import CPU, MEMORY, Flavor, Quota, Team, Teams, WorkloadPriority

_ROOT = "teams"


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _priority_classes(name: str, t: TeamSettings, workloads: Workloads, add) -> tuple[str, ...]:
    classes = workloads.workload_classes
    if t.priority_classes is None:
        return tuple(p.name for p in classes)
    by_word = {p.tier.removeprefix("workload-"): p.name for p in classes} | {p.name: p.name for p in classes}
    out = []
    for i, word in enumerate(t.priority_classes):
        if word in by_word:
            out.append(by_word[word])
            continue
        near = did_you_mean(word, list(by_word))
        hint = f"; did you mean {near}?" if near else ""
        valid = ", ".join(by_word)
        add(
            (name, "priorityClasses", i),
            f"{show(word)} is not a workload priority class of the stack{hint} (valid: {valid})",
        )
    return tuple(dict.fromkeys(out))


def _quotas(name: str, t: TeamSettings, flavors: dict[str, Flavor], groups: list[str], add) -> list[Quota]:
    out: list[Quota] = []
    for group, fq in t.quotas.items():
        path = (name, "quotas", group)
        if group not in flavors:
            near = did_you_mean(group, groups)
            hint = f"did you mean {near}? " if near else ""
            add(path, f"{show(group)} is not a node group or pool of the stack; {hint}valid: {', '.join(groups)}")
            continue
        flavor = flavors[group]
        for resource, q in fq.resources().items():
            if resource == "gpu" and flavor.gpu_resource is None:
                gpu_groups = [f.name for f in flavors.values() if f.gpu_resource]
                add(
                    path + ("gpu",),
                    f"group {group} has no GPUs, so a GPU quota there admits nothing; "
                    f"quota GPUs on a GPU group ({', '.join(gpu_groups) or 'the stack has none'})",
                )
                continue
            nominal, borrowing, lending = q.amounts(resource)
            out.append(
                Quota(
                    flavor=group,
                    resource=flavor.gpu_resource if resource == "gpu" else resource,  # type: ignore[arg-type]
                    nominal=nominal,
                    borrowing_limit=borrowing,
                    lending_limit=lending,
                    text=_text(q.nominal),
                    borrowing_text=None if q.borrowing_limit is None else _text(q.borrowing_limit),
                    lending_text=None if q.lending_limit is None else _text(q.lending_limit),
                    config_path=key_path(_ROOT, *path, resource),
                )
            )
        if fq.gpu is not None and flavor.gpu_resource and (fq.cpu is None or fq.memory is None):
            missing = " and ".join(r for r in (CPU, MEMORY) if getattr(fq, r) is None)
            add(
                path,
                f"quotas GPUs but no {missing}: a GPU pod also requests cpu and memory, and with no quota of them "
                f"on {group} Kueue admits it only on what other teams lend; add {missing} (e.g. cpu: {{nominal: 8}})",
            )
    return out


def build_teams(cfg: StackConfig, layout: Layout, workloads: Workloads) -> Teams | None:
    """The stack's teams as Kueue data, or None when the stack has none (then nothing of Kueue is created).
    Raises ConfigError listing every problem."""
    if not cfg.teams:
        return None
    problems: list[Problem] = []
    if gap := versions.coverage_problem([versions.KUEUE], cfg.kubernetes_version):
        problems.append(Problem(key_path("kubernetesVersion"), f"teams need Kueue: {gap}"))

    def add(path: tuple, message: str) -> None:
        problems.append(Problem(key_path(_ROOT, *path), message))

    all_flavors = {g.name: flavor_of(layout, g) for g in layout.groups}
    groups = list(all_flavors)
    namespaces = {ns.name for ns in workloads.namespaces}
    teams: list[Team] = []
    for name, t in cfg.teams.items():
        for i, ns in enumerate(t.namespaces):
            if ns not in namespaces:
                add(
                    (name, "namespaces", i),
                    f"{show(ns)} is not a workload namespace of the stack, so it would have no LimitRange; "
                    f"add it under workloads.namespaces (workload namespaces now: {', '.join(sorted(namespaces))})",
                )
        quotas = _quotas(name, t, all_flavors, groups, add)
        teams.append(
            Team(
                name=name,
                namespaces=tuple(t.namespaces),
                cohort=t.cohort,
                weight=_text(t.fair_share_weight),
                priority_classes=_priority_classes(name, t, workloads, add),
                quotas=tuple(quotas),
                config_path=key_path(_ROOT, name),
            )
        )
    if problems:
        raise ConfigError(problems)
    used = dict.fromkeys(q.flavor for t in teams for q in t.quotas)
    out = Teams(
        environment=cfg.environment,
        flavors=tuple(all_flavors[g] for g in groups if g in used),
        teams=tuple(teams),
        priorities=tuple(WorkloadPriority(p.name, p.value, p.description) for p in workloads.workload_classes),
        integrations=INTEGRATIONS,
    )
    if problems := team_problems(out, workloads):
        raise ConfigError(problems)
    return out


__all__ = ["QUOTA_RESOURCES", "build_teams"]
