"""The Karpenter rules on the Karpenter example stack: each passes on it and fails on a broken variant.

Broken variants are edited recorded resources: the configuration layer already refuses most of these
mistakes, and the pack must still catch them in hand-written programs (or in a real preview).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mlplatform.check import run_checks
from mlplatform.plan import Plan
from mlplatform_core.model import resource_types
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_policies import BY_NAME, karpenter_pools
from tests.conftest import stack_config
from tests.policies.variants import DEV_POLICY_CONFIG, NG, add, drop, edit, evaluate, mandatory, set_at, shipped
from tests.runs import shipped_run

STACK = "dev-karpenter"
POOL = resource_types.NODE_POOL
CLASS = resource_types.EC2_NODE_CLASS
POLICY = "aws:iam/rolePolicy:RolePolicy"


def _requirements(change):
    def apply(props: dict) -> None:
        reqs = props["spec"]["template"]["spec"]["requirements"]
        props["spec"]["template"]["spec"]["requirements"] = change(reqs)

    return apply


def _without(key: str):
    return _requirements(lambda reqs: [r for r in reqs if r["key"] != key])


def _unscoped_deletion(props: dict) -> None:
    doc = json.loads(props["policy"])
    for st in doc["Statement"]:
        if st.get("Sid") == "AllowScopedDeletion":
            st.pop("Condition")
    props["policy"] = json.dumps(doc)


TEMPLATE = ["spec", "template", "spec"]


def _cases():
    yield "karpenter-spot-pool-taint", lambda r: edit(r, POOL, "nodepool-spot", set_at([*TEMPLATE, "taints"], []))
    yield (
        "karpenter-pool-lifecycle-label",
        lambda r: edit(
            r,
            POOL,
            "nodepool-spot",
            _requirements(lambda q: [x for x in q if x["key"] != "karpenter.sh/capacity-type"]),
        ),
    )
    yield "karpenter-gpu-pool-dedicated", lambda r: edit(r, POOL, "nodepool-gpu", set_at([*TEMPLATE, "taints"], []))
    yield (
        "karpenter-gpu-types-only-in-gpu-pools",
        lambda r: edit(
            r,
            POOL,
            "nodepool-jobs",
            _requirements(
                lambda q: [
                    {**x, "values": [*x["values"], "p4d.24xlarge"]} if x["key"].endswith("instance-type") else x
                    for x in q
                ]
            ),
        ),
    )
    yield "karpenter-pool-limits", lambda r: edit(r, POOL, "nodepool-gpu", set_at(["spec", "limits"], {"nodes": "4"}))
    yield (
        "karpenter-job-pool-consolidation",
        lambda r: edit(
            r, POOL, "nodepool-jobs", set_at(["spec", "disruption", "consolidationPolicy"], "WhenEmptyOrUnderutilized")
        ),
    )
    yield (
        "karpenter-initial-group",
        lambda r: edit(
            r,
            POOL,
            "nodepool-jobs",
            set_at([*TEMPLATE[:2], "metadata", "labels", karpenter_pools.ROLE_LABEL], "initial"),
        ),
    )
    yield (
        "karpenter-node-class-imdsv2",
        lambda r: edit(r, CLASS, "ec2nodeclass-jobs", set_at(["spec", "metadataOptions", "httpTokens"], "optional")),
    )
    yield (
        "karpenter-node-class-encrypted-volumes",
        lambda r: edit(
            r, CLASS, "ec2nodeclass-gpu", set_at(["spec", "blockDeviceMappings", 0, "ebs", "encrypted"], False)
        ),
    )
    yield (
        "karpenter-controller-iam-scoped",
        lambda r: edit(r, POLICY, "karpenter-controller-node-lifecycle", _unscoped_deletion),
    )
    # The rule runs in prod only: the example's node classes, labelled prod, following @latest.
    yield "karpenter-node-image-pinned", lambda r: edit(r, CLASS, None, _prod_on_latest)


def _prod_on_latest(props: dict) -> None:
    props["metadata"]["labels"]["mlplatform.io/environment"] = "prod"
    for term in props["spec"]["amiSelectorTerms"]:
        term["alias"] = term["alias"].split("@")[0] + "@latest"


CASES = list(_cases())


def test_every_karpenter_rule_has_a_case():
    assert sorted(c[0] for c in CASES) == sorted(n for n in BY_NAME if n.startswith("karpenter-"))


def test_the_example_stack_passes_every_rule():
    assert mandatory(evaluate(shipped(STACK), DEV_POLICY_CONFIG)) == set()


@pytest.mark.parametrize("rule,breaks", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_example_and_fails_on_the_broken_one(rule, breaks):
    assert rule not in {v.policy for v in evaluate(shipped(STACK), DEV_POLICY_CONFIG)}
    found = [v for v in evaluate(breaks(list(shipped(STACK))), DEV_POLICY_CONFIG) if v.policy == rule]
    assert found, f"{rule} did not fire"
    assert {v.level for v in found} == {"mandatory"}
    assert all(v.message and v.remediation for v in found)


def messages(resources, rule: str) -> list[str]:
    return [v.message for v in evaluate(resources, DEV_POLICY_CONFIG) if v.policy == rule]


def test_a_pool_that_leaves_the_capacity_type_open_may_launch_spot():
    # No capacity-type requirement: Karpenter prefers spot among what a pool allows.
    resources = edit(shipped(STACK), POOL, "nodepool-jobs", _without("karpenter.sh/capacity-type"))
    (message,) = messages(resources, "karpenter-spot-pool-taint")
    assert "may launch spot nodes" in message and "jobs" in message


def test_a_gpu_pool_must_limit_itself_to_gpu_types():
    def open_gpu(props: dict) -> None:
        _without("node.kubernetes.io/instance-type")(props)
        _without("karpenter.k8s.aws/instance-gpu-manufacturer")(props)

    resources = edit(shipped(STACK), POOL, "nodepool-gpu", open_gpu)
    assert any("does not limit itself" in m for m in messages(resources, "karpenter-gpu-pool-dedicated"))
    resources = edit(
        shipped(STACK),
        POOL,
        "nodepool-gpu",
        _requirements(lambda q: [*q, {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]}]),
    )
    # instance-type In [g5...] and instance-family In [m5] together allow nothing, but m5 is named: reported.
    assert any("m5" in m for m in messages(resources, "karpenter-gpu-pool-dedicated"))


def test_gpu_families_in_a_cpu_pool_are_reported():
    resources = edit(
        shipped(STACK),
        POOL,
        "nodepool-spot",
        _requirements(
            lambda q: [{**x, "values": ["m5", "g5"]} if x["key"].endswith("instance-family") else x for x in q]
        ),
    )
    (message,) = messages(resources, "karpenter-gpu-types-only-in-gpu-pools")
    assert "g5" in message


def test_a_pool_without_a_disruption_block_uses_karpenters_underutilized_default():
    resources = edit(shipped(STACK), POOL, "nodepool-gpu", set_at(["spec", "disruption"], {}))
    (message,) = messages(resources, "karpenter-job-pool-consolidation")
    assert "WhenEmptyOrUnderutilized" in message and "GPU" in message


def test_node_classes_may_rely_on_the_crd_defaults():
    def defaults(props: dict) -> None:
        del props["spec"]["metadataOptions"]
        del props["spec"]["blockDeviceMappings"]

    resources = edit(shipped(STACK), CLASS, "ec2nodeclass-jobs", defaults)
    assert not messages(resources, "karpenter-node-class-imdsv2")
    assert not messages(resources, "karpenter-node-class-encrypted-volumes")
    resources = edit(
        shipped(STACK), CLASS, "ec2nodeclass-jobs", set_at(["spec", "metadataOptions", "httpPutResponseHopLimit"], 3)
    )
    assert messages(resources, "karpenter-node-class-imdsv2")


def test_pools_need_a_managed_initial_group():
    resources = drop(shipped(STACK), NG, lambda r: r.name == "initial")
    assert any("no managed node group" in m for m in messages(resources, "karpenter-initial-group"))


def test_pass_role_on_every_role_is_reported():
    resources = add(
        shipped(STACK),
        POLICY,
        "wide",
        {"policy": json.dumps({"Statement": [{"Effect": "Allow", "Action": "iam:PassRole", "Resource": "*"}]})},
    )
    assert any("iam:PassRole" in m for m in messages(resources, "karpenter-controller-iam-scoped"))


def test_mlrun_settings_must_cover_spot_node_pools():
    def other_taint(props: dict) -> None:
        props["spec"]["template"]["spec"]["taints"] = [{"key": "spot", "value": "yes", "effect": "NoSchedule"}]

    resources = edit(shipped(STACK), POOL, "nodepool-spot", other_taint)
    assert any("spot=yes:NoSchedule of spot group spot" in m for m in messages(resources, "mlrun-spot-settings"))


def test_node_group_stacks_have_nothing_for_the_karpenter_rules():
    assert not [v for v in evaluate(shipped("dev"), DEV_POLICY_CONFIG) if v.policy.startswith("karpenter-")]


# --- `mlplatform check` on the example: passes, and fails when a spot pool loses its taint ------------


def plan_with(change: Any = None) -> Plan:
    cfg = parse(stack_config(STACK))
    run = copy.deepcopy(shipped_run(STACK))
    if change:
        for r in run.resources:
            change(r)
    return Plan(STACK, f"stacks/Pulumi.{STACK}.yaml", cfg, build_layout(cfg, STACK), run)


def test_check_passes_the_example_and_fails_it_without_the_spot_taint():
    assert not [v for v in run_checks(plan_with(), DEV_POLICY_CONFIG) if v.mandatory]

    def untaint(r) -> None:
        if r.type == POOL and r.inputs["metadata"]["name"] == "spot":
            r.inputs["spec"]["template"]["spec"]["taints"] = []

    failing = [v for v in run_checks(plan_with(untaint), DEV_POLICY_CONFIG) if v.mandatory]
    assert {v.policy for v in failing} == {"karpenter-spot-pool-taint"}
    assert failing[0].resource_type == POOL and failing[0].resource_name == "nodepool-spot"


def test_gpu_families_are_the_catalogs():
    """A family counts as NVIDIA GPU only when every type of it in the core's catalog has an NVIDIA GPU."""
    from mlplatform.reports import node_pools
    from mlplatform_core.model import instances

    assert (resource_types.NODE_POOL, resource_types.EC2_NODE_CLASS) == (
        node_pools.NODE_POOL_TYPE,
        node_pools.NODE_CLASS_TYPE,
    )
    families: dict[str, list] = {}
    for t in instances.catalog().values():
        families.setdefault(t.family, []).append(t)
    assert {f for f, ts in families.items() if all(t.nvidia_gpu for t in ts)} == karpenter_pools.NVIDIA_GPU_FAMILIES


