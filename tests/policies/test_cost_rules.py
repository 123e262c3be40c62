"""The pack's cost rules: its idle floor is the plan's (the core's prices, exactly), offline and in previews."""

from __future__ import annotations

import datetime
import json

import pytest

from mlplatform.check import policy_resources, run_checks
from mlplatform.cli import main
from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import parse
from mlplatform_core.model.cost import estimate
from mlplatform_core.model.layout import build_layout
from mlplatform_policies import cost as pack_cost
from tests.conftest import ROOT, stack_config
from tests.policies.analyzer import PolicyPack, diagnostics_of, keys
from tests.policies.test_pack import recording
from tests.policies.variants import NG, assert_rule_case, configured, edit, evaluate, set_at, shipped

DAY = datetime.date(2026, 11, 22)
CEILING = "idle-cost-ceiling"
GPU = "dev-gpu-scale-from-zero"


@pytest.fixture(autouse=True)
def on_day(monkeypatch):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)
    monkeypatch.setattr(pack_cost, "today", lambda: DAY)


def ceiling(env: str, usd: float) -> dict:
    return {CEILING: {"maxIdleMonthlyUsd": {env: usd}}}


def messages(violations, rule: str) -> list[str]:
    return [v.message for v in violations if v.policy == rule]


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level, policy config): the shipped prod idles at about
    # 2,035 USD/month; its broken variant keeps 4 more m5.4xlarge nodes.
    yield (
        CEILING,
        prod,
        lambda r: edit(r, NG, "workload", set_at(["scalingConfig"], {"minSize": 6, "maxSize": 20, "desiredSize": 6})),
        "advisory",
        ceiling("prod", 3000),
    )
    yield (
        GPU,
        dev,
        lambda r: edit(r, NG, "gpu", set_at(["scalingConfig"], {"minSize": 1, "maxSize": 4, "desiredSize": 1})),
        "advisory",
        None,
    )


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level,config", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level, config):
    assert_rule_case(rule, stack, breaks, level, config)


def plan_floor(stack: str, **edits) -> str:
    raw = stack_config(stack)
    raw.update({f"ml-platform-eks:{k}": v for k, v in edits.items()})
    cfg = parse(raw)
    return f"{estimate(cfg, build_layout(cfg, stack)).idle_floor.usd_per_month:,.2f}"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_pack_prices_the_idle_floor_as_the_plan_does(stack):
    found = messages(evaluate(shipped(stack), ceiling(stack, 1)), CEILING)
    assert len(found) == 1
    # us-east-1: the network, storage and key are priced too (aws-pricing-pages), so the floor is exact
    assert f"the stack costs {plan_floor(stack)} USD/month idle" in found[0] and "not priced" not in found[0]
    assert "NAT gateways " in found[0] and "nodes' root volumes (EBS) " in found[0] and "KMS keys 1.00" in found[0]
    assert f"above the {stack} ceiling of 1.00 USD/month (idle-cost-ceiling.maxIdleMonthlyUsd.{stack})" in found[0]


def test_no_ceiling_is_set_by_default_and_one_above_the_floor_passes():
    assert CEILING not in {v.policy for v in evaluate(shipped("prod"))}
    assert CEILING not in {v.policy for v in evaluate(shipped("prod"), ceiling("prod", 2200))}  # idles at ~2,186
    assert CEILING not in {v.policy for v in evaluate(shipped("prod"), ceiling("dev", 1))}  # another environment's


def test_extended_support_counts_in_the_packs_floor():
    old = configured("dev", kubernetesVersion="1.33")
    (message,) = messages(evaluate(old, ceiling("dev", 1)), CEILING)
    assert "EKS control plane 438.00" in message
    assert f"costs {plan_floor('dev', kubernetesVersion='1.33')} USD/month" in message


