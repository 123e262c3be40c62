"""How `mlplatform plan` ends: the broken placement invariants again, then one line that sums the plan up.

A plan's tables run to hundreds of lines; whoever reads only its end (a CI log, `| tail`) still sees
the groups, the resources, the placement verdict and that the policy pack did not run.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from ..plan import Plan


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def placement_verdict(plan: Plan) -> str:
    errors = len(plan.placement.errors)
    return "invariants hold" if not errors else f"{_count(errors, 'invariant')} BROKEN"


def summary_line(plan: Plan, doc: dict[str, Any], policy: str | None = None) -> str:
    """`dev: 5 node groups, 117 resources, placement: invariants hold, policy: not run`: within 100 columns
    for `| tail -1` and CI logs. `plan` does not run the policy pack, so it says so instead of a verdict
    (`check` gives its verdict as `policy`)."""
    groups = _count(len(doc["nodeGroups"]), "node group")
    if doc["nodePools"]:
        groups += f", {_count(len(doc['nodePools']), 'NodePool')}"
    return (
        f"{plan.stack}: {groups}, {_count(doc['resourceCount'], 'resource')}, placement: {placement_verdict(plan)}, "
        f"policy: {policy or 'not run'}"
    )


def render_closing(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    """The broken placement invariants (shown with the matrix too), then the summary line."""
    if plan.placement.errors:
        console.print(f"\n[bold red]{_count(len(plan.placement.errors), 'placement invariant')} broken:[/bold red]")
        for f in plan.placement.errors:
            console.print(f"  [red]error[/red] {escape(str(f))}")
    console.print(f"\nThe policy pack did not run: `mlplatform check {escape(plan.stack)}` runs it.")
    console.print()
    # one line, for `| tail -1` and CI logs (a long stack name can make it wider: a terminal wraps it)
    console.print(f"[bold]{escape(summary_line(plan, doc))}[/bold]", soft_wrap=True)
