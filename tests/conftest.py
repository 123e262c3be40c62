"""Shared fixtures: the shipped stacks' config and their offline runs (cached per session).

A shipped run is every program the stack deploys (run_stack): the cluster program and, for a stack
whose Kubernetes layer is separate, kubernetes-layer/; `run.programs` has each on its own.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

from mlplatform.engine import StackRun, run_stack
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
def shipped_run(stack: str) -> StackRun:
    return run_stack(stack, stack_config(stack))


@pytest.fixture(scope="session")
def dev_run() -> StackRun:
    return shipped_run("dev")


@pytest.fixture(scope="session")
def prod_run() -> StackRun:
    return shipped_run("prod")


@cache
def irsa_run(stack: str = "dev") -> StackRun:
    """A shipped stack without `podIdentity`: the IRSA roles a stack that omits the setting keeps."""
    raw = stack_config(stack)
    raw.pop("ml-platform-eks:podIdentity", None)
    return run_stack(stack, raw)
