"""`mlplatform check`: tables and JSON, exit codes 0/1/2, and the policy config a stack runs with."""

from __future__ import annotations

import json

import yaml

from mlplatform.cli import main
from tests.conftest import STACKS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_stack(tmp_path, stack: str, **settings) -> str:
    doc = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())
    for key, value in settings.items():
        doc["config"][f"ml-platform-eks:{key}"] = value
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_check_dev_passes_with_its_policy_config(capsys):
    code, out, _ = run_cli(capsys, "check", "dev")
    assert code == 0
    assert "policies/config/dev.json" in out
    assert "changed by policy config: eks-endpoint-private=advisory" in out
    assert "passed: 0 mandatory violations, 0 advisory violations" in out


def test_check_prod_json(capsys):
    code, out, _ = run_cli(capsys, "check", "prod", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["passed"] is True and doc["mandatory"] == 0 and doc["violations"] == []
    assert doc["policyConfig"] is None
    levels = {r["name"]: r["level"] for r in doc["rules"]}
    assert levels["imdsv2-required"] == "mandatory" and levels["prod-workload-on-demand"] == "advisory"


def test_broken_stack_fails_naming_the_rule(capsys, tmp_path):
    path = write_stack(tmp_path, "prod", protectResources=False)
    code, out, _ = run_cli(capsys, "check", "--config-file", path)
    assert code == 1
    assert "prod-resources-protected" in out and "failed" in out
    assert "protectResources" in out  # the remediation says what to change

    code, out, _ = run_cli(capsys, "check", "--config-file", path, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["passed"] is False
    assert {v["policy"] for v in doc["violations"] if v["level"] == "mandatory"} == {"prod-resources-protected"}
    assert {v["resourceType"] for v in doc["violations"]} >= {"aws:eks/cluster:Cluster", "aws:kms/key:Key"}


def test_policy_config_downgrade_makes_the_check_pass(capsys, tmp_path):
    path = write_stack(tmp_path, "prod", protectResources=False)
    relax = tmp_path / "relax.json"
    relax.write_text(json.dumps({"prod-resources-protected": "advisory"}))
    code, out, _ = run_cli(capsys, "check", "--config-file", path, "--policy-config", str(relax))
    assert code == 0
    assert "prod-resources-protected=advisory" in out and "passed" in out


def test_a_public_dev_endpoint_needs_the_dev_policy_config(capsys, tmp_path):
    """The laptop path (public endpoint from an egress CIDR) fails eks-endpoint-private unless relaxed."""
    endpoint = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.7/32"]}
    stack = write_stack(tmp_path, "dev", endpoint=endpoint, kubernetesLayer="inline")
    empty = tmp_path / "none.json"
    empty.write_text("{}")
    code, out, _ = run_cli(capsys, "check", "--config-file", str(stack), "--policy-config", str(empty), "--json")
    assert code == 1
    assert {v["policy"] for v in json.loads(out)["violations"]} == {"eks-endpoint-private"}
    code, out, _ = run_cli(capsys, "check", "--config-file", str(stack), "--json")
    assert code == 0 and json.loads(out)["advisory"] == 1


def test_bad_input_exits_2(capsys, tmp_path):
    bad_policy = tmp_path / "bad.json"
    bad_policy.write_text(json.dumps({"no-such-rule": "advisory"}))
    code, _, err = run_cli(capsys, "check", "prod", "--policy-config", str(bad_policy))
    assert code == 2 and "no-such-rule" in err

    code, _, err = run_cli(capsys, "check", "prod", "--policy-config", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err

    not_json = tmp_path / "broken.json"
    not_json.write_text("{nope")
    code, _, err = run_cli(capsys, "check", "prod", "--policy-config", str(not_json))
    assert code == 2 and "not valid JSON" in err

    code, _, err = run_cli(capsys, "check", "nosuchstack")
    assert code == 2 and "known stacks" in err

    path = write_stack(tmp_path, "prod", nodeGroups={"initial": {"minSize": 5, "maxSize": 2}})
    code, _, err = run_cli(capsys, "check", "--config-file", path)
    assert code == 2 and "minSize" in err


def test_the_docs_document_every_rule_and_both_ways_to_run_them():
    from mlplatform_policies import POLICIES
    from tests.conftest import ROOT

    page = (ROOT / "docs" / "policy.md").read_text()
    rules = (ROOT / "docs" / "policies.md").read_text()
    missing = [p.name for p in POLICIES if f"`{p.name}`" not in rules]
    assert missing == []
    assert "mlplatform check" in page and "pulumi preview --stack prod --policy-pack policies" in page
    workflow = (ROOT / ".github" / "workflows" / "infra.yml").read_text()
    assert "check --all" in workflow and "--policy-pack policies" in workflow and "pulumi up" in workflow


def test_placement_invariants_fail_the_check(capsys, tmp_path):
    # Two spot groups with different extra taints: MLRun's tolerations cover neither, so constrain-mode
    # jobs could land nowhere. The policy pack sees the ConfigMap; the placement proof sees the jobs.
    path = write_stack(
        tmp_path,
        "dev",
        nodeGroups={"spot": {"taints": [{"key": "pool", "value": "a"}]}},
        additionalNodeGroups=[
            {
                "name": "spot-b",
                "capacityType": "SPOT",
                "instanceTypes": ["c5.4xlarge"],
                "maxSize": 5,
                "taints": [{"key": "pool", "value": "b"}],
            }
        ],
    )
    code, out, _ = run_cli(capsys, "check", "--config-file", path, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["passed"] is False
    placement = [v["message"] for v in doc["violations"] if v["policy"] == "placement-invariants"]
    assert "mlrun-job-constrain reaches no node group; its pods would stay Pending" in placement
    assert any(r["name"] == "placement-invariants" for r in doc["rules"])


def test_shipped_stacks_keep_their_placement_promises(capsys):
    for stack in ("dev", "prod"):
        code, out, _ = run_cli(capsys, "check", stack, "--json")
        assert code == 0
        assert not [v for v in json.loads(out)["violations"] if v["policy"] == "placement-invariants"]


def test_a_p5_group_behind_the_mlrun_namespaces_7_cpu_maximum_fails_check(capsys, tmp_path):
    """Issue 30: the placement proof said an 8-GPU MLRun job lands on `train` while the LimitRange refused it."""
    p5 = [{"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "maxSize": 2}]
    capped = {"namespaces": {"mlrun": {"limits": {"max": {"cpu": "7", "memory": "28Gi"}}}}}
    path = write_stack(tmp_path, "dev", additionalNodeGroups=p5, workloads=capped)
    code, out, _ = run_cli(capsys, "check", "--config-file", path, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["passed"] is False
    [found] = [v for v in doc["violations"] if v["policy"] == "placement-invariants"]
    assert found["level"] == "mandatory"
    assert "whole-node-train is refused by the API server in namespace mlrun" in found["message"]
    assert "workloads.namespaces.mlrun.limits.max" in found["message"]
