"""The EKS Auto Mode rules (mlplatform_policies/auto_mode.py) and the NodePool rules on Auto Mode's pools, on the
Auto Mode example stack and broken variants of it."""

from __future__ import annotations

import pytest

from mlplatform_core.model import resource_types
from tests.policies.variants import (
    DEV_POLICY_CONFIG,
    EKS,
    EKS_NAME,
    NG,
    assert_rule_case,
    drop,
    edit,
    evaluate,
    mandatory,
    messages,
    set_at,
    shipped,
)

STACK = "dev-automode"
POOL = resource_types.NODE_POOL
CLASS = resource_types.AUTO_MODE_NODE_CLASS
TEMPLATE = ["spec", "template", "spec"]


def _cases():
    yield (
        "auto-mode-capabilities-together",
        STACK,
        lambda r: edit(r, EKS, EKS_NAME, set_at(["storageConfig", "blockStorage", "enabled"], False)),
        "mandatory",
    )
    yield (
        "node-class-private-subnets",
        STACK,
        lambda r: edit(
            r,
            CLASS,
            "nodeclass-jobs",
            set_at(["spec", "subnetSelectorTerms"], [{"tags": {"kubernetes.io/role/elb": "1"}}]),
        ),
        "mandatory",
    )
    yield (
        "auto-mode-node-class-storage-key",
        STACK,
        lambda r: edit(r, CLASS, "nodeclass-gpu", set_at(["spec", "ephemeralStorage", "kmsKeyID"], "my key")),
        "mandatory",
    )


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


def test_the_auto_mode_example_passes_every_rule():
    assert mandatory(evaluate(shipped(STACK), DEV_POLICY_CONFIG)) == set()


def test_node_classes_give_no_public_addresses_and_select_their_subnets():
    resources = edit(
        shipped(STACK),
        CLASS,
        "nodeclass-jobs",
        set_at(["spec", "advancedNetworking", "associatePublicIPAddress"], True),
    )
    assert "public IP addresses" in messages(evaluate(resources), "node-class-private-subnets")
    resources = edit(shipped(STACK), CLASS, "nodeclass-jobs", lambda p: p["spec"].pop("subnetSelectorTerms"))
    assert "selects no subnets" in messages(evaluate(resources), "node-class-private-subnets")
    # The same rule holds Karpenter's EC2NodeClasses to it.
    resources = edit(
        shipped("dev-karpenter"),
        resource_types.EC2_NODE_CLASS,
        "ec2nodeclass-jobs",
        set_at(["spec", "subnetSelectorTerms"], [{"tags": {"kubernetes.io/role/elb": "1"}}]),
    )
    assert "selects public subnet cluster-vpc-public-0" in messages(evaluate(resources), "node-class-private-subnets")


def test_a_customer_managed_key_is_required_only_when_the_policy_config_asks():
    config = {"auto-mode-node-class-storage-key": {"customerManagedKey": True}}
    found = messages(evaluate(shipped(STACK), config), "auto-mode-node-class-storage-key")
    assert "aws/ebs key" in found and "customer managed key" in found
    key = "arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-5e6f-1a2b-3c4d-5e6f1a2b3c4d"
    resources = edit(shipped(STACK), CLASS, None, set_at(["spec", "ephemeralStorage", "kmsKeyID"], key))
    assert not messages(evaluate(resources, config), "auto-mode-node-class-storage-key")


def test_a_node_role_without_built_in_pools_is_refused_as_eks_refuses_it():
    resources = edit(shipped(STACK), EKS, EKS_NAME, set_at(["computeConfig", "nodePools"], []))
    assert "nodeRoleArn but no node pools" in messages(evaluate(resources), "auto-mode-capabilities-together")


def test_the_node_pool_rules_read_auto_modes_labels():
    # A GPU pool limited only by Auto Mode's gpu-manufacturer label is limited.
    resources = edit(
        shipped(STACK),
        POOL,
        "nodepool-gpu",
        lambda p: p["spec"]["template"]["spec"].update(
            requirements=[r for r in p["spec"]["template"]["spec"]["requirements"] if "instance-type" not in r["key"]]
        ),
    )
    assert not messages(evaluate(resources), "karpenter-gpu-pool-dedicated")
    # GPU families in a CPU pool, named with Auto Mode's label, are found.
    resources = edit(
        shipped(STACK),
        POOL,
        "nodepool-spot",
        lambda p: [
            r.update(values=["m5", "g5"])
            for r in p["spec"]["template"]["spec"]["requirements"]
            if r["key"].endswith("family")
        ],
    )
    assert "g5" in messages(evaluate(resources), "karpenter-gpu-types-only-in-gpu-pools")


def test_auto_mode_pools_need_the_system_pool_or_a_managed_initial_group():
    resources = edit(shipped(STACK), EKS, EKS_NAME, set_at(["computeConfig", "nodePools"], ["general-purpose"]))
    found = messages(evaluate(resources), "karpenter-initial-group")
    assert "built-in system pool" in found and "Auto Mode NodePools" in found
    resources = edit(
        shipped(STACK),
        POOL,
        "nodepool-jobs",
        set_at([*TEMPLATE[:2], "metadata", "labels", "mlplatform.io/node-role"], "initial"),
    )
    assert "Auto Mode's built-in system pool" in messages(evaluate(resources), "karpenter-initial-group")
    # Karpenter's pools still need a managed initial group (the controller runs there).
    resources = drop(shipped("dev-karpenter"), NG, lambda r: r.name == "initial")
    assert "Karpenter controller" in messages(evaluate(resources), "karpenter-initial-group")


def test_development_pools_are_refused_in_prod():
    # A prod NodePool (the object and its nodes labelled prod) for notebooks: as a prod node group would be.
    def prod(props: dict) -> None:
        set_at(["metadata", "labels", "mlplatform.io/environment"], "prod")(props)
        set_at([*TEMPLATE[:2], "metadata", "labels", "mlplatform.io/environment"], "prod")(props)

    resources = edit(shipped(STACK), POOL, "nodepool-jupyter", prod)
    found = messages(evaluate(resources), "no-dev-groups-in-prod")
    assert "NodePool jupyter (role jupyter) is for development work" in found
    assert "NodePool spot" not in found  # still dev: the rule does not run there
