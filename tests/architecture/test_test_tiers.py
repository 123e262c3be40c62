"""The test tiers follow the layers: the core tier (tests/core) imports neither Pulumi nor the layers above the core,
directly or through a conftest or helper of tests/, so `make test-core` runs where Pulumi is not installed; and
every test carries its tier's marker, by the folder it sits in (tests/conftest.py)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, TIERS, tier_of

CORE = ROOT / "tests" / "core"
BLOCKER = ROOT / "tests" / "tiers_blocker"
# What the core tier may not reach: the Pulumi SDKs (pulumi, pulumi_aws, pulumi_eks, ...), the shell, the tooling.
FORBIDDEN = ("pulumi", "mlplatform", "mlplatform_program")


def forbidden(module: str) -> bool:
    top = module.partition(".")[0]
    return top in FORBIDDEN or top.startswith("pulumi_")


def imports_of(path: Path) -> list[str]:
    """Every module the file imports, at the top or inside a function (a lazy import runs all the same)."""
    found: list[str] = []
    package = ".".join(path.relative_to(ROOT).parent.parts)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            found.append(base)
            # `from tests.x import helpers` may name a module of tests/: follow it too.
            found += [f"{base}.{a.name}" for a in node.names if (ROOT / Path(*base.split("."), a.name)).exists()]
    return found


def module_file(module: str) -> Path | None:
    """The file of a module of tests/ (the helpers and conftests a test imports); None for anything else."""
    if module.partition(".")[0] != "tests":
        return None
    base = ROOT / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def breaches(start: Path) -> list[str]:
    """The chains from `start` through files of tests/ to a forbidden import (empty: none)."""
    found, seen, todo = [], set(), [(start, [start.relative_to(ROOT).as_posix()])]
    while todo:
        path, chain = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module in imports_of(path):
            if forbidden(module):
                found.append(" -> ".join([*chain, module]))
            elif (target := module_file(module)) is not None:
                todo.append((target, [*chain, target.relative_to(ROOT).as_posix()]))
    return found


def core_files() -> list[Path]:
    """Every Python file of the core tier, and the conftests pytest loads above it (tests/conftest.py)."""
    parents = [p / "conftest.py" for p in CORE.parents if p.is_relative_to(ROOT / "tests")]
    return sorted(CORE.rglob("*.py")) + [p for p in parents if p.is_file()]


def test_no_core_test_reaches_pulumi_the_shell_or_the_tooling():
    problems = [chain for path in core_files() for chain in breaches(path)]
    assert problems == [], "a core test imports a layer above the core (move it to its tier):\n" + "\n".join(problems)


def test_the_guard_follows_helpers_and_conftests():
    """The guard would catch a breach two files away: a test importing a helper of tests/ that imports the engine."""
    assert breaches(ROOT / "tests" / "program" / "conftest.py")  # through tests/runs.py to mlplatform.engine
    assert forbidden("pulumi_eks") and forbidden("mlplatform.engine") and not forbidden("mlplatform_core.model")
    assert "mlplatform.cli" in imports_of(ROOT / "tests" / "mlplatform" / "conftest.py")


def test_the_core_tier_is_collected_where_pulumi_cannot_be_imported_and_every_test_is_marked_core():
    """Collection imports every core test module and conftest; under the blocker (tests/tiers_blocker: as if Pulumi
    and the tooling were not installed) it must succeed, and `-m 'not core'` must leave nothing."""
    env = {**os.environ, "PYTHONPATH": str(BLOCKER)}
    blocked = subprocess.run([sys.executable, "-c", "import pulumi"], env=env, capture_output=True, text=True)
    assert blocked.returncode != 0 and "blocked" in blocked.stderr  # the blocker works, or this proves nothing
    argv = [sys.executable, "-m", "pytest", "tests/core", "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run([*argv, "-m", "not core"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 5, done.stdout[-3000:] + done.stderr[-3000:]  # 5: every collected test deselected
    assert "error" not in done.stdout.lower() and " deselected" in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize(
    ("path", "tier"),
    [
        ("tests/core/model/config/test_config.py", "core"),
        ("tests/program/test_program.py", "program"),
        ("tests/mlplatform/test_cli.py", "tooling"),
        ("tests/policies/test_pack.py", "pack"),
        ("tests/docs/test_docs.py", "docs"),
        ("tests/scheduler/test_differential.py", "scheduler"),
        ("tests/rehearse/test_stacks.py", "rehearse"),
        ("tests/scripts/test_generators.py", None),
    ],
)
def test_a_test_takes_the_tier_of_its_folder(path, tier):
    assert tier_of(ROOT / path) == tier


def test_every_tier_marker_is_registered(pytestconfig):
    registered = {m.partition(":")[0].strip() for m in pytestconfig.getini("markers")}
    assert set(TIERS.values()) <= registered
