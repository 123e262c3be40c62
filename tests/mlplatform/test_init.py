"""`mlplatform init DIR`: a ready project. After `init x && cd x`, plan, check --all and place work, and a
project with a name of its own is planned under that name end to end (URNs, the layer's StackReference)."""

from __future__ import annotations

import ast
import json

import yaml

import mlplatform_policies
from mlplatform import __version__ as VERSION
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
    "schemas/stack.schema.json",
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
    assert {"preview-dev", "preview-prod", "deploy-dev", "deploy-prod"} <= set(workflow["jobs"])
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
    import sys

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
        'case "$1" in --version) echo "mlplatform 9.9.9 (plan document schema 2)";;\n'
        '  plan) echo "{\\"schemaVersion\\": \\"$BASE_SCHEMA\\"}";;\n'
        '  diff) exit "$DIFF_CODE";; check) exit "$CHECK_CODE";;\n'
        "esac\n"
    )
    for venv in (project / ".venv", tmp_path / "work" / "base-venv"):
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "mlplatform").write_text(stand_in)
        (venv / "bin" / "mlplatform").chmod(0o755)
    base = tmp_path / "work" / "base" / "stacks"
    base.mkdir(parents=True)
    (base / "Pulumi.dev.yaml").write_text("config: {}\n")  # prod is new on the branch: nothing to diff

    def run(step: str, diff_code: int, check_code: int, base_schema: str = "2") -> int:
        env = {**os.environ, "LOG": str(log), "DIFF_CODE": str(diff_code), "CHECK_CODE": str(check_code)}
        env["BASE_SCHEMA"] = base_schema
        # `python` as on a runner after setup-python: this interpreter's folder first.
        env["PATH"] = f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}"
        env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
        script = _gate_script(workflow, step)
        return subprocess.run(["bash", "-e", "-c", script], cwd=project, env=env, check=False).returncode

    assert run("BEFORE", 0, 0) == 0
    assert (tmp_path / "work" / "before" / "dev.json").read_text() == '{"schemaVersion": "2"}\n'
    assert not (tmp_path / "work" / "before" / "prod.json").exists()
    assert log.read_text().splitlines() == ["plan dev --json"]
    log.unlink()
    assert run("AFTER", 0, 0) == 0
    assert log.read_text().splitlines() == [
        "--version",
        "diff dev --against ../before/dev.json --format markdown",
        "check dev --against ../before/dev.json",
    ]
    assert run("AFTER", 0, 1) == 1  # a mandatory change rule fails the pull request
    assert run("AFTER", 2, 1) == 2  # bad input, said by diff
    # A pull request that upgrades the toolkit across a schema version: said in the summary, not failed, and
    # nothing compared (the BEFORE made by the base branch's toolkit says schema 1, `--version` says 2).
    assert run("BEFORE", 0, 0, base_schema="1") == 0
    log.unlink()
    assert run("AFTER", 2, 1) == 0 and log.read_text().splitlines() == ["--version"]
    assert "the base branch's plan is schema 1, this toolkit's 2" in (tmp_path / "summary.md").read_text()


def test_init_into_a_folder_it_cannot_write_is_bad_input(tmp_path, capsys):
    """A folder init may not create or write is the user's to fix: exit 2 naming it, never 3 (a bug)."""
    code, _, err = run_cli(capsys, "init", "/proc/mlplatform-init-test")
    assert code == 2 and err.startswith("error: cannot write /proc/mlplatform-init-test"), err


# --- the CI workflow, read as GitHub reads it ---------------------------------------------------------------


def _closure(jobs: dict, job: str) -> set[str]:
    """Every job `job` waits on, directly or not."""
    needs = jobs[job].get("needs", [])
    direct = [needs] if isinstance(needs, str) else needs
    return set(direct).union(*(_closure(jobs, n) for n in direct))


