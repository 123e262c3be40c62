"""The rich console the commands print to: its width, and lines without trailing spaces."""

from __future__ import annotations

import os
import sys

from rich.console import Console

# Piped output (CI logs, files) with no COLUMNS: 100 columns, what a pull request, a log viewer or a side-by-side
# editor shows without scrolling; tables wrap between words or stack to fit (tables.print_table).
PIPED_WIDTH = 100


def columns() -> int | None:
    """The width the user asked for in COLUMNS, if it is a positive number."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


class _TrimmedLines:
    """Standard output without the spaces rich pads lines with (a table's title is padded to its width):
    each finished line is written without trailing spaces."""

    def __init__(self) -> None:
        self._pending = ""

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        if lines:
            sys.stdout.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending.strip(" ") == "":
            self._pending = self._pending.strip(" ")
        sys.stdout.write(self._pending)
        self._pending = ""
        sys.stdout.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return sys.stdout.fileno()


def make_console() -> Console:
    """A terminal's console (rich reads COLUMNS or the terminal's size), or for piped output a colourless one
    COLUMNS wide, else PIPED_WIDTH (rich alone would wrap every table at 80 columns), its lines trimmed.

    Text is printed as written: no `:name:` emoji codes (rich would turn `a:m:b` into `aⓂb`)."""
    console = Console(emoji=False)
    if console.is_terminal:
        return console
    return Console(file=_TrimmedLines(), width=columns() or PIPED_WIDTH, no_color=True, emoji=False)
