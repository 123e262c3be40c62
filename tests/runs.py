"""The shipped stacks' offline runs (cached per session): the program under the engine's mocks, so Pulumi.

A shipped run is every program the stack deploys (run_stack): the cluster program and, for a stack
whose Kubernetes layer is separate, kubernetes-layer/; `run.programs` has each on its own.
The tiers that run the program take the fixtures (dev_run, prod_run) into their conftest.
Kept out of tests/conftest.py so that the core tier (tests/core) is collected without Pulumi installed.
"""

from __future__ import annotations

from functools import cache

import pytest

from mlplatform.engine import StackRun, run_stack
from tests.conftest import stack_config


@cache
def shipped_run(stack: str) -> StackRun:
    return run_stack(stack, stack_config(stack))


@cache
def irsa_run(stack: str = "dev") -> StackRun:
    """A shipped stack without `podIdentity`: the IRSA roles a stack that omits the setting keeps."""
    raw = stack_config(stack)
    raw.pop("ml-platform-eks:podIdentity", None)
    return run_stack(stack, raw)


@pytest.fixture(scope="session")
def dev_run() -> StackRun:
    return shipped_run("dev")


@pytest.fixture(scope="session")
def prod_run() -> StackRun:
    return shipped_run("prod")
