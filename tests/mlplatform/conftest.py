"""Shared by the tooling tests: running `mlplatform place` and reading its verdicts; the shipped stacks'
offline runs as fixtures (dev_run, prod_run: tests/runs.py)."""

from __future__ import annotations

import json

import pytest

from mlplatform.cli import main
from tests.conftest import MANIFEST_DATA as DATA
from tests.conftest import MANIFEST_EXAMPLES as EXAMPLES
from tests.runs import dev_run, prod_run

__all__ = ["DATA", "EXAMPLES", "dev_run", "prod_run"]


@pytest.fixture(autouse=True)
def _piped_width(monkeypatch):
    """Tables at the width of piped output without COLUMNS, whatever the runner exports (xdist's workers
    get COLUMNS=80); the tests of COLUMNS set it themselves."""
    monkeypatch.delenv("COLUMNS", raising=False)


def run_place(capsys, *argv):
    code = main(["place", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def place_json(capsys, stack: str, manifest) -> dict:
    code, out, err = run_place(capsys, stack, "-f", str(manifest), "--json")
    assert code == 0, err
    return json.loads(out)


def verdicts(doc: dict) -> dict[str, dict[str, dict]]:
    return {p["name"]: {g["name"]: g for g in p["groups"]} for p in doc["pods"]}
