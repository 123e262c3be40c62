"""Shared by every tier, and pure: the shipped stacks' config, and the tier markers applied by directory.

Nothing here imports Pulumi or the tooling, so the core tier (tests/core) is collected without either
(tests/architecture/test_test_tiers.py holds it). The program's offline runs live in tests/runs.py; their
fixtures (dev_run, prod_run) in tests/program/conftest.py and tests/mlplatform/conftest.py.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

from mlplatform_core.model.config import read_stack_file

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"
TESTS = ROOT / "tests"
# Pod manifests: the examples users read, and the tests' own cases.
MANIFEST_EXAMPLES = ROOT / "examples" / "manifests"
MANIFEST_DATA = TESTS / "data" / "manifests"

# The tier of each top folder of tests/ (pyproject.toml registers the markers; docs/development.md, "Test tiers").
TIERS = {
    "core": "core",
    "program": "program",
    "mlplatform": "tooling",
    "policies": "pack",
    "docs": "docs",
    "scheduler": "scheduler",
    "rehearse": "rehearse",
}


def tier_of(path: Path) -> str | None:
    """The tier marker of a test file by the top folder it sits in under tests/ (None: no tier of its own)."""
    try:
        top = Path(path).resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return None
    return TIERS.get(top)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: the markers must be on the items before `-m` selects among them.
    for item in items:
        tier = tier_of(item.path)
        if tier is not None:
            item.add_marker(tier)


def stack_config(stack: str) -> dict:
    """A fresh, mutable copy of a shipped stack's `config:` mapping."""
    return copy.deepcopy(_stack_config(stack))


@cache
def _stack_config(stack: str) -> dict:
    return read_stack_file(STACKS / f"Pulumi.{stack}.yaml")
