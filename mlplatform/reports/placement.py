"""Placement for people and machines: the plan's matrix and JSON section, and `mlplatform place` output.

`placement_matrix` and `placement_section` are plain data; the `*_table` and
`render_*` functions draw them with rich. The plan calls `placement_section` for
its JSON and `render_placement` for its human view, so the wording lives here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.table import Column, Table
from rich.text import Text

from mlplatform_core.model.layout import Layout
from mlplatform_core.model.plan_document import (
    GroupPlacement,
    NodeTemplate,
    Placement,
    PlacementError,
    PlacementProfile,
    dump,
)
from mlplatform_core.model.plan_document import (
    MatrixCell as CellView,
)
from mlplatform_core.model.plan_document import (
    MatrixRow as RowView,
)
from mlplatform_core.model.plan_document import (
    PlacementMatrix as MatrixView,
)
from mlplatform_core.placement.filters import PodPlacement, place
from mlplatform_core.placement.invariants import InvariantReport, check_layout
from mlplatform_core.placement.profiles import Profile, ProfileInputs
from mlplatform_core.placement.templates import node_templates

from ..documents import SCHEMA_VERSION
from .queues import render_landing, render_queue
from .tables import print_table


@dataclass(frozen=True)
class Cell:
    schedulable: bool
    short: str  # "" when schedulable; else e.g. "taint app.iguazio.com/lifecycle; affinity"
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class MatrixRow:
    profile: str
    description: str
    cells: tuple[Cell, ...]  # one per group, in the matrix's group order


@dataclass(frozen=True)
class PlacementMatrix:
    groups: tuple[str, ...]
    rows: tuple[MatrixRow, ...]

    def cell(self, profile: str, group: str) -> Cell:
        row = next(r for r in self.rows if r.profile == profile)
        return row.cells[self.groups.index(group)]

    def to_dict(self) -> dict[str, Any]:
        return dump(self.view())

    def view(self) -> MatrixView:
        """The matrix as the plan document's `placement.matrix`."""
        return MatrixView(
            groups=list(self.groups),
            rows=[
                RowView(
                    profile=r.profile,
                    description=r.description,
                    cells={
                        g: CellView(schedulable=c.schedulable, short=c.short, reasons=list(c.reasons))
                        for g, c in zip(self.groups, r.cells, strict=True)
                    },
                )
                for r in self.rows
            ],
        )


def _row(profile: Profile, result: PodPlacement) -> MatrixRow:
    cells = tuple(Cell(g.schedulable, g.short, tuple(r.message for r in g.reasons)) for g in result.groups)
    return MatrixRow(profile.name, profile.description, cells)


def placement_matrix(layout: Layout, profiles: Sequence[Profile]) -> PlacementMatrix:
    """Profiles x node groups: whether each profile's pods can land, with a short reason where not."""
    groups = tuple(name for name, _ in layout.node_sources)
    return PlacementMatrix(groups, tuple(_row(p, place(p.pod(), layout)) for p in profiles))


def matrix_from_report(layout: Layout, report: InvariantReport) -> PlacementMatrix:
    return PlacementMatrix(
        tuple(name for name, _ in layout.node_sources), tuple(_row(p, result) for p, result in report.placements)
    )


def placement_section(
    layout: Layout, inputs: ProfileInputs | None = None, report: InvariantReport | None = None
) -> Placement:
    """The `placement` key of `mlplatform plan --json`: templates, the matrix, invariant errors and notes."""
    report = report or check_layout(layout, inputs)
    return Placement(
        node_templates=[NodeTemplate.model_validate(t.to_dict()) for t in node_templates(layout)],
        profiles=[
            PlacementProfile(
                name=p.name,
                description=p.description,
                reaches=list(result.reachable),
                preemption_mode=p.preemption_mode,
                per_node=p.per_node,
                groups=[GroupPlacement.model_validate(g.to_dict()) for g in result.groups],
            )
            for p, result in report.placements
        ],
        matrix=matrix_from_report(layout, report).view(),
        ok=report.ok,
        errors=[PlacementError(profile=f.profile, message=f.message) for f in report.errors],
        notes=list(report.notes),
    )


# --- rich views -----------------------------------------------------------------------------------


MATRIX_TITLE = "Placement (profiles x node groups)"


def matrix_table(matrix: PlacementMatrix) -> Table:
    table = Table(title=MATRIX_TITLE, title_justify="left", show_lines=True)
    table.add_column("profile")
    for g in matrix.groups:
        table.add_column(g)
    for row in matrix.rows:
        cells = ["[green]yes[/green]" if c.schedulable else f"[red]no[/red]: {escape(c.short)}" for c in row.cells]
        table.add_row(escape(row.profile), *cells)
    return table


def matrix_by_profile(matrix: PlacementMatrix) -> RenderableType:
    """The matrix for narrow consoles: per profile, the groups it lands on, then the others with why not."""
    rows: list[RenderableType] = [Text(MATRIX_TITLE)]
    for row in matrix.rows:
        cells = list(zip(matrix.groups, row.cells, strict=True))
        rows.append(Text.from_markup(f"[bold]profile:[/bold] {escape(row.profile)}"))
        grid = Table.grid(Column(no_wrap=True), Column(overflow="fold"), padding=(0, 2))
        grid.add_row("[green]yes[/green]", escape(", ".join(g for g, c in cells if c.schedulable) or "-"))
        grid.add_row(
            "[red]no[/red]", escape(", ".join(f"{g} ({c.short})" for g, c in cells if not c.schedulable) or "-")
        )
        rows.append(Padding(grid, (0, 0, 0, 2)))
    return Group(*rows)


