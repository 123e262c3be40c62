"""The program tier's fixtures: the shipped stacks' offline runs (tests/runs.py), shared per session."""

from __future__ import annotations

from tests.runs import dev_run, prod_run

__all__ = ["dev_run", "prod_run"]