def _pulumi_steps(job: dict) -> list[tuple[str, str]]:
    """(stack select, up/preview) pairs of a job: the commands run, in order."""
    runs = [s.get("run", "") for s in job["steps"]]
    return [(r, i) for i, r in enumerate(runs) if "pulumi " in r]


def test_the_workflow_deploys_each_stack_cluster_then_kubernetes_layer_and_dev_never_waits_on_prod(tmp_path, capsys):
    assert run_cli(capsys, "init", str(tmp_path / "p"))[0] == 0
    jobs = yaml.safe_load((tmp_path / "p/.github/workflows/infra.yml").read_text())["jobs"]
    # Every job a job needs exists, and the graph has no cycle (the closure would recurse forever).
    for name, job in jobs.items():
        needs = job.get("needs", [])
        assert set([needs] if isinstance(needs, str) else needs) <= set(jobs), name
    for stack in ("dev", "prod"):
        cluster, layer = f"deploy-{stack}", f"deploy-{stack}-kubernetes"
        preview, preview_layer = f"preview-{stack}", f"preview-{stack}-kubernetes"
        assert {cluster, layer, preview, preview_layer} <= set(jobs)
        # Per stack, in order: its cluster, then its Kubernetes layer; both behind the stack's environment.
        assert cluster in _closure(jobs, layer) and preview in _closure(jobs, preview_layer)
        assert jobs[cluster]["environment"] == jobs[layer]["environment"] == stack
        assert "offline" in _closure(jobs, cluster) and "offline" in _closure(jobs, preview)
        # The in-VPC jobs run on the stack's runner only once the variable says that runner is up.
        runner = f"MLP_VPC_RUNNER_{stack.upper()}"
        for name in (layer, preview_layer):
            assert jobs[name]["runs-on"] == ["self-hosted", f"mlp-{stack}-vpc"]
            assert f"vars.{runner} == 'true'" in jobs[name]["if"]
        for name in (cluster, preview):
            assert jobs[name]["runs-on"] == "ubuntu-latest" and runner not in jobs[name]["if"]
        # The cluster job says when the layer waits for its runner (a skipped job prints nothing).
        waits = [s for s in jobs[cluster]["steps"] if runner in s.get("if", "")]
        assert waits and "::warning" in waits[0]["run"] and "GITHUB_STEP_SUMMARY" in waits[0]["run"]
        # Every Pulumi job creates its stack (in its own project) before it previews or updates it.
        for name in (cluster, layer, preview, preview_layer):
            steps = [s.get("run", "") for s in jobs[name]["steps"]]
            cwd = " --cwd kubernetes-layer" if name.endswith("-kubernetes") else ""
            select = next(i for i, r in enumerate(steps) if "pulumi stack select" in r)
            assert f"pulumi stack select --create --stack {stack}{cwd}" in steps[select], name
            action = next(i for i, r in enumerate(steps) if "pulumi up" in r or "pulumi preview" in r)
            assert select < action and f"--stack {stack}" in steps[action]
            assert (f"--cwd kubernetes-layer --stack {stack}" in steps[action]) == bool(cwd)
            # The pack's venv from its own folder: its requirements name paths relative to it.
            assert any("(cd policies && python -m venv venv" in r for r in steps), name
    # dev never waits on prod (nor on prod's approval); prod deploys after dev.
    for name in ("deploy-dev", "deploy-dev-kubernetes", "preview-dev", "preview-dev-kubernetes"):
        assert not any("prod" in job for job in _closure(jobs, name)), name
    assert {"deploy-dev", "deploy-dev-kubernetes"} <= _closure(jobs, "deploy-prod")
    # ... also when dev's layer was skipped for want of its runner: prod's condition accepts "skipped".
    condition = jobs["deploy-prod"]["if"]
    assert condition.startswith("${{ !cancelled()") and "needs.deploy-dev.result == 'success'" in condition
    assert "skipped" in condition and "needs.deploy-dev-kubernetes.result" in condition
    assert not any("matrix" in job.get("strategy", {}) for job in jobs.values())
    # The README the jobs point to says how the in-VPC runner is first brought up, and which variable to set.
    readme = (tmp_path / "p/README.md").read_text()
    assert "## The first deploy: the in-VPC runner" in readme and "README.md, The first deploy" in str(jobs)
    assert all(f"MLP_VPC_RUNNER_{s}" in readme for s in ("DEV", "PROD")) and "mlp-dev-vpc" in readme


