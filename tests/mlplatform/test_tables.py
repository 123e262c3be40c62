"""print_table: any table at any width keeps every word whole, and never draws wider than the console."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

from mlplatform.reports.console import make_console
from mlplatform.reports.tables import print_table

WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789./=:-", min_size=1, max_size=30)
HEADER = st.text("abcdefghij", min_size=1, max_size=10)


@st.composite
def tables(draw):
    headers = draw(st.lists(HEADER, min_size=1, max_size=8))
    rows = draw(
        st.lists(
            st.lists(st.lists(WORD, min_size=1, max_size=4), min_size=len(headers), max_size=len(headers)),
            min_size=1,
            max_size=4,
        )
    )
    return headers, rows


@settings(max_examples=80, deadline=None, derandomize=True)
@given(tables(), st.integers(min_value=50, max_value=200), st.booleans())
def test_every_word_stays_whole_at_any_width(table_data, width, lines):
    headers, rows = table_data
    table = Table(title="a table", show_lines=lines)
    for h in headers:
        table.add_column(h)
    for row in rows:
        table.add_row(*(" ".join(words) for words in row))
    console = Console(width=width, no_color=True, emoji=False, record=True, file=io.StringIO())
    print_table(console, table)
    out = console.export_text()
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width
    rendered = {w for line in out.splitlines() for w in line.replace("│", " ").replace("┃", " ").split()}
    for row in rows:
        for words in row:
            assert set(words) <= rendered, (width, words)


def test_text_is_printed_as_written(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    make_console().print("taint a:m:b and :cat:")
    assert capsys.readouterr().out == "taint a:m:b and :cat:\n"
