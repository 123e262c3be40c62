"""Shared fixtures: the shipped stacks' config and their offline program runs (cached per session)."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

from mlplatform.engine import ProgramRun, run_program
from mlplatform_core.model.config import read_stack_file

ROOT = Path(__file__).resolve().parent.parent
STACKS = ROOT / "stacks"


def stack_config(stack: str) -> dict:
    """A fresh, mutable copy of a shipped stack's `config:` mapping."""
    return copy.deepcopy(_stack_config(stack))


@cache
def _stack_config(stack: str) -> dict:
    return read_stack_file(STACKS / f"Pulumi.{stack}.yaml")


@cache
def shipped_run(stack: str) -> ProgramRun:
    return run_program(stack, stack_config(stack))


@pytest.fixture(scope="session")
def dev_run() -> ProgramRun:
    return shipped_run("dev")


@pytest.fixture(scope="session")
def prod_run() -> ProgramRun:
    return shipped_run("prod")
