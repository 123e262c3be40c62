"""The views of `mlplatform diff`: the JSON document, tables grouped by action, and Markdown for a PR comment."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlplatform_core.change import replacement
from mlplatform_core.change.diff import ACTION_ORDER, diff_documents
from mlplatform_core.model import provisioners

from ..documents import SCHEMA_VERSION
from .tables import print_table

STYLE = {"replace": "red bold", "delete": "red", "roll": "yellow", "update": "cyan", "create": "green", "same": "dim"}


def diff_document(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`mlplatform diff --json`: {"schemaVersion", "stack", "before", "resources", "nodeGroups", ...}."""
    diff = diff_documents(before, after)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "stack": after["stack"],
        "source": after["source"],
        "before": {"stack": before.get("stack"), "source": before.get("source")},
        **diff,
        "replacementFacts": replacement.source(),
    }


def _before(doc: dict[str, Any]) -> str:
    b = doc["before"]
    return f"{b.get('document') or 'BEFORE'} (the plan of {b.get('source')})"


def _order(r: dict[str, Any]) -> str:
    if r["action"] != "replace":
        return ""
    return r["order"] + (f": {r['note']}" if r.get("note") else "")


# The NodePools of each provisioner that makes them, titled as `plan` titles them (reports/node_pools.py).
POOLS = {p.name: f"{p.flavor.title} NodePools" for p in provisioners.every() if p.flavor is not None}


def _sections(doc: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(title, entries): the node groups, then the NodePools of each provisioner (a stack moving from Karpenter
    to Auto Mode has both)."""
    out = [("Node groups", doc.get("nodeGroups") or [])]
    pools = doc.get("nodePools") or []
    out += [(title, [p for p in pools if p.get("provisioner", "karpenter") == who]) for who, title in POOLS.items()]
    return [(title, entries) for title, entries in out if entries]


def _last_column(doc: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The resources table's last column: a replacement's order (and why), another change's note. Left out
    when no row has either (a create has no order), titled for what it holds."""
    cells = [_order(r) or r.get("note") or "" for r in doc["resources"]]
    replaces = any(r["action"] == "replace" for r in doc["resources"])
    notes = any(r.get("note") and r["action"] != "replace" for r in doc["resources"])
    title = "order / note" if replaces and notes else "order" if replaces else "note" if notes else None
    return title, cells


def _displaced(g: dict[str, Any]) -> str:
    parts = []
    for d in g["displaced"]:
        where = f"-> {', '.join(d['elsewhere'])}" if d["elsewhere"] else ("waits" if d["waits"] else "moves within")
        where = "removed" if d.get("removed") else where
        parts.append(f"{d['workload']} ({where})" + (" EVICTED (prevent mode)" if d.get("evicted") else ""))
    return "; ".join(parts) or "-"


def render_diff(doc: dict[str, Any], console: Console) -> None:
    counts = ", ".join(f"{n} {a}" for a, n in doc["counts"].items() if n) or "no change"
    step = doc["kubernetesVersion"]
    console.print(f"[bold]Diff of stack {escape(doc['stack'])}[/bold] against {escape(_before(doc))}: {counts}")
    if step["from"] != step["to"]:
        console.print(f"  Kubernetes {step['from']} -> {step['to']}")
    if doc["resources"]:
        table = Table(title="Resources (replacements first)", title_justify="left", show_lines=True)
        last, cells = _last_column(doc)
        for col in ("action", "resource", "type", "changed inputs", *([last] if last else [])):
            table.add_column(col)
        for r, cell in zip(doc["resources"], cells, strict=True):
            style = STYLE[r["action"]]
            table.add_row(
                f"[{style}]{r['action']}[/{style}]",
                escape(r["name"]),
                escape(r["type"]),
                escape(", ".join(r["fields"]) or "-"),
                *([escape(cell)] if last else []),
            )
        print_table(console, table)
    for title, entries in _sections(doc):
        table = Table(title=title, title_justify="left", show_lines=True)
        for col in ("group", "action", "changed inputs", "nodes at most", "displaced workloads"):
            table.add_column(col)
        for g in entries:
            style = STYLE[g["action"]]
            nodes = "-" if g["nodesAtMost"] is None else str(g["nodesAtMost"])
            if g.get("batch"):
                first = f", up to {g['surge']} added first" if g.get("surge") else ""
                nodes += f" ({g['batch']} at a time{first})"
            table.add_row(
                escape(g["name"]),
                f"[{style}]{g['action']}[/{style}]",
                escape(", ".join(g["fields"]) or "-"),
                nodes,
                escape(_displaced(g)),
            )
        print_table(console, table)
        for g in entries:
            if g.get("note"):
                console.print(f"  {escape(g['name'])}: {escape(g['note'])}")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "-"


def diff_markdown(doc: dict[str, Any]) -> str:
    """A pull-request comment: a heading, the counts, then a table per section, replacements first."""
    counts = ", ".join(f"{n} {a}" for a, n in doc["counts"].items() if n) or "no change"
    lines = [f"### mlplatform diff: `{doc['stack']}`", "", f"Against {_before(doc)}: **{counts}**.", ""]
    step = doc["kubernetesVersion"]
    if step["from"] != step["to"]:
        lines += [f"Kubernetes {step['from']} → {step['to']}.", ""]
    if doc["resources"]:
        last, _ = _last_column(doc)
        head = ["action", "resource", "type", "changed inputs", *([last] if last else [])]
        lines += ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        for a in ACTION_ORDER:
            for r in (r for r in doc["resources"] if r["action"] == a):
                cells = [f"**{a}**", f"`{_cell(r['name'])}`", f"`{r['type']}`", _cell(", ".join(r["fields"]))]
                cells += [_cell(_order(r) or r.get("note") or "")] if last else []
                lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    for title, entries in _sections(doc):
        lines += [
            f"#### {title}",
            "",
            "| group | action | changed inputs | nodes at most | displaced workloads |",
            "| --- | --- | --- | --- | --- |",
        ]
        for g in entries:
            nodes = "-" if g["nodesAtMost"] is None else str(g["nodesAtMost"])
            lines.append(
                f"| {g['name']} | {g['action']} | {_cell(', '.join(g['fields']))} | {nodes} | {_cell(_displaced(g))} |"
            )
        lines.append("")
        lines += [f"- `{g['name']}`: {g['note']}" for g in entries if g.get("note")]
        if any(g.get("note") for g in entries):
            lines.append("")
    return "\n".join(lines)
