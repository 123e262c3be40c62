"""`mlplatform check` for people: rules evaluated, violations with their remediation, the verdict."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..stacks import NAMED_BY_FILE, file_name_note
from .tables import print_table


def count(n: int, noun: str) -> str:
    """`1 rule`, `2 rules`, `0 mandatory violations`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def verdict_line(doc: dict[str, Any]) -> str:
    """`passed: 0 mandatory violations, 1 advisory violation`."""
    verdict = "passed" if doc["passed"] else "failed"
    return (
        f"{verdict}: {count(doc['mandatory'], 'mandatory violation')}, {count(doc['advisory'], 'advisory violation')}"
    )


def render_check(doc: dict[str, Any], console: Console) -> None:
    where = f", policy config {doc['policyConfig']}" if doc["policyConfig"] else ""
    console.print(f"[bold]Policy check for stack {escape(doc['stack'])}[/bold] ({escape(doc['source'] + where)})")
    if doc["stackNamedBy"] == NAMED_BY_FILE:
        console.print(f"  [yellow]note[/yellow] {escape(file_name_note(doc['stack'], doc['source']))}")
    disabled = [r["name"] for r in doc["rules"] if r["level"] == "disabled"]
    changed = [
        f"{r['name']}={r['level']}"
        for r in doc["rules"]
        if r["level"] != r["defaultLevel"] and r["level"] != "disabled"
    ]
    console.print(
        f"  {count(len(doc['rules']) - len(disabled), 'rule')} evaluated"
        + (f"; disabled: {', '.join(disabled)}" if disabled else "")
        + (f"; changed by policy config: {', '.join(changed)}" if changed else "")
    )
    if doc["violations"]:
        table = Table(show_lines=True)
        for col in ("rule", "resource", "level", "message"):
            table.add_column(col)
        for v in doc["violations"]:
            resource = f"{v['resourceName']}\n({v['resourceType']})" if v["resourceName"] else "(stack)"
            style = "red" if v["level"] == "mandatory" else "yellow"
            table.add_row(v["policy"], escape(resource), f"[{style}]{v['level']}[/{style}]", escape(v["message"]))
        print_table(console, table)
        console.print("[bold]How to fix[/bold]")
        for name in dict.fromkeys(v["policy"] for v in doc["violations"]):
            rule = next(r for r in doc["rules"] if r["name"] == name)
            console.print(f"  {name}: {escape(rule['remediation'] or rule['description'])}")
    line = verdict_line(doc)
    verdict, rest = line.split(":", 1)
    style = "green" if doc["passed"] else "red"
    console.print(f"\n[{style}]{verdict}[/{style}]:{escape(rest)}")
