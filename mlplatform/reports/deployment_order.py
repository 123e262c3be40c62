"""The deployment's order in the plan: what `pulumi up` can create together (waves) and its critical path.

Read back from the dependencies the program sends with each registration (`Recorded.dependencies`:
explicit depends_on and the resources behind input Outputs), as the engine schedules them: a resource
is created once everything it waits for exists. What it waits for:

- its dependencies and its explicit provider (pulumi:providers:kubernetes waits for the kubeconfig);
- its parent when the parent is a custom resource or a remote component (the SDK sends a registration
  only once the parent's URN is known, which in `pulumi up` is after the parent is created), and
  whatever a local component parent waits for (the component's own registration waits for its
  depends_on, and its children wait for its URN).

Local components are not created, so they are not in any wave; a remote component (pulumi_eks) is one
step, its children (built on the engine's side) inside it. Wave 1 waits for nothing.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from mlplatform_core.model.plan_document import ProgramOrder, ResourceRef, Wave
from mlplatform_core.model.resource_types import EKS_CLUSTER, NODE_GROUP, PULUMI_EKS_CLUSTER

from ..engine import ProgramRun, Recorded
from .tables import print_table


def _steps(run: ProgramRun) -> tuple[dict[str, Recorded], dict[str, set[str]]]:
    """The resources `pulumi up` creates (URN -> resource) and, for each, the steps it waits for."""
    by_urn = {r.urn: r for r in run.resources}

    def inside_remote(r: Recorded) -> Recorded | None:
        parent = by_urn.get(r.parent) if r.parent else None
        while parent is not None:
            if parent.remote:
                return parent
            parent = by_urn.get(parent.parent) if parent.parent else None
        return None

    step_of: dict[str, str] = {}  # any recorded URN -> the step that creates it
    for r in run.resources:
        owner = inside_remote(r)
        if owner is not None:
            step_of[r.urn] = owner.urn
        elif r.custom or r.remote:
            step_of[r.urn] = r.urn
    steps = {urn: by_urn[urn] for urn in dict.fromkeys(step_of.values())}

    component_waits: dict[str, set[str]] = {}

    def waits(r: Recorded) -> set[str]:
        out = set(r.dependencies)
        if r.provider:
            out.add(r.provider.rsplit("::", 1)[0])  # a provider reference is <urn>::<id>
        parent = by_urn.get(r.parent) if r.parent else None
        if parent is not None:
            if parent.custom or parent.remote:
                out.add(parent.urn)
            else:
                if parent.urn not in component_waits:
                    component_waits[parent.urn] = waits(parent)
                out |= component_waits[parent.urn]
        return out

    graph = {urn: {step_of[d] for d in waits(r) if d in step_of and step_of[d] != urn} for urn, r in steps.items()}
    return steps, graph


def _waves(steps: dict[str, Recorded], graph: dict[str, set[str]]) -> list[list[Recorded]]:
    wave: dict[str, int] = {}
    for urn in steps:  # iterative depth-first: deep chains must not hit the recursion limit
        stack = [urn]
        while stack:
            top = stack[-1]
            if top in wave:
                stack.pop()
                continue
            todo = [d for d in graph[top] if d not in wave]
            if todo:
                stack.extend(todo)
            else:
                wave[top] = 1 + max((wave[d] for d in graph[top]), default=0)
                stack.pop()
    out: list[list[Recorded]] = [[] for _ in range(max(wave.values(), default=0))]
    for urn, r in steps.items():
        out[wave[urn] - 1].append(r)
    return out


# Steps that take minutes, not seconds: the EKS control plane (pulumi_eks.Cluster builds it) and node groups.
SLOW_TYPES = frozenset({PULUMI_EKS_CLUSTER, EKS_CLUSTER, NODE_GROUP})


def _critical_path(
    steps: dict[str, Recorded], graph: dict[str, set[str]], grouped: list[list[Recorded]]
) -> list[Recorded]:
    if not grouped:
        return []
    wave = {r.urn: i for i, group in enumerate(grouped, 1) for r in group}
    position = {urn: i for i, urn in enumerate(steps)}
    # Of chains equally long in waves, the one through more slow steps (the control plane: "cluster
    # provisioning takes several minutes", EKS user guide clusters/create-cluster.adoc) is the critical one.
    slow: dict[str, int] = {}
    for group in grouped:
        for r in group:
            before = max((slow[u] for u in graph[r.urn]), default=0)
            slow[r.urn] = before + (r.type in SLOW_TYPES)

    def key(u: str) -> tuple[int, int, int]:  # the first in program order on a full tie
        return wave[u], slow[u], -position[u]

    path = [steps[max((r.urn for r in grouped[-1]), key=key)]]
    while graph[path[-1].urn]:  # back along the latest, slowest wait
        path.append(steps[max(graph[path[-1].urn], key=key)])
    return path[::-1]


def waves(run: ProgramRun) -> list[list[Recorded]]:
    """The created resources grouped by the earliest wave `pulumi up` can create them in, in program order."""
    return _waves(*_steps(run))


def critical_path(run: ProgramRun) -> list[Recorded]:
    """One longest chain of waits, from wave 1 to the last wave (the order `pulumi up` cannot shorten)."""
    steps, graph = _steps(run)
    return _critical_path(steps, graph, _waves(steps, graph))


def _ref(r: Recorded) -> ResourceRef:
    return ResourceRef(type=r.type, name=r.name, urn=r.urn)


def order_section(run: ProgramRun) -> ProgramOrder:
    """One program's `waves` (what can be created together, in order) and `criticalPath`."""
    steps, graph = _steps(run)
    grouped = _waves(steps, graph)
    return ProgramOrder(
        program=run.directory,
        project=run.project,
        waves=[Wave(wave=i, resources=[_ref(r) for r in group]) for i, group in enumerate(grouped, 1)],
        critical_path=[_ref(r) for r in _critical_path(steps, graph, grouped)],
    )


