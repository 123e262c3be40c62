"""GPU groups that really scale and really get GPUs: accelerator label, one size class, the device plugin's reach."""

from __future__ import annotations

import pytest

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model.addons import device_plugin
from mlplatform_core.model.addons.releases import addons_of
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.layout import autoscaler_tags, build_layout
from mlplatform_core.model.scheduling import ACCELERATOR_LABEL, DEVICE_PLUGIN_LABEL, Taint, Toleration
from tests.conftest import stack_config

P = "ml-platform-eks:"
BOTTLEROCKET = "BOTTLEROCKET_x86_64_NVIDIA"


def layout(stack: str = "dev", extra: list | None = None, **groups):
    raw = stack_config(stack)
    for name, settings in groups.items():
        raw[P + "nodeGroups"].setdefault(name, {}).update(settings)
    if extra:
        raw[P + "additionalNodeGroups"] = extra
    return build_layout(parse(raw), stack)


def refusal(stack: str = "dev", extra: list | None = None, **groups) -> str:
    with pytest.raises(ConfigError) as info:
        layout(stack, extra, **groups)
    return str(info.value)


def test_every_gpu_group_carries_the_autoscalers_gpu_label_from_the_catalog():
    lay = layout(
        "prod",
        extra=[
            {"name": "a100", "gpu": True, "instanceTypes": ["p4d.24xlarge"], "maxSize": 2},
            {"name": "l4", "gpu": True, "instanceTypes": ["g6.2xlarge"], "maxSize": 2, "amiType": BOTTLEROCKET},
        ],
    )
    assert {g.name: g.labels[ACCELERATOR_LABEL] for g in lay.gpu_groups} == {
        "gpu": "nvidia-a10g",
        "a100": "nvidia-a100",
        "l4": "nvidia-l4",
    }
    assert not any(ACCELERATOR_LABEL in g.labels for g in lay.groups if not g.gpu)
    # The scale-from-zero template carries it too.
    tags = autoscaler_tags(lay.group("a100"), lay.cluster_name)
    assert tags[f"k8s.io/cluster-autoscaler/node-template/label/{ACCELERATOR_LABEL}"] == "nvidia-a100"


def test_a_gpu_group_of_several_sizes_is_refused_naming_its_types():
    text = refusal(gpu={"instanceTypes": ["g5.xlarge", "g5.2xlarge"]})
    assert f"{P}nodeGroups.gpu.instanceTypes:" in text and "not one size class" in text and "first type" in text


def test_a_gpu_group_of_several_gpu_models_is_refused():
    text = refusal(gpu={"instanceTypes": ["g5.2xlarge", "g6.2xlarge"]})  # both 8 vCPU, 32 GiB, 1 GPU
    assert f"{P}nodeGroups.gpu.instanceTypes:" in text and "a10g, l4" in text and ACCELERATOR_LABEL in text


def test_autoscaled_cpu_groups_hold_one_size_class_static_ones_need_not():
    text = refusal(jobs={"instanceTypes": ["m5.2xlarge", "m5.4xlarge"]})
    assert f"{P}nodeGroups.jobs.instanceTypes:" in text and "not one size class" in text
    same = layout(jobs={"instanceTypes": ["m5.2xlarge", "m6i.2xlarge"]})
    assert same.group("jobs").instance_types == ("m5.2xlarge", "m6i.2xlarge")
    static = layout(extra=[{"name": "batch", "instanceTypes": ["m5.xlarge", "m5.4xlarge"], "minSize": 2, "maxSize": 2}])
    assert static.group("batch").instance_types == ("m5.xlarge", "m5.4xlarge")


def test_users_cannot_set_the_gpu_labels_themselves():
    text = refusal(jobs={"labels": {ACCELERATOR_LABEL: "nvidia-h100"}})
    assert f"{P}nodeGroups.jobs.labels.{ACCELERATOR_LABEL}:" in text
    assert f"labels.{DEVICE_PLUGIN_LABEL}:" in refusal(jobs={"labels": {DEVICE_PLUGIN_LABEL: "true"}})


def test_the_device_plugin_selects_exactly_the_al2023_gpu_groups():
    lay = layout(
        extra=[
            {"name": "bottlerocket-gpu", "gpu": True, "instanceTypes": ["g5.2xlarge"], "amiType": BOTTLEROCKET},
            {"name": "training", "gpu": True, "instanceTypes": ["g6e.xlarge"], "dedicated": True},
        ]
    )
    assert [g.name for g in device_plugin.plugin_groups(lay)] == ["gpu", "training"]
    values = device_plugin.device_plugin_values(lay)
    for g in lay.groups:
        selected = values["nodeSelector"].items() <= g.labels.items()
        assert selected == (g.name in ("gpu", "training")), g.name


def test_the_device_plugin_tolerates_every_taint_of_its_groups():
    user_taint = {"key": "team", "value": "cv", "effect": "NoExecute"}
    lay = layout(gpu={"capacityType": "SPOT", "dedicated": True, "taints": [user_taint]})
    values = device_plugin.device_plugin_values(lay)
    gpu = lay.group("gpu")
    assert Taint("mlplatform.io/node-role", "gpu", "NoSchedule") in gpu.taints
    assert Taint("team", "cv", "NoExecute") in gpu.taints
    for taint in gpu.taints:
        assert any(Toleration.from_dict(t).tolerates(taint) for t in values["tolerations"]), taint


def test_no_device_plugin_when_only_bottlerocket_gpu_groups_exist():
    lay = layout(gpu={"amiType": BOTTLEROCKET})
    assert lay.group("gpu").gpu and DEVICE_PLUGIN_LABEL not in lay.group("gpu").labels
    assert device_plugin.device_plugin_values(lay) is None
    assert versions.NVIDIA_DEVICE_PLUGIN not in addons_of(lay)  # no release, nothing rendered
