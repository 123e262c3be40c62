"""Several stacks in one command: one result per stack, a summary line each, one exit code (the worst)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..documents import SCHEMA_VERSION, shown_path
from ..exit_codes import EXIT_BAD_INPUT
from .json_writer import write_json
from .markdown import markdown_document
from .stack_result import StackResult
from .tables import print_table


def worst_exit(results: list[StackResult]) -> int:
    """One exit code for the run: the worst stack's (2 bad input > 1 failed > 0 ok)."""
    return max((r.exit_code for r in results), default=0)


def multi_document(results: list[StackResult]) -> dict[str, Any]:
    """The --json document of several stacks: each stack's own document (or its error) with its exit code."""
    stacks = []
    for r in results:
        if r.document is not None:
            stacks.append({**r.document, "exitCode": r.exit_code})
        else:
            source = shown_path(r.source) if r.source else None
            stacks.append({"stack": r.stack, "source": source, "error": r.error, "exitCode": r.exit_code})
    return {"schemaVersion": SCHEMA_VERSION, "stacks": stacks, "exitCode": worst_exit(results)}


def render_summary(command: str, results: list[StackResult], console: Console) -> None:
    """One line per stack, then the run's exit code."""
    table = Table(title=f"{command}: {len(results)} stacks", title_justify="left")
    for col in ("stack", "exit", "result"):
        table.add_column(col)
    for r in results:
        style = {0: "green", 1: "red"}.get(r.exit_code, "red bold")
        text = r.summary if r.exit_code != EXIT_BAD_INPUT or not r.error else f"error: {r.error}"
        table.add_row(escape(r.label), f"[{style}]{r.exit_code}[/{style}]", escape(text))
    print_table(console, table)
    console.print(f"exit {worst_exit(results)} (the worst of the stacks: 2 bad input > 1 failed > 0 ok)")


def finish(command: str, results: list[StackResult], console: Console | None, several: bool, fmt: str) -> int:
    """The end of a command over one or more stacks: the JSON document (one stack's, or all of them with
    the exit code), the Markdown document, or, for several stacks in tables, the summary; then the exit
    code, the worst."""
    if fmt == "json":
        if not several:
            if results[0].document is not None:
                write_json(results[0].document)
        else:
            write_json(multi_document(results))
    elif fmt == "markdown":
        print(markdown_document(command, results, worst_exit(results)), end="")
    elif several and console is not None:
        console.print()
        render_summary(command, results, console)
    return worst_exit(results)
