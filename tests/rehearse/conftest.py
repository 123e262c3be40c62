"""The deploy rehearsal tier (`make rehearse`): moto's server on loopback, every stack's AWS resources replayed.

One server per test process (port 0: the OS picks a free port; stopped at the end of the session); each stack
replays into an empty account (moto's reset). The terminal summary lists what moto does not implement, by
resource type, and what each rehearsal created and validated, so nothing is skipped out of sight (each xdist
worker writes its rehearsals' summaries to build/rehearsal/, the controller prints them).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from functools import cache

import pytest

from mlplatform.engine import ProgramRun
from mlplatform.plan import build_plan
from mlplatform.project import find_project
from mlplatform.rehearsal import Rehearsal, gaps, moto_server, replay, reset
from mlplatform_core.model.regions import partition_of
from tests.conftest import ROOT

SHIPPED = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))
EXAMPLE_DIR = ROOT / "examples" / "stacks"
# Every example but Pulumi.broken.yaml, the configuration reference's example of settings the plan refuses.
REFUSED_EXAMPLES = {"broken"}
EXAMPLES = sorted(
    name
    for name in (p.name[len("Pulumi.") : -len(".yaml")] for p in EXAMPLE_DIR.glob("Pulumi.*.yaml"))
    if name not in REFUSED_EXAMPLES
)
SUMMARIES = ROOT / "build" / "rehearsal"


def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        shutil.rmtree(SUMMARIES, ignore_errors=True)


@pytest.fixture(scope="session")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@cache
def plan_run(stack: str) -> ProgramRun:
    """The recording `mlplatform plan` makes of a shipped stack or an example (build_plan: validated, then run);
    cached per process (the proofs change copies of it; `plan_run.__wrapped__` runs the program afresh)."""
    project = find_project(str(ROOT))
    if stack in EXAMPLES or stack in REFUSED_EXAMPLES:
        return build_plan(config_file=str(EXAMPLE_DIR / f"Pulumi.{stack}.yaml"), project=project).run
    return build_plan(stack, project=project).run


def rehearse(endpoint: str, run: ProgramRun, label: str | None = None, report: bool = True) -> Rehearsal:
    """Replay `run` into an empty account of the emulator; its summary goes to the session's report (not for
    the proofs' deliberately broken stacks)."""
    region = str(run.config.get("aws:region", "us-west-2"))
    reset(endpoint)
    result = replay(run, endpoint, region, partition_of(region))
    if not report:
        return result
    SUMMARIES.mkdir(parents=True, exist_ok=True)
    (SUMMARIES / f"{label or run.stack}.txt").write_text((f"[{label}] " if label else "") + result.summary() + "\n")
    return result


def pytest_terminal_summary(terminalreporter, config) -> None:
    if hasattr(config, "workerinput") or not SUMMARIES.is_dir():
        return
    terminalreporter.section("deploy rehearsal against moto")
    terminalreporter.write_line("What moto does not implement, by resource type (docs/rehearsal.md):")
    for line in gaps.table().splitlines():
        terminalreporter.write_line(line)
    for path in sorted(SUMMARIES.glob("*.txt")):
        terminalreporter.write(path.read_text())
