"""`mlplatform plan`, `check` and `place` on the Karpenter example stack."""

from __future__ import annotations

import json

from mlplatform.cli import main
from mlplatform_core.model import addon_versions
from tests.conftest import ROOT


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_json_shows_each_pools_requirements_labels_taints_limits_and_disruption(capsys):
    code, out, _ = run_cli(capsys, "plan", "dev-karpenter", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["provisioner"] == "karpenter"
    pools = {p["name"]: p for p in doc["nodePools"]}
    assert list(pools) == ["jupyter", "jobs", "spot", "gpu"]
    spot = pools["spot"]
    assert {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]} in spot["requirements"]
    assert spot["labels"]["app.iguazio.com/lifecycle"] == "preemptible"
    assert {"key": "app.iguazio.com/lifecycle", "value": "preemptible", "effect": "NoSchedule"} in spot["taints"]
    assert list(spot["limits"]) == ["cpu", "memory", "nodes"] and spot["limits"]["nodes"] == "10"
    assert spot["disruption"]["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    assert pools["gpu"]["disruption"]["consolidationPolicy"] == "WhenEmpty"
    assert pools["gpu"]["limits"]["nvidia.com/gpu"] == "4"
    assert spot["expireAfter"] == "720h" and spot["weight"] == 50
    # The AL2023 AMI release pinned for the minor (addon_versions.json), not `latest`.
    pin = addon_versions.of_minor("1.35")["al2023Ami"]
    assert spot["nodeClass"]["amiSelectorTerms"] == [{"alias": f"al2023@{pin}"}]
    assert spot["nodeClass"]["metadataOptions"]["httpTokens"] == "required"
    assert "m7i.4xlarge" in spot["instanceTypes"]
    assert [g["name"] for g in doc["nodeGroups"]] == ["initial"]
    assert doc["placement"]["ok"] is True
    kinds = {(o["apiVersion"], o["kind"]) for o in doc["kubernetes"]["objects"]}
    assert {("karpenter.sh/v1", "NodePool"), ("karpenter.k8s.aws/v1", "EC2NodeClass")} <= kinds


def test_plan_tables_show_the_node_pools(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    code, out, _ = run_cli(capsys, "plan", "dev-karpenter")
    assert code == 0
    section = out[out.index("Karpenter NodePools") : out.index("Placement (profiles")]
    for text in ("WhenEmptyOrUnderutilized", "WhenEmpty after 10m", "nvidia.com/gpu: 4", "al2023@v20", "nodes: 10"):
        assert text in section, text
    assert "karpenter-controller" in out and "placement invariants: all hold" in out
    assert "oci://public.ecr.aws/karpenter/karpenter " in out  # the add-ons table names the OCI chart


def test_node_group_stacks_plan_no_pools(capsys):
    code, out, _ = run_cli(capsys, "plan", "dev", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["provisioner"] == "nodeGroups" and doc["nodePools"] == []
    code, out, _ = run_cli(capsys, "plan", "dev")
    assert "Karpenter NodePools" not in out


def test_check_passes_the_example_stack(capsys):
    code, out, _ = run_cli(capsys, "check", "dev-karpenter", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["passed"] is True
    assert doc["policyConfig"].endswith("policies/config/dev-karpenter.json")
    rules = {r["name"] for r in doc["rules"]}
    assert {"karpenter-spot-pool-taint", "karpenter-job-pool-consolidation", "placement-invariants"} <= rules


def reachable(capsys, stack: str, manifest: str) -> dict[str, list[str]]:
    code, out, _ = run_cli(capsys, "place", stack, "-f", str(ROOT / "examples" / "manifests" / manifest), "--json")
    assert code == 0
    return {p["name"]: [g["name"] for g in p["groups"] if g["schedulable"]] for p in json.loads(out)["pods"]}


def test_place_lands_pods_on_the_pools_as_on_the_node_groups(capsys):
    for manifest in ("mlrun-jobs.yaml", "polyaxon-spot-experiment.yaml"):
        assert reachable(capsys, "dev-karpenter", manifest) == reachable(capsys, "dev", manifest), manifest
    # The example is sized for dev's GPU group (g5.xlarge: 3920m cpu allocatable); the pool launches it too.
    assert reachable(capsys, "dev-karpenter", "gpu-training.yaml") == reachable(capsys, "dev", "gpu-training.yaml")
    assert reachable(capsys, "dev", "gpu-training.yaml")["Job/train-resnet"] == ["gpu"]
