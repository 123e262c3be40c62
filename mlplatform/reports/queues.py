"""`mlplatform place`: Kueue's answer for a workload of a team namespace (placement/queues.py), for people."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from mlplatform_core.placement.queues import QueueAnswer


def queue_lines(answer: QueueAnswer) -> list[str]:
    """The answer in lines of console markup: the queue, each pod set's flavor, the quota it takes, or why it waits."""
    if not answer.managed:
        return [f"[bold]queue:[/bold] none: {escape(n)}" for n in answer.notes]
    head = f"[bold]queue:[/bold] LocalQueue {escape(answer.namespace)}/{escape(answer.local_queue or '')}"
    if answer.cluster_queue:
        head += f" -> ClusterQueue {escape(answer.cluster_queue)} (team {escape(answer.team or '')})"
    lines = [head]
    for p in answer.podsets:
        if p.flavor:
            borrow = ", borrowing in the cohort" if p.borrows else ""
            lines.append(f"  {escape(p.name)} ({p.pods} pod(s)): flavor [green]{escape(p.flavor)}[/green]{borrow}")
        for r in p.reasons:
            lines.append(f"    {'skipped' if p.flavor else 'no'} {escape(r)}")
    if answer.usage:
        used = ", ".join(f"{a} {r} on {f}" for f, r, a in answer.usage)
        lines.append(f"  admitted: takes {escape(used)} of the team's quota")
    for w in answer.waits:
        lines.append(f"  [bold red]waits[/bold red]: {escape(w)}")
    lines += [f"  note: {escape(n)}" for n in answer.notes]
    return lines


def render_queue(answer: QueueAnswer | None, first: bool, console: Console) -> None:
    """Said once per workload, before its first pod set's placement."""
    if answer is None or not first:
        return
    for line in queue_lines(answer):
        console.print(line)


def render_landing(result: object, console: Console) -> None:
    """After a pod set's placement: the groups the pod Kueue starts (with its flavor's labels) lands on."""
    answer: QueueAnswer | None = getattr(result, "queue", None)
    ranking = getattr(result, "ranking", ())
    if answer is None or not answer.admitted or not ranking:
        return
    flavors = ", ".join(answer.flavors)
    console.print(f"  [bold]lands on:[/bold] {escape(', '.join(ranking))} (Kueue's flavor {escape(flavors)})")
