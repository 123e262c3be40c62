"""`mlplatform` in-process for the docs' snippets, every stack run shared by the commands of one test process.

One engine run per (stack, settings, project programs): `plan dev` then `check --all` in a copy of the same
`init` project pay the run once. The run is deterministic, so sharing it changes no output.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from unittest import mock

from tests.conftest import ROOT

_RUNS: dict = {}


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out[-3000:]}\n--- stderr\n{self.err[-3000:]}"


def _cached_run_stack(real):
    def run_stack(stack, config, project=None, **kw):
        programs = (
            tuple(
                (p.name, p.entry.read_text(encoding="utf-8")) if p else None
                for p in (project.cluster, project.kubernetes_layer)
            )
            if hasattr(project, "cluster")
            else str(project)
        )
        key = (stack, json.dumps(config, sort_keys=True, default=str), programs)
        if key not in _RUNS:
            _RUNS[key] = real(stack, config, project, **kw)
        return _RUNS[key]

    return run_stack


@contextlib.contextmanager
def shared_runs() -> Iterator[None]:
    import mlplatform.engine as engine
    import mlplatform.plan as plan_module

    cached = _cached_run_stack(engine.run_stack)
    with mock.patch.object(plan_module, "run_stack", cached), mock.patch.object(engine, "run_stack", cached):
        yield


def mlplatform(words: list[str], cwd: Path) -> Result:
    """`mlplatform WORDS` run in CWD, as a user's shell would: its exit code, stdout and stderr."""
    from mlplatform.cli import main

    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), shared_runs():
            try:
                code = main(list(words))
            except SystemExit as exit_:  # argparse: --help, bad arguments
                code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        os.chdir(before)
    return Result(code, out.getvalue(), err.getvalue())


@cache
def _initialised() -> Path:
    """One project `mlplatform init acme-ml` wrote, copied for each block that runs in it."""
    parent = Path(tempfile.mkdtemp(prefix="docs-init-"))
    result = mlplatform(["init", "acme-ml"], parent)
    assert result.code == 0, str(result)
    return parent / "acme-ml"


def start_folder(where: str, scratch: Path) -> Path:
    """Where a block's commands start: a copy of an init project, an empty folder, or the repository."""
    if where == "repo":
        return ROOT
    if where == "empty":
        return scratch
    project = scratch / "acme-ml"
    shutil.copytree(_initialised(), project)
    return project