# --- requirements.txt installs on another machine ------------------------------------------------------------


class _Installed:
    """An installed distribution whose PEP 610 record says where it came from."""

    def __init__(self, direct_url: dict | None, version: str = "0.2.0"):
        self.version = version
        self._text = json.dumps(direct_url) if direct_url is not None else None

    def read_text(self, name):
        return self._text if name == "direct_url.json" else None


def _requirement_lines(root):
    return {
        rel: [line for line in (root / rel).read_text().splitlines() if line and not line.startswith("#")]
        for rel in ("requirements.txt", "kubernetes-layer/requirements.txt", "policies/requirements.txt")
    }


def _fake_wheel(folder, version="0.2.0"):
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"ml_platform_eks-{version}-py3-none-any.whl"
    wheel.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip: only its path matters here
    return wheel


def test_installed_from_a_wheel_init_copies_it_into_the_project_and_names_it_relatively(tmp_path, capsys, monkeypatch):
    """The issue: requirements.txt held `ml-platform-eks @ file:///tmp/.../x.whl`, which no CI runner has."""
    from mlplatform.scaffold import pinning as module

    wheel = _fake_wheel(tmp_path / "downloads")
    record = {"url": wheel.as_uri(), "archive_info": {}}
    monkeypatch.setattr(module.metadata, "distribution", lambda name: _Installed(record))
    root = tmp_path / "acme"
    code, out, err = run_cli(capsys, "init", str(root))
    assert code == 0 and not err, err
    assert (root / "vendor" / wheel.name).read_bytes() == wheel.read_bytes()
    assert _requirement_lines(root) == {
        "requirements.txt": [f"./vendor/{wheel.name}"],
        "kubernetes-layer/requirements.txt": [f"../vendor/{wheel.name}"],
        "policies/requirements.txt": [f"../vendor/{wheel.name}"],
    }
    # pip reads a path against the working directory, and each file is installed from its own folder.
    for rel, (line,) in _requirement_lines(root).items():
        assert ((root / rel).parent / line).resolve() == (root / "vendor" / wheel.name).resolve()
    # Nothing the project holds names the machine that ran init.
    for path in root.rglob("*"):
        if path.is_file() and path.suffix != ".whl":
            assert str(tmp_path) not in path.read_text(), path
    assert f"requirements.txt pins the toolkit: ./vendor/{wheel.name}\n" in out
    assert "not on PyPI" in (root / "requirements.txt").read_text()


