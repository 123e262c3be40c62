"""`mlplatform check` for people: rules evaluated, violations with their remediation, the verdict."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def render_check(doc: dict[str, Any], console: Console) -> None:
    where = f", policy config {doc['policyConfig']}" if doc["policyConfig"] else ""
    console.print(f"[bold]Policy check for stack {doc['stack']}[/bold] ({doc['source']}{where})")
    disabled = [r["name"] for r in doc["rules"] if r["level"] == "disabled"]
    changed = [
        f"{r['name']}={r['level']}"
        for r in doc["rules"]
        if r["level"] != r["defaultLevel"] and r["level"] != "disabled"
    ]
    console.print(
        f"  {len(doc['rules']) - len(disabled)} rules evaluated"
        + (f"; disabled: {', '.join(disabled)}" if disabled else "")
        + (f"; changed by policy config: {', '.join(changed)}" if changed else "")
    )
    if doc["violations"]:
        table = Table(show_lines=True)
        for col in ("rule", "resource", "level", "message"):
            table.add_column(col)
        for v in doc["violations"]:
            resource = f"{v['resource_name']}\n({v['resource_type']})" if v["resource_name"] else "(stack)"
            style = "red" if v["level"] == "mandatory" else "yellow"
            table.add_row(v["policy"], escape(resource), f"[{style}]{v['level']}[/{style}]", escape(v["message"]))
        console.print(table)
        console.print("[bold]How to fix[/bold]")
        for name in dict.fromkeys(v["policy"] for v in doc["violations"]):
            rule = next(r for r in doc["rules"] if r["name"] == name)
            console.print(f"  {name}: {escape(rule['remediation'] or rule['description'])}")
    verdict = "[green]passed[/green]" if doc["passed"] else "[red]failed[/red]"
    console.print(f"\n{verdict}: {doc['mandatory']} mandatory, {doc['advisory']} advisory violation(s)")
