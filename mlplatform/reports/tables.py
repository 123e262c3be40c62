"""Tables that never cut a word: at the console's width when every column fits, else stacked per row.

rich shrinks a table that is wider than the console by cutting cells to `…` (a label, a taint, a rule
name). `print_table` instead narrows the widest columns first and none below its longest word, so text
wraps between words; when even the longest words do not fit side by side, it prints the same cells
stacked: one block per row, a `column  value` line per cell.
"""

from __future__ import annotations

import math

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Column, Table
from rich.text import Text


def _measure(console: Console, column: Column) -> Measurement:
    """The narrowest (longest word) and widest (longest line) the column's header and cells need."""
    options = console.options
    sizes = [Measurement.get(console, options, cell) for cell in (column.header, *column.cells)]
    return Measurement(max(m.minimum for m in sizes), max(m.maximum for m in sizes))


def _overhead(table: Table) -> int:
    """Borders and padding: what a row takes besides its cells' text (tables here pad every cell alike)."""
    _, right, _, left = table.padding
    borders = ((2 if table.show_edge else 0) + len(table.columns) - 1) if table.box else 0
    return borders + (left + right) * len(table.columns)


def fit_widths(console: Console, table: Table, width: int) -> list[int] | None:
    """Text widths that fit the table in `width` without breaking a word, or None when none do.

    Each column starts at its longest line; while the table is too wide, the widest column that can
    still wrap gives up a character (as rich shrinks tables), but none goes below its longest word.
    """
    sizes = [_measure(console, c) for c in table.columns]
    room = width - _overhead(table)
    if sum(m.minimum for m in sizes) > room:
        return None
    widths = [m.maximum for m in sizes]
    excess = sum(widths) - room
    while excess > 0:
        shrinkable = [i for i, m in enumerate(sizes) if widths[i] > m.minimum]
        widest = max(widths[i] for i in shrinkable)
        tied = [i for i in shrinkable if widths[i] == widest]
        below = max((widths[i] for i in shrinkable if widths[i] < widest), default=0)
        floor = max(below, *(sizes[i].minimum for i in tied))
        # lower the widest columns together, at most down to the next width or their longest word
        step = min(widest - floor, math.ceil(excess / len(tied)))
        for i in tied:
            cut = min(step, excess, widths[i] - sizes[i].minimum)
            widths[i] -= cut
            excess -= cut
    return widths


def stacked(table: Table) -> RenderableType:
    """The table's rows one below the other: `<first column>: <value>`, then a line per other column that has a
    value in the row."""
    headers = [str(c.header) for c in table.columns]
    cells = [list(c.cells) for c in table.columns]
    blocks: list[RenderableType] = []
    if table.title:
        blocks.append(table.title if isinstance(table.title, Text) else Text.from_markup(str(table.title)))
    for row in range(table.row_count):
        first = cells[0][row]
        heading = Text.from_markup(f"[bold]{escape(headers[0])}:[/bold] ")
        value = first if isinstance(first, Text) else Text.from_markup(str(first))
        heading.append_text(Text("; ").join(value.split("\n")))  # a heading is one line
        blocks.append(heading)
        fields = Table.grid(Column(no_wrap=True, style="dim"), Column(overflow="fold"), padding=(0, 2))
        for header, column in zip(headers[1:], cells[1:], strict=True):
            if not str(column[row]).strip():  # an empty cell is no line of the card (a create has no order)
                continue
            fields.add_row(escape(header), column[row])
        blocks.append(Padding(fields, (0, 0, 0, 2)))
    return Group(*blocks)


def print_table(console: Console, table: Table, narrow: RenderableType | None = None) -> None:
    """The table at the console's width, every word whole; when its words cannot fit side by side,
    `narrow` (a layout of the same facts for narrow consoles) or the table stacked per row."""
    widths = fit_widths(console, table, console.width)
    if widths is None:
        console.print(narrow if narrow is not None else stacked(table))
        return
    for column, width in zip(table.columns, widths, strict=True):
        column.width = width
        column.overflow = "fold"  # a safety net: never `…`
    console.print(table)
