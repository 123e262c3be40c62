"""`mlplatform plan`: what a user sees, in tables and in JSON, and how bad input is refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mlplatform.cli import main
from tests.conftest import ROOT, STACKS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_prints_the_node_group_table(capsys):
    code, out, _ = run_cli(capsys, "plan", "dev")
    assert code == 0
    assert "Plan for stack dev" in out and "mlp-dev" in out
    for group in ("initial", "jupyter", "jobs", "spot", "gpu"):
        assert f"│ {group}" in out
    assert "CriticalAddonsOnly=true:NoSchedule" in out
    assert "app.iguazio.com/lifecycle=preemptible:NoSchedule" in out
    assert "kubeconfig: [secret]" in out
    assert "to create (17 of them created by pulumi-eks)" in out
    assert "aws:eks/cluster:Cluster  (created by pulumi-eks)" in out


def test_plan_json_for_prod(capsys):
    code, out, _ = run_cli(capsys, "plan", "prod", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["stack"] == "prod" and doc["environment"] == "prod"
    groups = {g["name"]: g for g in doc["nodeGroups"]}
    assert list(groups) == ["initial", "workload", "gpu"]
    initial = groups["initial"]
    assert (initial["minSize"], initial["desiredSize"], initial["maxSize"]) == (3, 3, 3)
    assert initial["capacityType"] == "ON_DEMAND"
    assert initial["taints"] == [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]
    gpu = groups["gpu"]
    assert gpu["amiType"] == "AL2023_x86_64_NVIDIA" and gpu["role"] == "gpu"
    assert gpu["autoscalerTags"]["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "1"
    assert {"type", "name", "parent", "inputs", "createdBy"} <= set(doc["resources"][0])
    by_eks = {r["type"] for r in doc["resources"] if r["createdBy"] == "pulumi-eks"}
    assert {"aws:eks/cluster:Cluster", "aws:iam/openIdConnectProvider:OpenIdConnectProvider"} <= by_eks
    assert "aws:eks/nodeGroup:NodeGroup" not in by_eks
    assert doc["exports"]["kubeconfig"] == "[secret]"
    assert "jupyter" not in groups


def test_plan_reads_any_config_file(tmp_path, capsys):
    src = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    path = tmp_path / "Pulumi.research.yaml"
    path.write_text(
        src.replace(
            "ml-platform-eks:nodeGroups:", "ml-platform-eks:clusterName: research\n  ml-platform-eks:nodeGroups:"
        )
    )
    code, out, _ = run_cli(capsys, "plan", "--config-file", str(path), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["stack"] == "research" and doc["clusterName"] == "research"


def test_config_error_exits_2_with_the_key(tmp_path, capsys):
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(
        "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n"
        "  ml-platform-eks:nodeGroups:\n    jobs:\n      minSize: 9\n      maxSize: 2\n"
    )
    code, out, err = run_cli(capsys, "plan", "--config-file", str(path))
    assert code == 2 and out == ""
    assert "ml-platform-eks:nodeGroups.jobs.minSize" in err and "Traceback" not in err


def test_unknown_stack_lists_the_known_ones(capsys):
    code, _, err = run_cli(capsys, "plan", "staging")
    known = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS.glob("Pulumi.*.yaml"))
    assert code == 2 and {"dev", "prod"} <= set(known) and f"known stacks: {', '.join(known)}" in err


def test_console_script_exits_2_without_traceback(tmp_path):
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text("- not\n- a mapping\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mlplatform", "plan", "--config-file", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "must be a YAML mapping" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", [[], ["plan", "--bogus"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
