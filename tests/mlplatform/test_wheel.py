"""The toolkit as a wheel, outside any checkout: the wheel built from this repository (offline) and installed
into a virtualenv of its own, whose dependencies (the SDKs) are the test environment's, so that nothing is
downloaded. There, `init` writes a project whose plan and check run from the wheel's programs, rules and data.
bench/fresh-venv does the same with the dependencies from the package index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from mlplatform.documents import SCHEMA_VERSION
from tests.conftest import ROOT


def run(*argv, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(list(map(str, argv)), capture_output=True, text=True, cwd=cwd, timeout=300, env=env)


def test_a_wheel_in_its_own_virtualenv_inits_plans_and_checks_outside_the_checkout(tmp_path):
    built = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        tmp_path / "dist",
        ROOT,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("ml_platform_eks-*.whl")
    # The published schemas ship in the wheel (`mlplatform schema stack|plan` prints the same; docs/json.md).
    shipped = {f"mlplatform_core/schemas/{name}.schema.json" for name in ("stack", "plan")}
    assert shipped <= set(zipfile.ZipFile(wheel).namelist())
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path).returncode == 0
    python = venv / "bin" / "python"
    site = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).stdout.strip()
    )
    installed = run(
        sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", wheel, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    # The SDKs from this environment, after the wheel's own packages; not its editable checkout (a path
    # listed in a .pth file is added without running that folder's own .pth files, the editable finder).
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS")}
    mlplatform = venv / "bin" / "mlplatform"

    where = run(
        python,
        "-c",
        "import mlplatform, mlplatform_program, mlplatform_policies, mlplatform_core; "
        "print(mlplatform.__file__, mlplatform_program.__file__)",
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0 and str(ROOT) not in where.stdout and str(site) in where.stdout, where

    # pip and `mlplatform --version` report the same release (pyproject.toml reads mlplatform.__version__).
    pip_version = run(
        python, "-c", "from importlib.metadata import version; print(version('ml-platform-eks'))", cwd=tmp_path, env=env
    )
    shown = run(mlplatform, "--version", cwd=tmp_path, env=env).stdout
    assert wheel.name.startswith(f"ml_platform_eks-{pip_version.stdout.strip()}-")
    assert shown == f"mlplatform {pip_version.stdout.strip()} (plan document schema {SCHEMA_VERSION})\n"

    assert run(mlplatform, "init", "acme", cwd=tmp_path, env=env).returncode == 0
    project = tmp_path / "acme"
    # requirements.txt names the wheel copied into the project, never the path it was installed from: moved to
    # another machine (another folder, the original wheel gone), each requirements file installs from its folder.
    assert (project / "vendor" / wheel.name).is_file()
    assert f"./vendor/{wheel.name}" in (project / "requirements.txt").read_text().splitlines()
    elsewhere = tmp_path / "runner" / "checkout"
    elsewhere.parent.mkdir()
    shutil.copytree(project, elsewhere)
    wheel.unlink()
    for folder in (elsewhere, elsewhere / "kubernetes-layer", elsewhere / "policies"):
        assert str(tmp_path) not in (folder / "requirements.txt").read_text()
        dry = run(
            *(sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index", "--ignore-installed"),
            *("--quiet", "--report", "-", "-r", "requirements.txt"),
            cwd=folder,
        )
        assert dry.returncode == 0, dry.stderr[-2000:]
        (item,) = json.loads(dry.stdout)["install"]
        assert item["metadata"]["name"] == "ml-platform-eks" and item["download_info"]["url"].endswith(wheel.name)
    checked = run(mlplatform, "check", "--all", "--json", cwd=project, env=env)
    assert checked.returncode == 0, checked.stderr[-2000:]
    doc = json.loads(checked.stdout)
    assert [s["stack"] for s in doc["stacks"]] == ["dev", "prod"] and doc["exitCode"] == 0
    assert all(s["passed"] for s in doc["stacks"])
    markdown = run(mlplatform, "plan", "dev", "--format", "markdown", cwd=project / "stacks", env=env)
    assert markdown.returncode == 0 and markdown.stdout.count("```mermaid") == 2, markdown.stderr[-2000:]
    assert "<organization>/acme/dev" in markdown.stdout.replace("#lt;", "<").replace("#gt;", ">")
