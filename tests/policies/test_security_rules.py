"""The security baseline rules (mlplatform_policies/security.py) on the shipped stacks and broken variants."""

from __future__ import annotations

import json

import pytest

from mlplatform_policies.security import world_open
from tests.policies.variants import (
    DELETE,
    DEV_POLICY_CONFIG,
    EKS,
    EKS_NAME,
    LT,
    NG,
    add,
    advisory,
    assert_rule_case,
    configured,
    edit,
    evaluate,
    mandatory,
    set_at,
    shipped,
)

PUBLIC_ENDPOINT = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.0/24"]}
PROD_PUBLIC_ENDPOINT = {"endpoint": PUBLIC_ENDPOINT}
DEV_OPEN_ENDPOINT = {"endpoint": {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]}}


def _autoscaler_policy_unscoped(props: dict) -> None:
    doc = json.loads(props["policy"])
    for st in doc["Statement"]:
        st.pop("Condition", None)
    props["policy"] = json.dumps(doc)


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level); a function so the runs happen inside the tests.
    yield (
        "imdsv2-required",
        dev,
        lambda r: edit(r, LT, "jobs-lt", set_at(["metadataOptions", "httpTokens"], "optional")),
        "mandatory",
    )
    yield (
        "encrypted-root-volumes",
        prod,
        lambda r: edit(r, LT, "workload-lt", set_at(["blockDeviceMappings", 0, "ebs", "encrypted"], "false")),
        "mandatory",
    )
    yield (
        "no-ssh-remote-access",
        dev,
        lambda r: edit(r, NG, "jupyter", set_at(["remoteAccess"], {"ec2SshKey": "ops"})),
        "mandatory",
    )
    yield (
        "control-plane-logging",
        prod,
        lambda r: edit(r, EKS, EKS_NAME, set_at(["enabledClusterLogTypes"], ["api", "audit"])),
        "mandatory",
    )
    yield (
        "secrets-kms-encryption",
        prod,
        lambda r: edit(r, EKS, EKS_NAME, set_at(["encryptionConfig"], DELETE)),
        "mandatory",
    )
    yield "eks-endpoint-not-open", dev, lambda r: configured(dev, **DEV_OPEN_ENDPOINT), "mandatory"
    yield "eks-endpoint-private", prod, lambda r: configured(prod, **PROD_PUBLIC_ENDPOINT), "mandatory"
    yield (
        "node-role-no-admin-policies",
        prod,
        lambda r: add(
            r,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "cluster-node-admin",
            {
                "role": next(x.state["name"] for x in r if x.type == "aws:iam/role:Role" and x.name == "cluster-node"),
                "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess",
            },
        ),
        "mandatory",
    )
    yield (
        "autoscaler-iam-scoped",
        dev,
        lambda r: edit(r, "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", _autoscaler_policy_unscoped),
        "mandatory",
    )
    yield "prod-resources-protected", prod, lambda r: configured(prod, protectResources=False), "mandatory"


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


def test_a_dev_stack_opened_to_a_cidr_relies_on_the_dev_policy_config():
    # The laptop path (public endpoint from an egress CIDR) fails without policies/config/dev.json, as it should.
    public = configured("dev", endpoint=PUBLIC_ENDPOINT, kubernetesLayer="inline")
    assert mandatory(evaluate(public)) == {"eks-endpoint-private"}
    assert advisory(evaluate(public, DEV_POLICY_CONFIG)) == {"eks-endpoint-private"}
    assert mandatory(evaluate(shipped("dev"))) == set()  # the shipped dev stack is private


def test_node_without_launch_template_fails_imds_and_volume_rules():
    bare = edit(shipped("prod"), NG, "workload", set_at(["launchTemplate"], DELETE))
    assert {"imdsv2-required", "encrypted-root-volumes"} <= mandatory(evaluate(bare))


def test_ssh_key_in_launch_template():
    keyed = edit(shipped("prod"), LT, "initial-lt", set_at(["keyName"], "ops"))
    assert "no-ssh-remote-access" in mandatory(evaluate(keyed))


