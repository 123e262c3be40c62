"""Output people can read: at 100 columns (and piped with COLUMNS) no label, taint, profile, rule or name is cut.

Every table fits the console's width with each word whole, or is stacked per row when its words
cannot fit side by side; nothing is cut to `…`. Two kinds of line are one line on purpose, whatever
the width (a terminal wraps them): the MLRun settings as KEY=VALUE, copied whole, and the plan's
closing summary line.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
import yaml
from rich.console import Console

from mlplatform.cli import main
from mlplatform.reports.plan_view import node_group_table
from mlplatform.reports.tables import print_table
from mlplatform_core.model.scheduling import Taint
from tests.conftest import ROOT, STACKS
from tests.mlplatform.conftest import EXAMPLES

WIDTH = 100


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(capsys, *argv) -> dict:
    code, out, err = run_cli(capsys, "plan", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def one_line_on_purpose(line: str, doc: dict) -> bool:
    """A KEY=VALUE line of the MLRun settings, a stack output that is one value (an ARN: copied whole), or
    the closing summary line."""
    env = doc["exports"].get("mlrunEnv", {})
    key, _, value = line.strip().partition(": ")
    one_value = key in doc["exports"] and " " not in value
    return any(line.strip() == f"{k}={v}" for k, v in env.items()) or one_value or line.startswith(f"{doc['stack']}: ")


def assert_fits(out: str, width: int, doc: dict | None = None) -> None:
    assert "…" not in out, "\n".join(line for line in out.splitlines() if "…" in line)
    wide = [line for line in out.splitlines() if len(line) > width and not (doc and one_line_on_purpose(line, doc))]
    assert not wide, f"{len(wide)} lines wider than {width}:\n" + "\n".join(wide[:5])


def names_a_user_needs(doc: dict) -> set[str]:
    """Group and pool names, labels, taints, requirements' values and profile names of a plan document."""
    out: set[str] = set()
    for g in doc["nodeGroups"]:
        out |= {g["name"], *g["instanceTypes"], *(f"{k}={v}" for k, v in g["labels"].items())}
        out |= {str(Taint(**t)) for t in g["taints"]}
    for p in doc["nodePools"]:
        out |= {p["name"], *(f"{k}={v}" for k, v in p["labels"].items())}
        out |= {v for r in p["requirements"] for v in r.get("values") or []}
    out |= {p["name"] for p in doc["placement"]["profiles"]}
    return out


@pytest.mark.parametrize("stack", ["dev", "prod", "dev-karpenter"])
def test_the_plan_at_100_columns_cuts_nothing_a_user_needs(stack, capsys, monkeypatch):
    doc = plan_json(capsys, stack)
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    code, out, _ = run_cli(capsys, "plan", stack)
    assert code == 0
    assert_fits(out, WIDTH, doc)
    missing = sorted(n for n in names_a_user_needs(doc) if n not in out)
    assert not missing, missing
    for key, value in doc["exports"].get("mlrunEnv", {}).items():  # copied whole into the MLRun API
        assert f"  {key}={value}\n" in out


def test_the_deployment_waves_name_resources_whole(capsys, monkeypatch):
    doc = plan_json(capsys, "dev")
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    _, out, _ = run_cli(capsys, "plan", "dev")
    tags = [
        r["name"]
        for o in doc["deploymentOrder"]
        for w in o["waves"]
        for r in w["resources"]
        if r["type"].endswith(":Tag")
    ]
    shown = [t for t in tags if t in out]
    assert len(shown) >= 3 and max(len(t) for t in shown) > 60  # the long node-template tag names, whole


def test_piped_output_follows_columns():
    """Piped: COLUMNS wide, and without COLUMNS 100 wide (a CI log, a file)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run(
        [sys.executable, "-m", "mlplatform", "plan", "prod"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    doc = {"stack": "prod", "exports": {"oidcProviderArn": ""}}
    lines = proc.stdout.splitlines()
    mlrun = {i for i, line in enumerate(lines) if line.startswith("  MLRUN_")}
    assert_fits("\n".join(line for i, line in enumerate(lines) if i not in mlrun), WIDTH, doc)
    assert max(len(line) for line in lines if "━" in line) <= WIDTH  # the tables are drawn 100 wide or less


@pytest.mark.parametrize("width", [80, 100, 120, 160, 200])
def test_the_node_group_table_keeps_every_label_whole_at_any_width(width, capsys):
    doc = plan_json(capsys, "dev")
    console = Console(width=width, no_color=True, record=True, file=io.StringIO())
    print_table(console, node_group_table(doc["nodeGroups"]))
    out = console.export_text()
    assert_fits(out, width)
    for g in doc["nodeGroups"]:
        for text in (*(f"{k}={v}" for k, v in g["labels"].items()), *(str(Taint(**t)) for t in g["taints"])):
            assert text in out, (width, text)


def failing_prod(tmp_path):
    raw = yaml.safe_load((STACKS / "Pulumi.prod.yaml").read_text())
    raw["config"]["ml-platform-eks:protectResources"] = False
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def test_check_violations_at_100_columns_name_rule_and_resource_whole(tmp_path, capsys, monkeypatch):
    path = failing_prod(tmp_path)
    code, out, _ = run_cli(capsys, "check", "--config-file", str(path), "--json")
    assert code == 1
    doc = json.loads(out)
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    code, out, _ = run_cli(capsys, "check", "--config-file", str(path))
    assert code == 1
    assert_fits(out, WIDTH)
    assert doc["violations"]
    for v in doc["violations"]:
        assert v["policy"] in out and (v["resourceName"] is None or v["resourceName"] in out)
        assert v["resourceType"] is None or v["resourceType"] in out


def test_place_at_100_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    code, out, _ = run_cli(capsys, "place", "dev", "-f", str(EXAMPLES / "mlrun-jobs.yaml"))
    assert code == 0
    assert_fits(out, WIDTH)
    for group in ("initial", "jupyter", "jobs", "spot", "gpu"):
        assert f"│ {group} " in out or f"node group: {group}" in out


def test_stack_outputs_are_json_and_the_critical_path_hangs_indented(capsys, monkeypatch):
    """A structured stack output reads as `pulumi stack output` prints it (JSON, never Python's repr), a
    summary says `1 entry`, and a wrapped critical path stays indented under its heading."""
    from mlplatform.reports.plan_view import output_lines

    value = {"workload": {"nodeSelector": {"mlplatform.io/node-role": "workload"}, "tolerations": []}}
    assert output_lines("polyaxonEnvironments", value, str, 200) == [f"  polyaxonEnvironments: {json.dumps(value)}"]
    assert output_lines("polyaxonEnvironments", value, str, 100) == [
        "  polyaxonEnvironments: 1 entry (workload); full values with --json"
    ]
    assert output_lines("gpuResources", {}, str, 100) == ["  gpuResources: {}"]
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    _, out, _ = run_cli(capsys, "plan", "prod")
    assert "{'" not in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  critical path: "))
    assert lines[start + 1].startswith("      ")  # the chain continues under its heading, never at column 0
