"""The AWS hardening rules (mlplatform_policies/hardening.py) on the shipped stacks and broken variants."""

from __future__ import annotations

import json

import pytest

from tests.policies.variants import add, assert_rule_case, drop, edit, evaluate, set_at, shipped

FLOW_LOG = "aws:ec2/flowLog:FlowLog"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
DEFAULT_SG = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
KEY_POLICY = "aws:kms/keyPolicy:KeyPolicy"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"


def _policy(change):
    def apply(props: dict) -> None:
        doc = json.loads(props["policy"])
        change(doc)
        props["policy"] = json.dumps(doc)

    return apply


def _root_uses_the_key(doc: dict) -> None:
    doc["Statement"][0]["Action"] = ["kms:*"]


def _describe_every_node_group(doc: dict) -> None:
    for st in doc["Statement"]:
        if st.get("Sid") == "DescribeThisClustersNodeGroups":
            st["Resource"] = "*"


def _cases():
    # One case per rule (tests/policies/test_rule_declarations.py); more variants below.
    yield "vpc-flow-logs", "prod", lambda r: drop(r, FLOW_LOG), "mandatory"
    yield "default-security-group-closed", "prod", lambda r: drop(r, DEFAULT_SG), "mandatory"
    yield "secrets-key-policy", "prod", lambda r: drop(r, KEY_POLICY), "mandatory"
    yield (
        "iam-actions-scoped-to-resources",
        "dev",
        lambda r: edit(r, ROLE_POLICY, "platform-autoscaler", _policy(_describe_every_node_group)),
        "mandatory",
    )


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


VARIANTS = [
    ("vpc-flow-logs", lambda r: edit(r, LOG_GROUP, None, set_at(["retentionInDays"], 0))),
    ("vpc-flow-logs-unencrypted", lambda r: edit(r, LOG_GROUP, None, set_at(["kmsKeyId"], None))),  # CKV_AWS_158
    (
        "default-security-group-closed",
        lambda r: edit(r, DEFAULT_SG, None, set_at(["egress"], [{"protocol": "-1", "cidrBlocks": ["0.0.0.0/0"]}])),
    ),
    ("secrets-key-policy", lambda r: edit(r, KEY_POLICY, None, _policy(_root_uses_the_key))),
]


@pytest.mark.parametrize("rule,breaks", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_weakened_configuration_fails_too(rule, breaks):
    assert_rule_case(rule.removesuffix("-unencrypted"), "dev", breaks, "mandatory")


def test_a_key_policy_that_lets_the_account_use_the_key_is_too_wide():
    def root_decrypts(doc: dict) -> None:
        doc["Statement"][0]["Action"].append("kms:Decrypt")

    wide = edit(shipped("prod"), KEY_POLICY, None, _policy(root_decrypts))
    violations = [v for v in evaluate(wide) if v.policy == "secrets-key-policy"]
    assert violations and "use the key (kms:Decrypt)" in violations[0].message


def test_a_key_with_its_own_explicit_policy_passes():
    (key_policy,) = [r for r in shipped("prod") if r.type == KEY_POLICY]
    inline = edit(
        drop(shipped("prod"), KEY_POLICY), "aws:kms/key:Key", None, set_at(["policy"], key_policy.props["policy"])
    )
    assert "secrets-key-policy" not in {v.policy for v in evaluate(inline)}


def test_a_vpc_of_someone_elses_program_needs_its_own_flow_log():
    extra = add(shipped("prod"), "aws:ec2/vpc:Vpc", "other", {"cidrBlock": "10.9.0.0/16", "id": "vpc-other"})
    rules = {v.policy for v in evaluate(extra)}
    assert {"vpc-flow-logs", "default-security-group-closed"} <= rules


def _write_every_log_group(doc: dict) -> None:
    for st in doc["Statement"]:
        st["Resource"] = "*"


# EKS Auto Mode's shipped stack creates the same VPC, key and flow log role as the others (no add-on role).
AUTO_MODE_CASES = [
    ("vpc-flow-logs", lambda r: drop(r, FLOW_LOG)),
    ("default-security-group-closed", lambda r: drop(r, DEFAULT_SG)),
    ("secrets-key-policy", lambda r: drop(r, KEY_POLICY)),
    (
        "iam-actions-scoped-to-resources",
        lambda r: edit(r, ROLE_POLICY, "cluster-vpc-flow-logs", _policy(_write_every_log_group)),
    ),
]


@pytest.mark.parametrize("rule,breaks", AUTO_MODE_CASES, ids=[c[0] for c in AUTO_MODE_CASES])
def test_the_hardening_rules_hold_on_the_auto_mode_stack(rule, breaks):
    assert_rule_case(rule, "dev-automode", breaks, "mandatory")