def test_autoscaler_policy_listing_asg_arns_is_scoped():
    def listed(props: dict) -> None:
        doc = json.loads(props["policy"])
        for st in doc["Statement"]:
            if st.pop("Condition", None):
                st["Resource"] = [
                    "arn:aws:autoscaling:us-west-2:123456789012:autoScalingGroup:*:autoScalingGroupName/eks-jobs-1"
                ]
        props["policy"] = json.dumps(doc)

    scoped = edit(shipped("dev"), "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", listed)
    assert "autoscaler-iam-scoped" not in {v.policy for v in evaluate(scoped, DEV_POLICY_CONFIG)}


def test_autoscaler_scope_must_name_this_cluster():
    def other_cluster(props: dict) -> None:
        props["policy"] = props["policy"].replace("cluster-autoscaler/mlp-dev", "cluster-autoscaler/mlp-other")

    wrong = edit(shipped("dev"), "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", other_cluster)
    assert "autoscaler-iam-scoped" in mandatory(evaluate(wrong, DEV_POLICY_CONFIG))


def test_unscoped_inline_admin_policy_on_node_role():
    node_role = next(r for r in shipped("prod") if r.type == "aws:iam/role:Role" and r.name == "cluster-node")
    admin = add(
        shipped("prod"),
        "aws:iam/rolePolicy:RolePolicy",
        "cluster-node-star",
        {
            "role": node_role.state["name"],
            "policy": json.dumps({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}),
        },
    )
    assert "node-role-no-admin-policies" in mandatory(evaluate(admin))
    # The same document on the autoscaler's IRSA role is not the node role's business (other rules apply).
    irsa = next(r for r in shipped("prod") if r.name == "platform-autoscaler" and r.type == "aws:iam/role:Role")
    elsewhere = add(
        shipped("prod"),
        "aws:iam/rolePolicy:RolePolicy",
        "irsa-star",
        {
            "role": irsa.state["name"],
            "policy": json.dumps({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}),
        },
    )
    assert "node-role-no-admin-policies" not in {v.policy for v in evaluate(elsewhere)}


def test_untagged_resources_get_prod_rules():
    # Only an explicit dev tag relaxes prod's rules; dropping the tag must not loosen the gate.
    untagged = edit(shipped("dev"), EKS, EKS_NAME, set_at(["tags"], {}))
    assert "prod-resources-protected" in mandatory(evaluate(untagged, DEV_POLICY_CONFIG))


@pytest.mark.parametrize(
    "cidrs,open_",
    [
        (["0.0.0.0/0"], True),
        (["0.0.0.0/1", "128.0.0.0/1"], True),  # the whole space, written in two
        (["0.0.0.0/1"], True),  # half of it: the threshold
        (["0.0.0.0/2", "64.0.0.0/2", "203.0.113.0/24"], True),
        (["0.0.0.0/2", "64.0.0.0/3", "96.0.0.0/4"], False),  # 7/16
        (["0.0.0.0/2", "0.0.0.0/2", "0.0.0.0/3", "64.0.0.0/3"], False),  # overlaps count once: 3/8
        (["203.0.113.0/24", "198.51.100.0/24"], False),
        (["10.0.0.1/1", "128.0.0.0/1"], True),  # host bits set: EKS normalises, so does the rule
        (["::/1", "8000::/1"], True),
        (["not-a-cidr"], False),  # left to the provider, which refuses it
    ],
)
def test_open_to_the_world_means_half_the_address_space_or_more(cidrs, open_):

    assert (world_open(cidrs) is not None) is open_


def test_the_endpoint_rule_sees_halves_that_make_a_whole():
    split = configured(
        "dev",
        endpoint={"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["0.0.0.0/1", "128.0.0.0/1"]},
    )
    found = [v for v in evaluate(split, DEV_POLICY_CONFIG) if v.policy == "eks-endpoint-not-open"]
    assert found and all(v.mandatory for v in found)
    assert "cover 100% of the IPv4 space" in found[0].message


def test_a_prod_hop_limit_above_one_is_mandatory_and_dev_may_use_two():
    prod = [v for v in evaluate(configured("prod", imdsHopLimit=2)) if v.policy == "imdsv2-required"]
    assert prod and all(v.mandatory for v in prod)
    assert {v.resource_type for v in prod} == {LT}
    assert "borrow the node role" in prod[0].message
    dev = evaluate(configured("dev", imdsHopLimit=2), DEV_POLICY_CONFIG)
    assert "imdsv2-required" not in {v.policy for v in dev}