def test_a_real_preview_prices_the_child_cluster_once_with_the_providers_region():
    """Through the analyzer protocol, as a fresh preview: the component has no properties, its
    aws:eks/cluster:Cluster child carries the version (1.33: extended support on DAY)."""
    run = recording("prod", kubernetesVersion="1.33")
    config = ceiling("prod", 1)
    resources = policy_resources(run, preview=True)
    with PolicyPack("prod") as pack:
        pack.configure(config)
        found = pack.analyze(resources)
    assert keys(found) == diagnostics_of(run_checks(run, config, preview=True))
    (message,) = [d.message for d in found if d.policy == CEILING]
    assert "EKS control plane 438.00," in message


def test_without_subnets_the_region_comes_from_the_aws_provider():
    stack = configured(
        "prod", network={"vpcId": "vpc-0abc1234", "privateSubnetIds": ["subnet-0abc1234", "subnet-0abc5678"]}
    )
    assert any(r.type == "pulumi:providers:aws" and r.props["region"] == "us-east-1" for r in stack)
    (message,) = messages(evaluate(stack, ceiling("prod", 1)), CEILING)
    assert "node groups at their min" in message and "NAT gateways" not in message


def test_a_ceiling_the_pack_cannot_price_is_reported():
    stack = [r for r in shipped("prod") if r.type != "pulumi:providers:aws"]
    stack = edit(stack, "aws:ec2/subnet:Subnet", None, set_at(["availabilityZone"], "eu-west-1a"))
    (message,) = messages(evaluate(stack, ceiling("prod", 5000)), CEILING)
    assert "cannot hold the stack to the prod ceiling" in message and "in eu-west-1" in message
    assert "node group initial" in message


def test_a_dev_gpu_group_that_idles_is_reported_with_its_cost():
    idle = edit(shipped("dev"), NG, "gpu", set_at(["scalingConfig"], {"minSize": 2, "maxSize": 4, "desiredSize": 2}))
    (violation,) = [v for v in evaluate(idle) if v.policy == GPU]
    g5 = json.loads((ROOT / "mlplatform_core" / "data" / "prices.json").read_text())["on_demand_usd_per_hour"]
    per_month = 2 * g5["g5.xlarge"]["us-east-1"] * 730
    assert f"keeps 2 node(s) running while no GPU work is queued: {per_month:,.2f} USD/month" in violation.message
    assert violation.level == "advisory" and violation.resource_name == "gpu"


def test_prod_gpu_groups_may_keep_warm_nodes_unless_the_config_says_otherwise():
    warm = edit(shipped("prod"), NG, "gpu", set_at(["scalingConfig"], {"minSize": 1, "maxSize": 8, "desiredSize": 1}))
    assert GPU not in {v.policy for v in evaluate(warm)}
    assert GPU in {v.policy for v in evaluate(warm, {GPU: {"environments": ["dev", "prod"]}})}


def test_check_reports_the_cost_rules(tmp_path, capsys):
    stack = tmp_path / "Pulumi.gpu.yaml"
    src = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    stack.write_text(
        src.replace("      instanceTypes: [g5.xlarge]\n", "      instanceTypes: [g5.xlarge]\n      minSize: 1\n")
    )
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"eks-endpoint-private": "advisory", **ceiling("dev", 500)}))
    code = main(["check", "--config-file", str(stack), "--policy-config", str(policy), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["passed"]  # advisory rules do not fail the check
    found = {v["policy"]: v for v in doc["violations"]}
    assert {CEILING, GPU} <= set(found)
    assert "above the dev ceiling of 500.00 USD/month" in found[CEILING]["message"]
    assert {r["name"]: r["level"] for r in doc["rules"]}[CEILING] == "advisory"


def test_a_bad_ceiling_in_the_policy_config_is_refused(tmp_path, capsys):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({CEILING: {"maxIdleMonthlyUsd": {"dev": -5, "staging": 100}}}))
    assert main(["check", "dev", "--policy-config", str(policy)]) == 2
    err = capsys.readouterr().err
    assert "idle-cost-ceiling.maxIdleMonthlyUsd.dev: -5 is below the minimum 0" in err
    assert "unknown key 'staging'" in err
