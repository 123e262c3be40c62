"""MLRun settings: derived from the layout's labels and taints, checked the way MLRun uses them."""

from __future__ import annotations

import pytest

from mlplatform_core.model.ml_settings.mlrun import decode_mlrun_env, mlrun_env
from mlplatform_core.model.scheduling import LIFECYCLE_LABEL, PREEMPTIBLE, Toleration
from tests.conftest import stack_config
from tests.core.model.conftest import admits, stack, tolerations_of


def test_dev_settings_decode_to_the_spot_groups_labels_and_taints():
    layout, workloads = stack("dev")
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    (spot,) = layout.spot_groups
    assert decoded["node_selector"][LIFECYCLE_LABEL] == PREEMPTIBLE
    assert decoded["node_selector"].items() <= spot.labels.items()
    assert decoded["tolerations"] == [t.to_dict() for t in map(Toleration.for_taint, spot.taints)]
    # allow/constrain: a job with these tolerations and the selector lands on spot and only there.
    for group in layout.groups:
        assert admits(group, decoded["node_selector"], tolerations_of(decoded)) == group.preemptible


def test_each_selector_pair_alone_means_spot():
    # constrain mode ORs one affinity term per pair, so no pair may also match an on-demand node.
    layout, workloads = stack("dev")
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    for key, value in decoded["node_selector"].items():
        matching = [g for g in layout.groups if g.labels.get(key) == value]
        assert matching and all(g.preemptible for g in matching), key


def test_prevent_mode_keeps_untolerating_jobs_off_spot():
    layout, workloads = stack("dev")
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    assert decoded["preemption_mode"] == "prevent"
    for group in layout.spot_groups:  # prevent strips the tolerations: the spot taint alone must repel
        assert not admits(group, {}, [])


def test_no_spot_group_gives_mlruns_empty_defaults():
    layout, workloads = stack("prod")
    env = mlrun_env(layout, workloads)
    assert env["MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR"] == "e30="  # base64 of {}
    assert env["MLRUN_PREEMPTIBLE_NODES__TOLERATIONS"] == "W10="  # base64 of []


def test_gpu_spot_group_does_not_hand_gpu_tolerations_to_every_job():
    groups = stack_config("dev")["ml-platform-eks:nodeGroups"]
    groups["gpu"].update(capacityType="SPOT", instanceTypes=["g5.2xlarge"])
    layout, workloads = stack("dev", **{"ml-platform-eks:nodeGroups": groups})
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    assert {t["key"] for t in decoded["tolerations"]} == {LIFECYCLE_LABEL}
    gpu = layout.group("gpu")
    assert not admits(gpu, decoded["node_selector"], tolerations_of(decoded))
    assert admits(layout.group("spot"), decoded["node_selector"], tolerations_of(decoded))


def test_custom_spot_taint_flows_into_the_tolerations():
    taint = {"key": "example.com/spot", "value": "yes", "effect": "NoExecute"}
    layout, workloads = stack("dev", **{"ml-platform-eks:spotTaint": taint})
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    assert decoded["tolerations"] == [
        {"key": "example.com/spot", "operator": "Equal", "value": "yes", "effect": "NoExecute"}
    ]


@pytest.mark.parametrize("name", ["dev", "prod"])
def test_priority_and_resources_match_the_cluster_objects(name):
    layout, workloads = stack(name)
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    assert decoded["default_priority_class"] == "igz-workload-medium"
    assert decoded["valid_priority_classes"] == [p.name for p in workloads.workload_classes]
    assert decoded["default_priority_class"] in decoded["valid_priority_classes"]
    limits = workloads.mlrun.limits
    assert decoded["resources"] == {"requests": limits.default_request.to_dict(), "limits": limits.default.to_dict()}


def test_env_follows_workload_settings():
    raw = {
        "ml-platform-eks:workloads": {
            "preemptionMode": "allow",
            "defaultPriority": "low",
            "namespaces": {"mlrun": {"limits": {"default": {"cpu": "3"}}}},
        }
    }
    layout, workloads = stack("dev", **raw)
    decoded = decode_mlrun_env(mlrun_env(layout, workloads))
    assert decoded["preemption_mode"] == "allow"
    assert decoded["default_priority_class"] == "igz-workload-low"
    assert decoded["resources"]["limits"]["cpu"] == "3"
