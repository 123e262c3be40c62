"""JSON documents written out as they are encoded, not built as one string first.

json.dumps(indent=2) keeps every chunk of the document in a list before joining it: for a plan of
500 node groups (16 MB of JSON) that list held more memory than the run itself. Same text.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

_BATCH = 4096  # chunks per write: few writes, little held at once


def write_json(doc: Any, stream: TextIO | None = None) -> None:
    """`doc` as indented JSON plus a newline on `stream` (standard output by default), like print(json.dumps())."""
    out = stream or sys.stdout
    batch: list[str] = []
    for chunk in json.JSONEncoder(indent=2, default=str).iterencode(doc):
        batch.append(chunk)
        if len(batch) >= _BATCH:
            out.write("".join(batch))
            batch.clear()
    batch.append("\n")
    out.write("".join(batch))
