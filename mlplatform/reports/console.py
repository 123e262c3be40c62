"""The rich console the commands print to: its width, and lines without trailing spaces."""

from __future__ import annotations

import os
import sys
from typing import IO

from rich.console import Console

# Piped output (CI logs, files) with no COLUMNS: 100 columns, what a pull request, a log viewer or a side-by-side
# editor shows without scrolling; tables wrap between words or stack to fit (tables.print_table).
PIPED_WIDTH = 100


def columns() -> int | None:
    """The width the user asked for in COLUMNS, if it is a positive number."""
    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


class _TrimmedLines:
    """A text file (standard output unless given) without the spaces rich pads lines with (a table's title is
    padded to its width): each finished line is written without trailing spaces."""

    def __init__(self, target: IO[str] | None = None) -> None:
        self._target = target
        self._pending = ""

    @property
    def _out(self) -> IO[str]:
        return self._target if self._target is not None else sys.stdout  # stdout as it is when written to

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        if lines:
            self._out.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending.strip(" ") == "":
            self._pending = ""
        self._out.write(self._pending)
        self._pending = ""
        self._out.flush()

    def isatty(self) -> bool:
        return False


def make_console(file: IO[str] | None = None) -> Console:
    """A terminal's console (rich reads COLUMNS or the terminal's size), or for piped output a colourless one
    COLUMNS wide, else PIPED_WIDTH (rich alone would wrap every table at 80 columns), its lines trimmed. It
    writes to standard output, or to `file` (a spool the command copies to standard output later).

    Text is printed as written: no `:name:` emoji codes (rich would turn `a:m:b` into `aⓂb`)."""
    console = Console(emoji=False)
    if console.is_terminal:
        if file is not None:
            console.file = file
        return console
    return Console(file=_TrimmedLines(file), width=columns() or PIPED_WIDTH, no_color=True, emoji=False)
