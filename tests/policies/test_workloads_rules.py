"""The workload-layer rules (mlplatform_policies/workloads.py) on the shipped stacks and broken variants."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.policies.variants import (
    CM,
    DEV_POLICY_CONFIG,
    LR,
    PC,
    assert_rule_case,
    b64,
    configured,
    drop,
    edit,
    evaluate,
    mandatory,
    messages,
    set_at,
    shipped,
)

PREEMPTING_HIGH = {"workloads": {"priorityClasses": {"high": {"preemptionPolicy": "PreemptLowerPriority"}}}}
BURSTABLE_PROD = {
    "workloads": {
        "namespaces": {
            "mlrun": {
                "limits": {"defaultRequest": {"cpu": "500m", "memory": "2Gi"}, "default": {"cpu": "1", "memory": "4Gi"}}
            }
        }
    }
}


def _mlrun_tolerations(tolerations: list) -> Callable[[dict], None]:
    return set_at(["data", "MLRUN_PREEMPTIBLE_NODES__TOLERATIONS"], b64(tolerations))


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level); a function so the runs happen inside the tests.
    yield "priority-classes", prod, lambda r: configured(prod, **PREEMPTING_HIGH), "mandatory"
    yield (
        "workload-namespace-limit-range",
        dev,
        lambda r: drop(r, LR, lambda x: x.props["metadata"]["namespace"] == "jupyter"),
        "mandatory",
    )
    yield "prod-guaranteed-qos-defaults", prod, lambda r: configured(prod, **BURSTABLE_PROD), "mandatory"
    yield (
        "mlrun-spot-settings",
        dev,
        lambda r: edit(
            r,
            CM,
            None,
            _mlrun_tolerations(
                [{"key": "app.iguazio.com/lifecycle", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]
            ),
        ),
        "mandatory",
    )


CASES = list(_cases())


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    assert_rule_case(rule, stack, breaks, level)


def test_mlrun_settings_missing_or_opening_on_demand_nodes():
    no_settings = drop(shipped("dev"), CM)
    assert "no ConfigMap carries" in messages(evaluate(no_settings, DEV_POLICY_CONFIG), "mlrun-spot-settings")
    # Tolerating everything would let preemptible jobs onto the GPU and core-services nodes.
    everything = edit(shipped("dev"), CM, None, _mlrun_tolerations([{"operator": "Exists"}]))
    text = messages(evaluate(everything, DEV_POLICY_CONFIG), "mlrun-spot-settings")
    assert "nvidia.com/gpu=true:NoSchedule" in text and "CriticalAddonsOnly=true:NoSchedule" in text
    selector_everywhere = edit(
        shipped("dev"),
        CM,
        None,
        set_at(["data", "MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR"], b64({"mlplatform.io/environment": "dev"})),
    )
    assert "also matches on-demand group(s)" in messages(
        evaluate(selector_everywhere, DEV_POLICY_CONFIG), "mlrun-spot-settings"
    )


def test_priority_classes_must_exist():
    no_medium = drop(shipped("prod"), PC, lambda r: r.props["metadata"]["name"] == "igz-workload-medium")
    assert "no PriorityClass for the medium tier" in messages(evaluate(no_medium), "priority-classes")


def test_renamed_priority_classes_are_found_through_policy_config():
    renamed = configured("prod", workloads={"priorityClasses": {"high": {"name": "urgent"}}})
    assert "no PriorityClass for the high tier" in messages(evaluate(renamed), "priority-classes")
    names = {"priority-classes": {"classNames": {"high": "urgent"}}}
    assert "priority-classes" not in {v.policy for v in evaluate(renamed, names)}


def test_guaranteed_qos_follows_kubernetes_limit_range_defaulting():
    def limits(item: dict):
        return edit(shipped("prod"), LR, None, set_at(["spec", "limits"], [{"type": "Container", **item}]))

    # Only max set: default takes max and defaultRequest takes default, so pods are Guaranteed.
    assert "prod-guaranteed-qos-defaults" not in mandatory(evaluate(limits({"max": {"cpu": "2", "memory": "4Gi"}})))
    # Same amounts written differently are equal.
    same = {"defaultRequest": {"cpu": "1000m", "memory": "4096Mi"}, "default": {"cpu": "1", "memory": "4Gi"}}
    assert "prod-guaranteed-qos-defaults" not in mandatory(evaluate(limits(same)))
    # Requests without limits leave pods Burstable.
    assert "prod-guaranteed-qos-defaults" in mandatory(
        evaluate(limits({"defaultRequest": {"cpu": "1", "memory": "1Gi"}}))
    )


def test_platform_priority_classes_may_preempt():
    # igz-system-* classes (PreemptLowerPriority) are the platform's, not user tiers.
    with_system = configured("prod", workloads={"systemPriorityClasses": {"enabled": True}})
    assert any(r.type == PC and r.props["metadata"]["name"] == "igz-system-medium" for r in with_system)
    assert "priority-classes" not in {v.policy for v in evaluate(with_system)}
