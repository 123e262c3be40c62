"""The rich console the commands print to, and its width."""

from __future__ import annotations

import os

from rich.console import Console

PIPED_WIDTH = 200  # piped output (CI logs, files) with no COLUMNS: wide, as logs are read in wide windows


def columns() -> int | None:
    """The width the user asked for in COLUMNS, if it is a positive number."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def make_console() -> Console:
    """A terminal's console (rich reads COLUMNS or the terminal's size), or for piped output a colourless one
    COLUMNS wide, else PIPED_WIDTH (rich alone would wrap every table at 80 columns).

    Text is printed as written: no `:name:` emoji codes (rich would turn `a:m:b` into `aⓂb`)."""
    console = Console(emoji=False)
    return console if console.is_terminal else Console(width=columns() or PIPED_WIDTH, no_color=True, emoji=False)
