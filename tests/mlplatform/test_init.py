"""`mlplatform init DIR`: a ready project. After `init x && cd x`, plan, check --all and place work, and a
project with a name of its own is planned under that name end to end (URNs, the layer's StackReference)."""

from __future__ import annotations

import ast
import json

import yaml

import mlplatform_policies
from mlplatform.cli import main
from mlplatform.project import find_project
from mlplatform.scaffold import requirement
from tests.mlplatform.conftest import EXAMPLES

FILES = {
    "Pulumi.yaml",
    "__main__.py",
    "requirements.txt",
    ".gitignore",
    "README.md",
    "kubernetes-layer/Pulumi.yaml",
    "kubernetes-layer/__main__.py",
    "kubernetes-layer/requirements.txt",
    "policies/PulumiPolicy.yaml",
    "policies/__main__.py",
    "policies/requirements.txt",
    "policies/config/dev.json",
    ".github/workflows/infra.yml",
    "stacks/Pulumi.dev.yaml",
    "stacks/Pulumi.prod.yaml",
}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_writes_a_project_that_plans_checks_and_places_under_its_own_name(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "acme ml"  # a folder name Pulumi cannot use as a project name
    code, out, err = run_cli(capsys, "init", str(folder))
    assert code == 0, err
    assert {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} == FILES
    assert "cd " in out and "mlplatform plan dev" in out and "pulumi up" in out
    # The next steps paste into a shell as they are: the folder quoted, the stack created before `pulumi up`.
    assert f"  cd '{folder}'\n" in out and out.index("pulumi stack init dev") < out.index("pulumi up --stack dev")
    project = find_project(folder)
    assert project.name == "acme-ml" and project.kubernetes_layer.name == "acme-ml-kubernetes"
    assert project.kubernetes_layer.cluster_project == "acme-ml"
    assert (folder / "requirements.txt").read_text().splitlines()[-1] == requirement()[0]

    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "plan", "dev", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [p["project"] for p in doc["deployment"]["programs"]] == ["acme-ml", "acme-ml-kubernetes"]
    assert doc["deployment"]["clusterStackReference"] == "<organization>/acme-ml/dev"
    layer = [r for r in doc["resources"] if r["project"] == "acme-ml-kubernetes"]
    assert layer and all(r["urn"].startswith("urn:pulumi:dev::acme-ml-kubernetes::") for r in layer)
    assert doc["exports"]["clusterStack"] == "organization/acme-ml/dev"  # what its StackReference read
    assert doc["placement"]["ok"] and doc["source"] == "stacks/Pulumi.dev.yaml"

    code, out, err = run_cli(capsys, "check", "--all")
    assert code == 0, err + out
    assert "dev" in out and "prod" in out and "passed" in out
    code, out, err = run_cli(capsys, "place", "dev", "-f", str(EXAMPLES / "mlrun-jobs.yaml"))
    assert code == 0, err


def test_the_written_files_are_what_pulumi_and_github_read(tmp_path, capsys):
    assert run_cli(capsys, "init", str(tmp_path / "p"), "--name", "team-ml", "--region", "eu-west-1")[0] == 0
    root = tmp_path / "p"
    cluster = yaml.safe_load((root / "Pulumi.yaml").read_text())
    assert cluster["name"] == "team-ml" and cluster["runtime"]["name"] == "python"
    assert cluster["stackConfigDir"] == "stacks"
    layer = yaml.safe_load((root / "kubernetes-layer/Pulumi.yaml").read_text())
    assert layer["stackConfigDir"] == "../stacks" and layer["runtime"]["options"]["virtualenv"] == "../.venv"
    for env in ("dev", "prod"):
        config = yaml.safe_load((root / f"stacks/Pulumi.{env}.yaml").read_text())["config"]
        assert config["aws:region"] == "eu-west-1" and config["ml-platform-eks:environment"] == env
    # The pack's entry point imports what the installed rules export.
    tree = ast.parse((root / "policies/__main__.py").read_text())
    names = {
        a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module == "mlplatform_policies"
        for a in n.names
    }
    assert names and all(hasattr(mlplatform_policies, n) for n in names)
    workflow = yaml.safe_load((root / ".github/workflows/infra.yml").read_text())
    offline = "\n".join(s.get("run", "") for s in workflow["jobs"]["offline"]["steps"])
    assert "mlplatform check --all --format markdown" in offline and "gh pr comment" in offline
    assert workflow["jobs"]["preview-cluster"]["strategy"]["matrix"]["stack"] == ["dev", "prod"]
    assert json.loads((root / "policies/config/dev.json").read_text()) == {"eks-endpoint-private": "advisory"}


def _gate_script(workflow: dict, step_prefix: str) -> str:
    steps = workflow["jobs"]["change-gate"]["steps"]
    (run,) = [s["run"] for s in steps if s.get("name", "").startswith(step_prefix)]
    # The install lines need a network; the test puts a stand-in mlplatform where they would install it.
    return "\n".join(line for line in run.splitlines() if "pip install" not in line and "git worktree" not in line)


def test_init_workflow_gates_a_pull_request_on_the_change_from_the_base_branch(tmp_path, capsys):
    """docs/diff.md: on a pull request, every stack is planned with the base branch's toolkit (BEFORE), then
    `diff --against` goes to the job summary and `check --against` gates; the worst exit code fails the job
    under GitHub's `bash -e`, a stack new on the branch is skipped."""
    import os
    import subprocess

    project = tmp_path / "work" / "x"
    assert run_cli(capsys, "init", str(project))[0] == 0
    workflow = yaml.safe_load((project / ".github/workflows/infra.yml").read_text())
    gate = workflow["jobs"]["change-gate"]
    assert gate["if"] == "github.event_name == 'pull_request'"
    before_step = next(s["run"] for s in gate["steps"] if s.get("name", "").startswith("BEFORE"))
    assert "-r ../base/requirements.txt" in before_step  # the base branch's toolkit, not the PR's

    log = tmp_path / "calls.txt"
    stand_in = (  # records its arguments; `plan` writes a document, diff/check exit with the code asked
        '#!/bin/bash\necho "$*" >> "$LOG"\n'
        'case "$1" in plan) echo "{}";; diff) exit "$DIFF_CODE";; check) exit "$CHECK_CODE";; esac\n'
    )
    for venv in (project / ".venv", tmp_path / "work" / "base-venv"):
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "mlplatform").write_text(stand_in)
        (venv / "bin" / "mlplatform").chmod(0o755)
    base = tmp_path / "work" / "base" / "stacks"
    base.mkdir(parents=True)
    (base / "Pulumi.dev.yaml").write_text("config: {}\n")  # prod is new on the branch: nothing to diff

    def run(step: str, diff_code: int, check_code: int) -> int:
        env = {**os.environ, "LOG": str(log), "DIFF_CODE": str(diff_code), "CHECK_CODE": str(check_code)}
        env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
        script = _gate_script(workflow, step)
        return subprocess.run(["bash", "-e", "-c", script], cwd=project, env=env, check=False).returncode

    assert run("BEFORE", 0, 0) == 0
    assert (tmp_path / "work" / "before" / "dev.json").read_text() == "{}\n"
    assert not (tmp_path / "work" / "before" / "prod.json").exists()
    assert log.read_text().splitlines() == ["plan dev --json"]
    log.unlink()
    assert run("AFTER", 0, 0) == 0
    assert log.read_text().splitlines() == [
        "diff dev --against ../before/dev.json --format markdown",
        "check dev --against ../before/dev.json",
    ]
    assert run("AFTER", 0, 1) == 1  # a mandatory change rule fails the pull request
    assert run("AFTER", 2, 1) == 2  # BEFORE of another schema version: bad input, said by diff


def test_init_into_a_folder_it_cannot_write_is_bad_input(tmp_path, capsys):
    """A folder init may not create or write is the user's to fix: exit 2 naming it, never 3 (a bug)."""
    code, _, err = run_cli(capsys, "init", "/proc/mlplatform-init-test")
    assert code == 2 and err.startswith("error: cannot write /proc/mlplatform-init-test"), err
