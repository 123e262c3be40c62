"""MLRun's preemption enrichment, as mlrun.runtimes.pod.KubeResourceSpec.enrich_function_preemption_spec."""

from __future__ import annotations

import dataclasses

import pytest

from mlplatform_core.placement.mlrun_preemption import MLRunPreemption, enrich_preemption
from mlplatform_core.placement.profiles import ProfileInputs
from tests.core.placement.conftest import (
    LIFECYCLE,
    PREFERRED,
    REQUIRED,
    SELECTOR_ONLY,
    SETTINGS,
    SPOT_TOLERATION,
    shipped_stack,
    terms,
    user_spec,
)

# --- enrichment, as mlrun.runtimes.pod.KubeResourceSpec.enrich_function_preemption_spec ---------------


@pytest.mark.parametrize("mode", ["allow", "constrain", "prevent", "none"])
def test_every_mode_is_a_no_op_without_preemptible_settings(mode):
    assert enrich_preemption(user_spec(), mode, MLRunPreemption()) == user_spec()


def test_none_changes_nothing():
    assert enrich_preemption(user_spec(), "none", SETTINGS) == user_spec()


def test_prevent_with_tolerations_prunes_and_relies_on_the_taint():
    out = enrich_preemption(user_spec(), "prevent", SETTINGS)
    assert out["tolerations"] == [{"key": "team", "operator": "Exists"}]  # spot toleration removed
    assert out["nodeSelector"] == {"team": "a"}  # preemptible selector pair removed
    # the In requirement is pruned, the NotIn one stays (prevent does not purge anti-affinity) and no NotIn is added
    assert terms(out) == [
        {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]},
        {"matchExpressions": [{"key": LIFECYCLE, "operator": "NotIn", "values": ["preemptible"]}]},
    ]


def test_prevent_without_tolerations_replaces_required_affinity_with_one_notin_term():
    out = enrich_preemption(user_spec(), "prevent", SELECTOR_ONLY)
    assert terms(out) == [
        {
            "matchExpressions": [
                {"key": LIFECYCLE, "operator": "NotIn", "values": ["preemptible"]},
                {"key": "pool", "operator": "NotIn", "values": ["spot"]},
            ]
        }
    ]
    assert out["affinity"]["nodeAffinity"][PREFERRED] == user_spec()["affinity"]["nodeAffinity"][PREFERRED]


def test_constrain_adds_tolerations_once_and_replaces_required_affinity_with_ored_in_terms():
    out = enrich_preemption(user_spec(), "constrain", SELECTOR_ONLY)
    assert terms(out) == [
        {"matchExpressions": [{"key": LIFECYCLE, "operator": "In", "values": ["preemptible"]}]},
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["spot"]}]},
    ]
    out = enrich_preemption(user_spec(), "constrain", SETTINGS)
    assert out["tolerations"].count(SPOT_TOLERATION) == 1
    assert out["nodeSelector"] == user_spec()["nodeSelector"]  # constrain leaves the node selector alone


def test_allow_drops_preemptible_affinity_and_selector_and_adds_tolerations():
    spec = user_spec()
    spec["tolerations"] = [{"key": "team", "operator": "Exists"}]
    out = enrich_preemption(spec, "allow", SETTINGS)
    assert terms(out) == [{"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]
    assert out["nodeSelector"] == {"team": "a"}
    assert out["tolerations"] == [{"key": "team", "operator": "Exists"}, SPOT_TOLERATION]


def test_empty_affinity_and_tolerations_are_cleared():
    spec = {
        "containers": [{"name": "base"}],
        "tolerations": [dict(SPOT_TOLERATION)],
        "affinity": {
            "nodeAffinity": {
                REQUIRED: {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": LIFECYCLE, "operator": "In", "values": ["preemptible"]}]}
                    ]
                }
            }
        },
    }
    out = enrich_preemption(spec, "prevent", SETTINGS)
    assert out == {"containers": [{"name": "base"}]}


def test_tolerations_compare_field_by_field_like_v1toleration():
    # Without an explicit operator the user's toleration is not MLRun's, so prevent keeps it (and the pod can
    # still reach spot nodes: the profile check is what catches that).
    spec = {
        "containers": [{"name": "base"}],
        "tolerations": [{"key": LIFECYCLE, "value": "preemptible", "effect": "NoSchedule"}],
    }
    assert enrich_preemption(spec, "prevent", SETTINGS)["tolerations"] == spec["tolerations"]


def test_enrichment_copies_and_rejects_unknown_modes():
    spec = user_spec()
    enrich_preemption(spec, "constrain", SETTINGS)
    assert spec == user_spec()
    with pytest.raises(ValueError, match="not one of allow, constrain, prevent, none"):
        enrich_preemption(spec, "Prevent", SETTINGS)


def test_settings_round_trip_through_the_exported_env():
    cfg, layout = shipped_stack("dev")
    inputs = ProfileInputs.for_stack(cfg, layout)
    assert inputs.mlrun == dataclasses.replace(MLRunPreemption.from_layout(layout), default_mode="prevent")
    assert inputs.mlrun.node_selector[LIFECYCLE] == "preemptible"
    assert inputs.mlrun.tolerations == (SPOT_TOLERATION,)
