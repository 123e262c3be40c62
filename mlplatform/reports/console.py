"""The rich console the commands print to."""

from __future__ import annotations

from rich.console import Console


def make_console() -> Console:
    # Piped output (CI logs, files) would otherwise wrap the tables at 80 columns.
    console = Console()
    return console if console.is_terminal else Console(width=200, no_color=True)