def short_type(type_: str) -> str:
    """The short name of a type: NodeGroup for aws:eks/nodeGroup:NodeGroup, kubernetes provider for providers."""
    pkg, _, kind = type_.rpartition(":")
    return f"{kind} provider" if pkg == "pulumi:providers" else kind


def _summary(resources: list[dict[str, str]], names: int = 3) -> str:
    """One line per type: count, short type and the first few names."""
    by_type: dict[str, list[str]] = {}
    for r in resources:
        by_type.setdefault(r["type"], []).append(r["name"])
    lines = []
    for type_, found in by_type.items():
        shown = ", ".join(found[:names]) + (f", ... ({len(found) - names} more)" if len(found) > names else "")
        lines.append(f"{len(found)} x {short_type(type_)}: {shown}")
    return "\n".join(lines)


def render_order(doc: dict[str, Any], console: Console) -> None:
    """One program's waves as a short table, then its critical path on one line."""
    title = f"Deployment waves of {doc['project']} (what its `pulumi up` can create together)"
    table = Table(title=escape(title), title_justify="left")
    for col in ("wave", "resources", "what"):
        table.add_column(col)
    narrow: list[RenderableType] = [Text(title)]
    for w in doc["waves"]:
        table.add_row(str(w["wave"]), str(len(w["resources"])), escape(_summary(w["resources"])))
        narrow.append(Text.from_markup(f"[bold]wave {w['wave']}:[/bold] {len(w['resources'])} resources"))
        narrow.append(Padding(Text(_summary(w["resources"]), overflow="fold"), (0, 0, 0, 2)))
    print_table(console, table, narrow=Group(*narrow))
    if doc["criticalPath"]:
        chain = " -> ".join(f"{r['name']} ({short_type(r['type'])})" for r in doc["criticalPath"])
        # Wrapped with a hanging indent, so the chain never runs into the next section's margin.
        lines = Text(f"critical path: {chain}").wrap(console, max(20, console.width - 6))
        for i, line in enumerate(lines):
            console.print(Text("  " if i == 0 else "      ") + line, soft_wrap=True)
