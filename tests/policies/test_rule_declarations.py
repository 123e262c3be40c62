"""The rules as declared data (policies/mlplatform_policies/rules.yaml): what the pack builds from them, the
enforcement per environment, the refusal of a bad declaration, and the reference page generated from them."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

import mlplatform_policies
from mlplatform_core.model.config.stack import StackConfig
from mlplatform_policies import BY_NAME, POLICIES, RULES, offline
from mlplatform_policies.rule import ENVIRONMENTS, DeclarationError, load_rules, rule_table
from tests.policies import (
    test_addons_rules,
    test_auto_mode_rules,
    test_cost_rules,
    test_gpu_capacity_rules,
    test_hardening_rules,
    test_iam_validity_rules,
    test_karpenter_rules,
    test_layout_rules,
    test_security_rules,
    test_teams_rules,
    test_workloads_rules,
)
from tests.policies.variants import NG, edit, set_at, shipped
from tests.scripts.test_generators import load

PACKAGE = Path(mlplatform_policies.__file__).parent
CASE_MODULES = (
    test_layout_rules,
    test_workloads_rules,
    test_security_rules,
    test_addons_rules,
    test_cost_rules,
    test_karpenter_rules,
    test_auto_mode_rules,
    test_hardening_rules,
    test_gpu_capacity_rules,
    test_iam_validity_rules,
    test_teams_rules,
)


def test_every_rule_has_one_case_that_breaks_it():
    cases = [case[0] for module in CASE_MODULES for case in module.CASES]
    assert sorted(cases) == sorted(BY_NAME)


def test_the_pack_serves_each_declaration_as_declared():
    assert [p.name for p in POLICIES] == [r.name for r in RULES]
    for rule, policy in zip(RULES, POLICIES, strict=True):
        kind = StackValidationPolicy if rule.stack_rule else ResourceValidationPolicy
        assert isinstance(policy, kind), rule.name
        assert policy.enforcement_level == rule.level
        assert (policy.description, policy.remediation_steps, policy.severity) == (
            rule.description,
            rule.remediation,
            rule.severity,
        )
        schema = policy.config_schema.properties if policy.config_schema else {}
        assert schema == {k: {**s.schema, "default": s.default} for k, s in rule.settings.items()}


def test_rule_modules_hold_checks_only():
    # Building policies is rule.py's job; a module with checks neither builds nor lists them.
    builders = {"ResourceValidationPolicy", "StackValidationPolicy", "Policy", "POLICIES", "RULES"}
    rule_modules = {PACKAGE / f"{r.check.__module__.rsplit('.', 1)[-1]}.py" for r in RULES}
    for path in rule_modules:
        names = {n.id for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Name)}
        assert not names & builders, f"{path.name} builds or lists policies"
    checks = {f"{r.check.__module__.rsplit('.', 1)[-1]}.{r.check.__name__}" for r in RULES}
    assert len(checks) == len(RULES), "each rule has a check of its own"


def test_the_environments_are_the_toolkits():
    assert typing.get_args(StackConfig.model_fields["environment"].annotation) == ENVIRONMENTS


def test_a_rule_left_out_of_dev_runs_on_untagged_and_prod_resources_only():
    rule = next(r for r in RULES if r.name == "prod-workload-on-demand")
    assert rule.enforcement == {"dev": EnforcementLevel.DISABLED, "prod": EnforcementLevel.ADVISORY}
    spot = edit(shipped("prod"), NG, "workload", set_at(["capacityType"], "SPOT"))

    def found(resources):
        return [v for v in offline.evaluate(resources) if v.policy == rule.name]

    assert found(spot) and all(v.level == "advisory" for v in found(spot))
    as_dev = edit(spot, NG, "workload", set_at(["labels", "mlplatform.io/environment"], "dev"))
    as_dev = edit(as_dev, NG, "workload", set_at(["tags", "mlplatform.io/environment"], "dev"))
    assert not found(as_dev)
    untagged = edit(spot, NG, "workload", lambda p: (p["labels"].pop("mlplatform.io/environment"), p.pop("tags")))
    assert found(untagged)


def test_a_stack_rule_left_out_of_dev_drops_what_it_reports_there():
    # prod-guaranteed-qos-defaults: LimitRanges carry no environment of their own, so the stack's counts.
    burstable = {"type": "Container", "defaultRequest": {"cpu": "1"}, "default": {"cpu": "2"}}
    limits = set_at(["spec", "limits"], [burstable])
    lr = "kubernetes:core/v1:LimitRange"
    prod = [v.policy for v in offline.evaluate(edit(shipped("prod"), lr, None, limits))]
    dev = [v.policy for v in offline.evaluate(edit(shipped("dev"), lr, None, limits))]
    assert "prod-guaranteed-qos-defaults" in prod and "prod-guaranteed-qos-defaults" not in dev


RULE = """
- name: {name}
  check: layout.spot_taint
  resources: [aws:eks/nodeGroup:NodeGroup]
  enforcement: {enforcement}
  severity: high
  description: Spot groups are tainted.
  remediation: Taint them.
