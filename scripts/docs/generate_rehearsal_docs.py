#!/usr/bin/env python3
"""Write the generated tables of docs/rehearsal.md: what moto does not implement, by resource type, and which
terraform-provider-aws file each resource type's mapping follows (mlplatform/rehearsal/gaps.py, tables.py).

The text around them is written by hand; the tables sit between `<!-- generated:NAME -->` markers. A test fails
while the committed page differs (tests/mlplatform/test_rehearsal_gaps_doc.py).

Usage (from the repository root, with the project installed):
  .venv/bin/python scripts/docs/generate_rehearsal_docs.py          # rewrites the tables in docs/rehearsal.md
  .venv/bin/python scripts/docs/generate_rehearsal_docs.py --check  # exit 1 if they are out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from mlplatform.rehearsal import tables

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "rehearsal.md"


def render(text: str) -> str:
    for name, table in (("gaps", tables.table()), ("mappings", tables.mapping_table())):
        start, end = f"<!-- generated:{name} -->", f"<!-- /generated:{name} -->"
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise SystemExit(f"{PAGE}: no {start} ... {end} markers")
        text = pattern.sub(lambda _m, s=start, e=end, t=table: f"{s}\n{t}{e}", text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/rehearsal.md is out of date")
    args = parser.parse_args()
    text = PAGE.read_text()
    rendered = render(text)
    if args.check:
        if rendered != text:
            print(
                f"{PAGE.relative_to(ROOT)} is out of date: run scripts/docs/generate_rehearsal_docs.py", file=sys.stderr
            )
            return 1
        return 0
    PAGE.write_text(rendered)
    return 0


if __name__ == "__main__":
    sys.exit(main())
