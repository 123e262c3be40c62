"""Several stacks in one `mlplatform check` / `plan`: per-stack results, one exit code (the worst)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from mlplatform.cli import main
from tests.conftest import ROOT, STACKS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A copy of the project with two more stacks: one that fails a mandatory rule, one that cannot be read."""
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("kubernetes-layer",):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(STACKS, tmp_path / "stacks")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    failing = yaml.safe_load((STACKS / "Pulumi.prod.yaml").read_text())
    failing["config"]["ml-platform-eks:protectResources"] = False
    (tmp_path / "stacks" / "Pulumi.failing.yaml").write_text(yaml.safe_dump(failing))
    broken = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    broken["config"]["ml-platform-eks:nodeGroups"]["jobs"].update(minSize=9, maxSize=2)
    (tmp_path / "stacks" / "Pulumi.broken.yaml").write_text(yaml.safe_dump(broken))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_all_shipped_stacks_passes_with_one_line_each(capsys):
    code, out, _ = run_cli(capsys, "check", "--all")
    assert code == 0
    shipped = sorted(p.name.split(".")[1] for p in STACKS.glob("Pulumi.*.yaml"))
    assert shipped == ["dev", "dev-automode", "dev-karpenter", "prod"]
    for stack in shipped:
        assert f"Policy check for stack {stack} " in out
    assert "mlplatform check: 4 stacks" in out and "exit 0" in out


def test_the_worst_stack_sets_the_exit_code_and_hides_no_other_result(project, capsys):
    code, out, err = run_cli(capsys, "check", "--all", "--json")
    assert code == 2
    doc = json.loads(out)
    results = {s["stack"]: s for s in doc["stacks"]}
    assert {name: s["exitCode"] for name, s in results.items()} == {
        "broken": 2,
        "dev": 0,
        "dev-automode": 0,
        "dev-karpenter": 0,
        "failing": 1,
        "prod": 0,
    }
    assert doc["exitCode"] == 2
    assert "ml-platform-eks:nodeGroups.jobs.minSize" in results["broken"]["error"]
    assert results["broken"]["error"] in err
    assert results["dev"]["passed"] is True and results["prod"]["passed"] is True
    assert {v["policy"] for v in results["failing"]["violations"] if v["level"] == "mandatory"} == {
        "prod-resources-protected"
    }

    code, out, err = run_cli(capsys, "check", "--all")
    assert code == 2
    summary = out[out.index("mlplatform check: 6 stacks") :]
    for line in ("broken", "dev", "dev-automode", "dev-karpenter", "failing", "prod"):
        assert line in summary
    assert "failed: " in summary and "error:" in summary and "exit 2" in summary

    code, out, _ = run_cli(capsys, "check", "dev", "failing")
    assert code == 1 and "failed" in out and "passed" in out


def test_plan_of_several_stacks_equals_each_plan_alone(capsys):
    single = {}
    for stack in ("dev", "prod"):
        assert main(["plan", stack, "--json"]) == 0
        single[stack] = json.loads(capsys.readouterr().out)
    code, out, _ = run_cli(capsys, "plan", "prod", "dev", "--json")
    assert code == 0
    doc = json.loads(out)
    assert [s["stack"] for s in doc["stacks"]] == ["prod", "dev"] and doc["exitCode"] == 0
    for s in doc["stacks"]:
        assert {k: v for k, v in s.items() if k != "exitCode"} == single[s["stack"]]


def test_plan_all_reports_a_bad_stack_and_plans_the_others(project, capsys):
    code, out, err = run_cli(capsys, "plan", "--all")
    assert code == 2
    assert "Plan for stack dev" in out and "Plan for stack prod" in out and "Plan for stack failing" in out
    assert "minSize" in err and "mlplatform plan: 6 stacks" in out and "Plan for stack dev-automode" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--all", "dev"], "--all"),
        (["plan", "--all", "--config-file", "x.yaml"], "--all"),
        (["check", "dev", "prod", "--config-file", "x.yaml"], "--config-file"),
        (["plan"], "name a stack"),
    ],
)
def test_stack_selections_that_mean_nothing_exit_2(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and message in err


def test_two_stacks_that_would_create_one_cluster_are_refused_and_the_others_run(project, capsys):
    for twin in ("twin-a", "twin-b"):
        doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
        doc["config"]["ml-platform-eks:clusterName"] = "shared-cluster"
        (project / "stacks" / f"Pulumi.{twin}.yaml").write_text(yaml.safe_dump(doc))
    code, out, _ = run_cli(capsys, "check", "twin-a", "twin-b", "dev", "--json")
    doc = json.loads(out)
    by_stack = {s["stack"]: s for s in doc["stacks"]}
    assert code == 2 and by_stack["dev"]["exitCode"] == 0
    for twin in ("twin-a", "twin-b"):
        assert by_stack[twin]["exitCode"] == 2
        assert "would both create the EKS cluster 'shared-cluster' in us-east-1" in by_stack[twin]["error"]
    # pinned to different accounts, the same name is two clusters
    for twin, account in (("twin-a", "111111111111"), ("twin-b", "222222222222")):
        path = project / "stacks" / f"Pulumi.{twin}.yaml"
        doc = yaml.safe_load(path.read_text())
        doc["config"]["aws:allowedAccountIds"] = [account]
        path.write_text(yaml.safe_dump(doc))
    from mlplatform.collisions import colliding
    from mlplatform.project import find_project
    from mlplatform.stacks import Target

    assert colliding(find_project(project), [Target("twin-a", None), Target("twin-b", None)]) == {}