"""


def declare(tmp_path, text: str):
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    return load_rules(path)


@pytest.mark.parametrize(
    "text,needle",
    [
        (RULE.format(name="a", enforcement="{dev: advisory, prod: mandatory}"), "at one level for all"),
        (RULE.format(name="a", enforcement="{dev: disabled, prod: disabled}"), "at least one environment"),
        (RULE.format(name="a", enforcement="{dev: mandatory}"), "a level for each of dev, prod"),
        (RULE.format(name="a", enforcement="{dev: strict, prod: strict}"), "enforcement.dev 'strict' is not one of"),
        (RULE.format(name="a", enforcement="{dev: mandatory, prod: mandatory}") * 2, "repeated: a"),
        (RULE.format(name="A rule", enforcement="{dev: mandatory, prod: mandatory}"), "lowercase words"),
        (RULE.format(name="a", enforcement="{dev: mandatory, prod: mandatory}") + "  level: high\n", "unknown key"),
        (
            RULE.format(name="a", enforcement="{dev: mandatory, prod: mandatory}").replace("spot_taint", "nothing"),
            "has no function nothing",
        ),
        (
            RULE.format(name="a", enforcement="{dev: mandatory, prod: mandatory}").replace("[aws:eks", "[eks"),
            "type tokens",
        ),
        (
            RULE.format(name="a", enforcement="{dev: advisory, prod: disabled}")
            + "  settings: {environments: {schema: {type: array}, default: [dev, prod]}}\n"
            + "  environmentsSetting: environments\n",
            r"whose default lists the environments the enforcement enables \(dev\)",
        ),
    ],
)
def test_a_bad_declaration_is_refused_naming_the_rule_and_key(tmp_path, text, needle):
    with pytest.raises(DeclarationError, match=needle):
        declare(tmp_path, text)


def test_a_declaration_becomes_a_policy(tmp_path):
    (rule,) = declare(tmp_path, RULE.format(name="spot-tainted", enforcement="{dev: disabled, prod: advisory}"))
    policy = rule.policy()
    assert (policy.name, policy.enforcement_level, rule.resource_types) == (
        "spot-tainted",
        EnforcementLevel.ADVISORY,
        ("aws:eks/nodeGroup:NodeGroup",),
    )


def test_the_rule_table_lists_every_rule_with_its_level_per_environment():
    rows = rule_table(RULES)
    assert [r["name"] for r in rows] == list(BY_NAME)
    by_name = {r["name"]: r for r in rows}
    assert by_name["no-dev-groups-in-prod"]["levels"] == {"dev": "disabled", "prod": "mandatory"}
    assert by_name["dev-gpu-scale-from-zero"]["levels"] == {"dev": "advisory", "prod": "disabled"}
    assert by_name["imdsv2-required"]["resources"] == ["aws:ec2/launchTemplate:LaunchTemplate", NG]
    assert by_name["initial-node-group"]["resources"] == ["stack"]


def test_the_committed_rule_reference_is_the_generated_one():
    generator = load("generate_policy_docs")
    committed = generator.OUTPUT.read_text(encoding="utf-8")
    assert committed == generator.render(), "docs/policies.md is out of date: run scripts/docs/generate_policy_docs.py"
    for rule in RULES:
        assert f"| `{rule.name}` |" in committed


def test_declared_resource_types_are_the_ones_the_checks_read():
    # rules.yaml spells type tokens out; resource_types.py derives Karpenter's from the core's API versions.
    from mlplatform_core.model import resource_types

    known = {v for k, v in vars(resource_types).items() if k.isupper() and isinstance(v, str)}
    assert {t for r in RULES for t in r.resource_types} <= known