def render_placement(
    layout: Layout, console: Console, inputs: ProfileInputs | None = None, report: InvariantReport | None = None
) -> InvariantReport:
    """The plan's placement view: the matrix, then invariant errors and notes. Returns the report."""
    report = report or check_layout(layout, inputs)
    matrix = matrix_from_report(layout, report)
    print_table(console, matrix_table(matrix), narrow=matrix_by_profile(matrix))
    for note in report.notes:
        console.print(f"  note: {escape(note)}")
    if report.errors:
        console.print("[bold red]Placement invariants broken:[/bold red]")
        for f in report.errors:
            console.print(f"  [red]error[/red] {escape(str(f))}")
    else:
        console.print("  placement invariants: all hold")
    return report


def place_pod(result: PodPlacement) -> dict[str, Any]:
    """One pod of `mlplatform place --json`, every documented key present (empty lists, a null namespace)."""
    found = result.to_dict()
    keys = ("name", "namespace", "replicas", "groups", "ranking", "rejected", "notes", "warnings", "queue")
    return {k: found.get(k, None if k in ("namespace", "replicas", "queue") else []) for k in keys} | found


def write_place_document(
    results: Iterable[PodPlacement], notes: Callable[[], Sequence[str]], stack: str | None, out: TextIO
) -> None:
    """`mlplatform place --json`: {"schemaVersion", "stack", "pods": [{"name", "namespace", "replicas", "groups":
    [{"name", "schedulable", "reasons"}], "ranking", "rejected", "notes", "warnings", "queue"}], "notes"}, written
    as the pods are placed: one pod per line, so memory stays flat for any number of pods. A pod the API server
    refuses has no groups and its reasons under "rejected"; "replicas" is how many pods of an operator's role run
    at once (null for a plain object); "queue" Kueue's answer for the pod's workload on a stack with teams
    (placement/queues.py QueueAnswer.to_dict; null without teams); "notes" on the manifest as a whole, asked for
    once every pod is out (what the manifest skipped is known only then). Every key is always there."""
    head = json.dumps({"schemaVersion": SCHEMA_VERSION, "stack": stack}, indent=2)[:-2]
    out.write(head + ',\n  "pods": [')
    for i, result in enumerate(results):
        out.write(("," if i else "") + "\n    " + json.dumps(place_pod(result), default=str))
    out.write('\n  ],\n  "notes": ' + json.dumps(list(notes())) + "\n}\n")


def _title(result: PodPlacement) -> str:
    """The pod's name, with how many pods of the spec an operator runs (x 3 pods)."""
    many = "" if result.replicas is None else f" (x {result.replicas} pod{'' if result.replicas == 1 else 's'})"
    return f"{result.pod.name}{many}"


def place_table(result: PodPlacement) -> Table:
    table = Table(title=escape(_title(result)), title_justify="left", show_lines=True)
    for col in ("node group", "schedulable", "reasons"):
        table.add_column(col)
    ok = [g for g in result.groups if g.schedulable]
    # Only worth saying when preferences tell the groups apart.
    levels = sorted({(-g.score, len(g.prefer_not)) for g in ok})
    for g in result.groups:
        if g.schedulable:
            verdict = "[green]yes[/green]"
            detail = [f"on {', '.join(g.instance_types)}"]
            if len(levels) > 1:
                rank = levels.index((-g.score, len(g.prefer_not))) + 1
                detail.append(
                    ("preferred" if rank == 1 else f"preference rank {rank}") + f" (node affinity score {g.score})"
                )
            detail += [f"untolerated PreferNoSchedule taint {t} lowers its rank" for t in g.prefer_not]
        else:
            verdict = "[red]no[/red]"
            detail = [r.message for r in g.reasons]
        detail += [f"note: {n}" for n in g.notes]
        table.add_row(escape(g.group), verdict, escape("\n".join(detail)))
    return table


def render_place(
    results: Iterable[PodPlacement], console: Console, notes: Callable[[], Sequence[str]] | Sequence[str] = ()
) -> None:
    """Each pod's verdict as it is placed, then the manifest's notes (`notes` may be asked for at the end)."""
    for result in results:
        # A stack with teams: Kueue's answer for the workload first (reports/queues.py).
        render_queue(getattr(result, "queue", None), getattr(result, "first_of_workload", False), console)
        if result.rejected:
            console.print(f"[bold]{escape(_title(result))}[/bold]")
            console.print("  [bold red]rejected by the API server[/bold red] (never created, never scheduled):")
            for reason in result.rejected:
                console.print(f"    {escape(reason)}")
        else:
            print_table(console, place_table(result))
            render_landing(result, console)
        for note in result.notes:
            console.print(f"  note: {escape(note)}")
        for w in result.pod.warnings:
            console.print(f"  [yellow]warning[/yellow] {escape(w)}")
        if not result.reachable and not result.rejected:
            console.print("  [bold red]no node group can run this pod; it would stay Pending[/bold red]")
        console.print()
    for note in notes() if callable(notes) else notes:
        console.print(f"note: {escape(note)}")