def test_a_requirement_is_pinned_as_any_machine_installs_it(tmp_path, capsys, monkeypatch):
    from mlplatform.scaffold import pinning as module

    # From an index (no record): the version, from the team's index (not PyPI).
    monkeypatch.setattr(module.metadata, "distribution", lambda name: _Installed(None))
    assert run_cli(capsys, "init", str(tmp_path / "a"))[0] == 0
    assert set(map(tuple, _requirement_lines(tmp_path / "a").values())) == {(f"ml-platform-eks=={VERSION}",)}
    # From a repository: its URL and commit.
    vcs = {"url": "https://github.com/acme/ml-platform-eks", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}
    monkeypatch.setattr(module.metadata, "distribution", lambda name: _Installed(vcs))
    assert run_cli(capsys, "init", str(tmp_path / "b"))[0] == 0
    line = "ml-platform-eks @ git+https://github.com/acme/ml-platform-eks@abc123"
    assert set(map(tuple, _requirement_lines(tmp_path / "b").values())) == {(line,)}
    # From a wheel that is gone, or a folder (editable): the version, and init says what CI then needs.
    for record in (
        {"url": (tmp_path / "gone" / "ml_platform_eks-0.2.0-py3-none-any.whl").as_uri(), "archive_info": {}},
        {"url": (tmp_path / "checkout").as_uri(), "dir_info": {"editable": True}},
    ):
        monkeypatch.setattr(module.metadata, "distribution", lambda name, r=record: _Installed(r))
        folder = tmp_path / f"c{len(list(tmp_path.iterdir()))}"
        code, _, err = run_cli(capsys, "init", str(folder))
        assert code == 0 and set(map(tuple, _requirement_lines(folder).values())) == {(f"ml-platform-eks=={VERSION}",)}
        assert "not on PyPI" in err and "--wheel" in err and "--requirement" in err
        assert str(tmp_path) not in (folder / "requirements.txt").read_text()


def test_requirement_and_wheel_options(tmp_path, capsys):
    spec = f"ml-platform-eks=={VERSION}"
    assert run_cli(capsys, "init", str(tmp_path / "a"), "--requirement", spec)[0] == 0
    assert set(map(tuple, _requirement_lines(tmp_path / "a").values())) == {(spec,)}
    wheel = _fake_wheel(tmp_path / "dist")
    assert run_cli(capsys, "init", str(tmp_path / "b"), "--wheel", str(wheel))[0] == 0
    assert _requirement_lines(tmp_path / "b")["kubernetes-layer/requirements.txt"] == [f"../vendor/{wheel.name}"]
    assert (tmp_path / "b" / "vendor" / wheel.name).is_file()
    # A path of this machine is refused, naming it and the ways that work; nothing is written.
    for bad in (f"ml-platform-eks @ {wheel.as_uri()}", str(wheel), f"-e {tmp_path}"):
        code, _, err = run_cli(capsys, "init", str(tmp_path / "c"), "--requirement", bad)
        assert code == 2 and "on this machine" in err and "--wheel" in err, err
        assert not (tmp_path / "c").exists()
    for argv, fragment in (
        (["--wheel", str(tmp_path / "dist" / "other-1.0-py3-none-any.whl")], "is not a wheel of ml-platform-eks"),
        (["--wheel", str(tmp_path / "ml_platform_eks-9.9.9-py3-none-any.whl")], "no such file"),
        (["--wheel", str(wheel), "--requirement", spec], "give one of them"),
    ):
        code, _, err = run_cli(capsys, "init", str(tmp_path / "c"), *argv)
        assert code == 2 and fragment in err, err


def test_init_inside_a_project_refuses_unless_told(tmp_path, capsys):
    outer = tmp_path / "outer"
    assert run_cli(capsys, "init", str(outer), "--name", "platform")[0] == 0
    # The nearest Pulumi.yaml upward, as the Pulumi CLI finds it, is named.
    for target, found in (
        (outer / "teams" / "ml", ("platform", outer)),
        (outer / "kubernetes-layer" / "x", ("platform-kubernetes", outer / "kubernetes-layer")),
    ):
        code, _, err = run_cli(capsys, "init", str(target))
        assert code == 2, err
        assert f"inside the Pulumi project '{found[0]}' ({found[1] / 'Pulumi.yaml'})" in err
        assert "--allow-nested" in err and not target.exists()
    code, _, err = run_cli(capsys, "init", str(outer / "teams" / "ml"), "--allow-nested")
    assert code == 0 and (outer / "teams" / "ml" / "Pulumi.yaml").is_file(), err
    # In the project's own folder it stays refused: it would overwrite, whatever the flag.
    code, _, err = run_cli(capsys, "init", str(outer), "--allow-nested")
    assert code == 2 and "never overwrites" in err
