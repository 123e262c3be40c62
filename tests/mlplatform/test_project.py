"""Finding the project: upward from the working directory or --project-dir; a foreign program is never run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlplatform.cli import main
from mlplatform.project import ProjectError, builtin_project, find_project, read_program
from mlplatform_core.model.config import PROJECT
from mlplatform_core.model.deployment import KUBERNETES_DIRECTORY, KUBERNETES_PROJECT
from tests.conftest import ROOT, STACKS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def pulumi_project(folder: Path, main_py: str, runtime: str = "python", name: str = "someone-else") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Pulumi.yaml").write_text(f"name: {name}\nruntime: {runtime}\n")
    (folder / "__main__.py").write_text(main_py)
    (folder / "Pulumi.dev.yaml").write_text((STACKS / "Pulumi.dev.yaml").read_text())
    return folder


def test_the_project_is_found_from_a_folder_below_it(capsys, monkeypatch):
    monkeypatch.chdir(ROOT / "stacks")
    project = find_project()
    assert project is not None and project.root == ROOT and project.name == PROJECT
    assert project.kubernetes_layer is not None and project.kubernetes_layer.name == KUBERNETES_PROJECT
    monkeypatch.chdir(ROOT / KUBERNETES_DIRECTORY)  # the layer's own Pulumi.yaml: its project is the one above
    assert find_project().root == ROOT
    code, _, err = run_cli(capsys, "place", "dev", "-f", str(ROOT / "examples/manifests/mlrun-jobs.yaml"))
    assert code == 0, err


def test_no_project_exits_2_saying_where_it_looked_and_for_what(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["plan", "dev"], ["check", "--all"], ["place", "dev", "-f", "x.yaml"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "", argv
        assert f"looked for Pulumi.yaml or Pulumi.yml in {tmp_path.resolve()} and every folder above it" in err
        assert "mlplatform init DIR" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "plan", "dev", "--project-dir", str(tmp_path))
    assert code == 2 and f"--project-dir {tmp_path}: no Pulumi.yaml or Pulumi.yml in" in err


FOREIGN = {
    "another runtime": ("console.log('hi')\n", "nodejs", "its runtime is 'nodejs', not python"),
    "a program of its own": (
        "open('RAN', 'w').write('ran')\nimport pulumi\n",
        "python",
        "does not call mlplatform_program.cluster_program() or kubernetes_layer_program()",
    ),
    "imports without calling": (
        "open('RAN', 'w').write('ran')\nimport mlplatform_program\n",
        "python",
        "does not call mlplatform_program.cluster_program()",
    ),
    "not Python": ("def (:\n", "python", "is not valid Python"),
}


@pytest.mark.parametrize("case", FOREIGN)
def test_a_foreign_pulumi_project_is_refused_and_never_run(case, tmp_path, capsys, monkeypatch):
    source, runtime, why = FOREIGN[case]
    folder = pulumi_project(tmp_path / "theirs", source, runtime)
    (folder / "sub").mkdir()
    monkeypatch.chdir(folder / "sub")
    for argv in (["plan", "dev"], ["check", "dev"], ["plan", "--config-file", str(folder / "Pulumi.dev.yaml")]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "", (argv, err)
        assert f"{folder / 'Pulumi.yaml'} is a Pulumi project not built on ml-platform-eks" in err
        assert why in err
    assert not (folder / "RAN").exists() and not (folder / "sub" / "RAN").exists()  # its code never ran


@pytest.mark.parametrize(
    "source",
    [
        "from mlplatform_program import cluster_program\n\ncluster_program()\n",
        "import mlplatform_program as p\np.cluster_program()\n",
        "from mlplatform_program.cluster_program import cluster_program as build\nimport pulumi\nbuild()\n",
    ],
)
def test_a_program_built_on_the_toolkit_is_recognised_in_the_ways_python_imports(source, tmp_path):
    folder = pulumi_project(tmp_path, source, name="acme")
    program = read_program(folder / "Pulumi.yaml")
    assert (program.name, program.calls, program.stack_dir) == ("acme", "cluster_program", folder)


def test_main_names_the_program_file(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("from mlplatform_program import cluster_program\ncluster_program()\n")
    (tmp_path / "Pulumi.yaml").write_text("name: acme\nruntime: {name: python}\nmain: src/app.py\nstackConfigDir: st\n")
    program = read_program(tmp_path / "Pulumi.yaml")
    assert program.run_path == tmp_path / "src" / "app.py" and program.stack_dir == tmp_path / "st"


def test_a_layer_that_reads_another_project_is_refused(tmp_path):
    pulumi_project(tmp_path, "from mlplatform_program import cluster_program\ncluster_program()\n", name="acme")
    layer = tmp_path / KUBERNETES_DIRECTORY
    layer.mkdir()
    (layer / "Pulumi.yaml").write_text("name: acme-kubernetes\nruntime: python\nstackConfigDir: ..\n")
    (layer / "__main__.py").write_text(
        "from mlplatform_program import kubernetes_layer_program\nkubernetes_layer_program()\n"
    )
    with pytest.raises(ProjectError, match=r"reads the cluster stack of project 'ml-platform-eks' \(the default"):
        find_project(tmp_path)
    (layer / "__main__.py").write_text(
        "from mlplatform_program import kubernetes_layer_program\nkubernetes_layer_program(cluster_project='acme')\n"
    )
    assert find_project(tmp_path).kubernetes_layer.cluster_project == "acme"
    (layer / "Pulumi.yaml").write_text("name: acme-kubernetes\nruntime: python\n")  # its own stack files
    with pytest.raises(ProjectError, match="both programs must read one stack file per stack"):
        find_project(tmp_path)


@pytest.mark.parametrize(
    ("stack", "ok"),
    [("dev", True), ("acme/dev", True), (f"acme/{PROJECT}/dev", True), (f"acme/{KUBERNETES_PROJECT}/dev", True)],
)
def test_pulumi_qualified_stack_names_name_the_stack_file(stack, ok, capsys):
    code, out, err = run_cli(capsys, "place", stack, "-f", str(ROOT / "examples/manifests/mlrun-jobs.yaml"), "--json")
    assert code == 0, err
    assert json.loads(out)["stack"] == "dev"


def test_a_stack_of_another_project_is_refused_with_the_reason(capsys):
    code, out, err = run_cli(capsys, "plan", "acme/other-project/dev")
    assert code == 2 and out == ""
    assert "stack 'acme/other-project/dev' belongs to project 'other-project', but this project is" in err
    assert f"name it dev, acme/dev or acme/{PROJECT}/dev" in err


def test_a_config_file_works_from_any_folder_with_the_installed_programs(tmp_path, capsys, monkeypatch):
    path = tmp_path / "Pulumi.research.yaml"
    path.write_text((STACKS / "Pulumi.prod.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "plan", "--config-file", str(path), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [p["project"] for p in doc["deployment"]["programs"]] == [PROJECT, KUBERNETES_PROJECT]
    assert doc["resourceCount"] > 50 and doc["source"] == "Pulumi.research.yaml"
    assert builtin_project().root.is_dir()  # the installed programs, as `mlplatform init` writes them