def test_a_hop_limit_of_two_passes_in_dev_and_fails_in_prod():
    hop2 = set_at(["spec", "metadataOptions", "httpPutResponseHopLimit"], 2)
    resources = edit(shipped(STACK), CLASS, "ec2nodeclass-jobs", hop2)
    assert not messages(resources, "karpenter-node-class-imdsv2")  # the dev stack's classes say environment dev

    def prod(props: dict) -> None:
        hop2(props)
        props["spec"]["tags"]["mlplatform.io/environment"] = "prod"

    (message,) = messages(edit(shipped(STACK), CLASS, "ec2nodeclass-jobs", prod), "karpenter-node-class-imdsv2")
    assert "httpPutResponseHopLimit is 2 on a prod node" in message

    def untagged(props: dict) -> None:  # no environment tag: the strict (prod) rule applies
        hop2(props)
        del props["spec"]["tags"]["mlplatform.io/environment"]

    assert messages(edit(shipped(STACK), CLASS, "ec2nodeclass-jobs", untagged), "karpenter-node-class-imdsv2")


def test_a_static_pool_needs_only_the_nodes_limit():
    """A static pool (replicas) may carry no cpu, memory or GPU limit (the CRD's CEL rule): only nodes is asked."""

    def static(props: dict) -> None:
        props["spec"]["replicas"] = 2
        props["spec"]["limits"] = {"nodes": "4"}
        props["spec"].pop("weight", None)

    assert messages(edit(shipped(STACK), POOL, "nodepool-gpu", static), "karpenter-pool-limits") == []

    def unbounded(props: dict) -> None:
        static(props)
        props["spec"]["limits"] = {}

    (message,) = messages(edit(shipped(STACK), POOL, "nodepool-gpu", unbounded), "karpenter-pool-limits")
    assert "nodes" in message
