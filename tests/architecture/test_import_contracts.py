"""The architecture holds: import-linter's contracts (pyproject.toml) pass, and they would catch a breach.

The layers are the folders: mlplatform_core (pure: no Pulumi), mlplatform_program (the Pulumi program, imports the
core only), mlplatform (the tooling, runs the program and never imports the shell), policies/ (the pack: the core only).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("mlplatform_core", "mlplatform", "mlplatform_program", "policies/mlplatform_policies")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    # The project's packages from `cwd` first, ahead of the editable install.
    env = {**os.environ, "PYTHONPATH": f"{cwd}{os.pathsep}{cwd / 'policies'}"}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def copy_of_the_project(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_contracts_hold():
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize(
    ("module", "imported", "contract"),
    [
        ("mlplatform_core/model/quantity.py", "pulumi", "The core is pure"),
        ("mlplatform_core/placement/filters.py", "mlplatform.plan", "The core is pure"),
        ("mlplatform_program/components/network.py", "mlplatform.engine", "The Pulumi program imports the core only"),
        ("mlplatform/plan.py", "mlplatform_program.components.cluster", "never imports the Pulumi program"),
        ("mlplatform_core/model/config/stack.py", "mlplatform_core.model.layout", "Core model"),
        ("mlplatform/engine/run.py", "mlplatform.reports.console", "Tooling"),
        ("policies/mlplatform_policies/layout.py", "mlplatform.check", "The policy pack builds on the core only"),
        ("policies/mlplatform_policies/props.py", "pulumi_aws", "The policy pack builds on the core only"),
    ],
)
def test_a_forbidden_import_breaks_a_contract(tmp_path, module, imported, contract):
    project = copy_of_the_project(tmp_path)
    path = project / module
    path.write_text(path.read_text() + f"\nimport {imported}  # noqa: E402,F401\n")
    proc = lint_imports(project)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    broken = [line for line in proc.stdout.splitlines() if line.endswith(" BROKEN")]
    assert len(broken) >= 1 and any(contract in line for line in broken), proc.stdout
