"""`--format markdown`: a pull-request comment per command, with the summary, cost, policy results, node
groups, placement matrix and Mermaid diagrams of the deployment path and waves."""

from __future__ import annotations

import re

import pytest

import mlplatform.plan
from mlplatform.cli import main
from tests.conftest import ROOT, stack_config
from tests.runs import shipped_run


@pytest.fixture(autouse=True)
def _shipped_runs(monkeypatch):
    """The shipped stacks' runs of this session (tests/conftest.py), not new ones: the format is under test."""
    real = mlplatform.plan.run_stack

    def run(stack, config, project, **kw):
        shipped = project.root == ROOT and stack in ("dev", "prod") and config == stack_config(stack)
        return shipped_run(stack) if shipped else real(stack, config, project, **kw)

    monkeypatch.setattr(mlplatform.plan, "run_stack", run)


def markdown(capsys, *argv) -> tuple[int, str]:
    code = main([*argv, "--format", "markdown"])
    return code, capsys.readouterr().out


def test_plan_markdown_is_a_pull_request_comment_with_diagrams(capsys):
    code, out = markdown(capsys, "plan", "dev")
    assert code == 0
    assert out.startswith("<!-- mlplatform plan --format markdown -->\n")
    assert re.search(r"\*\*dev: 5 node groups, \d+ resources, placement: invariants hold, policy: not run\*\*", out)
    assert re.search(r"\*\*Cost\*\* \(USD per month, us-east-1\): idle floor \*\*(≥ )?[\d,.]+\*\*", out)
    assert "Policy pack: not run by `plan` (`mlplatform check dev` runs it)." in out
    diagrams = re.findall(r"```mermaid\n(.*?)```", out, re.S)
    assert len(diagrams) == 2
    path, waves = diagrams
    assert "subgraph vpc" in path and "step2" in path and "apiPrivate" in path  # the layer runs inside the VPC
    assert "#lt;organization#gt;/ml-platform-eks/dev" in path  # the StackReference, escaped for Mermaid
    assert "wave 1:" in waves and "the cluster stack is up" in waves
    assert "| profile | initial | jupyter | jobs | spot | gpu |" in out  # the placement matrix
    assert "| gpu | gpu | ON_DEMAND | g5.xlarge |" in out  # the node groups
    assert all(line == line.rstrip() for line in out.splitlines())


def test_check_markdown_names_the_failing_rule_and_how_to_fix_it(capsys):
    stack = ROOT / "examples" / "stacks" / "Pulumi.prod-unprotected.yaml"
    code, out = markdown(capsys, "check", "--config-file", str(stack), "--stack", "prod")
    assert code == 1
    assert out.startswith("<!-- mlplatform check --format markdown -->\n")
    assert re.search(r"❌ \*\*failed: \d+ mandatory violations, 0 advisory violations\*\*", out)
    assert "| prod-resources-protected | cluster-eksCluster (aws:eks/cluster:Cluster) | mandatory |" in out
    assert "- `prod-resources-protected`: Leave protectResources unset" in out


def test_several_stacks_start_with_a_summary_table(capsys):
    code, out = markdown(capsys, "plan", "dev", "prod")
    assert code == 0
    assert "## mlplatform plan: 2 stacks, exit 0" in out and "| stack | exit | result |" in out
    assert out.count("### Stack `") == 2 and out.count("```mermaid") == 4
