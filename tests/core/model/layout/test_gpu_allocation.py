"""gpuAllocation (devicePlugin | dra) per GPU group: what the layout accepts, refuses and marks (allocation.py)."""

from __future__ import annotations

import pytest

from mlplatform_core.model.addons import device_plugin, dra_driver
from mlplatform_core.model.addons.releases import addons_of, stack_releases
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.instances import lookup
from mlplatform_core.model.karpenter import release as karpenter_release
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.layout.sharing import node_devices
from mlplatform_core.model.scheduling import DEVICE_PLUGIN_LABEL, GPU_RESOURCE
from tests.conftest import stack_config

P = "ml-platform-eks:"


def layout(stack: str = "dev", minor: str | None = None, extra: list | None = None, **groups):
    raw = stack_config(stack)
    for name, settings in groups.items():
        raw[P + "nodeGroups"].setdefault(name, {}).update(settings)
    if extra:
        raw[P + "additionalNodeGroups"] = extra
    if minor:
        raw[P + "kubernetesVersion"] = minor
    return build_layout(parse(raw), stack)


def refusal(*args, **kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        layout(*args, **kwargs)
    return str(info.value)


DRA = {"gpuAllocation": "dra", "minSize": 1}


def test_a_stack_without_the_setting_keeps_the_device_plugin():
    plain = layout()
    (gpu,) = plain.gpu_groups
    assert gpu.gpu_allocation == "devicePlugin"
    assert gpu.labels[DEVICE_PLUGIN_LABEL] == "true"
    assert device_plugin.device_plugin_values(plain) is not None
    assert dra_driver.driver_values(plain) is None
    # Writing the default changes nothing in the layout.
    assert layout(gpu={"gpuAllocation": "devicePlugin"}) == plain


def test_a_dra_group_gets_the_dra_driver_and_never_the_device_plugin():
    dra = layout(gpu=DRA)
    (gpu,) = dra.gpu_groups
    assert gpu.gpu_allocation == "dra"
    assert DEVICE_PLUGIN_LABEL not in gpu.labels
    assert device_plugin.plugin_groups(dra) == ()
    assert "nvidia-device-plugin" not in addons_of(dra) and "nvidia-dra-driver-gpu" in addons_of(dra)
    # Its nodes advertise no nvidia.com/gpu: a pod asking for it does not fit there.
    assert node_devices(gpu, lookup("g5.xlarge"))[GPU_RESOURCE] == 0


def test_dra_next_to_device_plugin_groups_splits_the_gpu_nodes_between_them():
    extra = [{"name": "gpu2", "gpu": True, "instanceTypes": ["g6.xlarge"], "maxSize": 2}]
    mixed = layout(extra=extra, gpu=DRA)
    assert [g.name for g in device_plugin.plugin_groups(mixed)] == ["gpu2"]
    assert dra_driver.driver_group_names(mixed) == ("gpu",)


def test_dra_below_kubernetes_1_34_is_refused_naming_the_minimum():
    text = refusal(minor="1.33", gpu=DRA)
    assert "nodeGroups.gpu.gpuAllocation" in text and "'dra'" in text and "1.34" in text and "1.33" in text


def test_gpu_allocation_on_a_group_without_gpus_is_refused():
    text = refusal(jobs={"gpuAllocation": "dra"})
    assert "nodeGroups.jobs.gpuAllocation" in text and "without GPUs" in text


def test_an_unknown_allocation_is_refused_with_the_valid_ones():
    text = refusal(gpu={"gpuAllocation": "DRA"})
    assert "gpuAllocation" in text and "devicePlugin" in text and "dra" in text


def test_dra_on_a_managed_group_scaled_from_zero_is_refused():
    text = refusal(gpu={"gpuAllocation": "dra"})
    assert "nodeGroups.gpu.gpuAllocation" in text and "minSize: 1" in text


def test_dra_on_bottlerocket_is_refused():
    text = refusal(gpu={**DRA, "amiType": "BOTTLEROCKET_x86_64_NVIDIA"})
    assert "Bottlerocket" in text and "gpuAllocation" in text


def test_time_slicing_with_dra_is_refused_naming_the_group_and_setting():
    text = refusal(gpu={**DRA, "gpuSharing": {"timeSlicing": {"replicas": 4}}})
    assert "nodeGroups.gpu.gpuSharing.timeSlicing" in text and "group gpu" in text


def test_static_mig_with_dra_is_the_drivers_mig_devices_and_a_strategy_is_refused():
    mig = [{"name": "mig", "gpu": True, "instanceTypes": ["p5.4xlarge"], "minSize": 1, "maxSize": 2}]
    ok = layout(extra=[{**mig[0], "gpuAllocation": "dra", "gpuSharing": {"mig": {"profile": "1g.10gb"}}}])
    group = ok.group("mig")
    assert group.sharing.mig_config == "all-1g.10gb" and group.gpu_allocation == "dra"
    assert "nvidia.com/device-plugin.config" not in group.labels
    assert dra_driver.device_classes(ok) == ("gpu.nvidia.com", "mig.nvidia.com")
    assert "gpu-operator" in addons_of(ok)  # the MIG manager still partitions the GPUs
    text = refusal(
        extra=[{**mig[0], "gpuAllocation": "dra", "gpuSharing": {"mig": {"strategy": "mixed", "profile": "1g.10gb"}}}]
    )
    assert "additionalNodeGroups[0].gpuSharing.mig.strategy" in text and "mig.nvidia.com" in text


def test_karpenter_dynamic_pools_need_a_karpenter_that_launches_for_claims_static_pools_do_not():
    if karpenter_release.karpenter_supports_dra():
        assert layout("dev-karpenter", gpu={"gpuAllocation": "dra"}).group("gpu").gpu_allocation == "dra"
    else:
        text = refusal("dev-karpenter", gpu={"gpuAllocation": "dra"})
        assert "nodeGroups.gpu.gpuAllocation" in text and "staticNodes" in text
    # A static pool's nodes exist: the scheduler allocates claims from their ResourceSlices on any pinned release.
    warm = layout("dev-karpenter", gpu={"gpuAllocation": "dra", "staticNodes": 1})
    assert warm.group("gpu").gpu_allocation == "dra"
    assert next(p for p in warm.node_pools if p.name == "gpu").replicas == 1


def test_auto_mode_dra_is_refused_before_1_36_and_installs_nothing_from_it():
    text = refusal("dev-automode", gpu={"gpuAllocation": "dra"})
    assert "nodeGroups.gpu.gpuAllocation" in text and "1.36" in text
    on_1_36 = layout("dev-automode", minor="1.36", gpu={"gpuAllocation": "dra"})
    assert on_1_36.group("gpu").gpu_allocation == "dra"
    assert dra_driver.driver_values(on_1_36) is None and "nvidia-dra-driver-gpu" not in addons_of(on_1_36)


@pytest.mark.parametrize("stack", ["dev", "prod", "dev-karpenter", "dev-automode"])
def test_shipped_stacks_without_the_setting_plan_exactly_as_with_device_plugin_written(stack):
    plain = layout(stack)
    assert all(g.gpu_allocation == "devicePlugin" for g in plain.groups)
    gpu_groups = {g.name: {"gpuAllocation": "devicePlugin"} for g in plain.gpu_groups if g.name in ("gpu",)}
    written = layout(stack, **gpu_groups)
    assert written == plain
    assert stack_releases(written) == stack_releases(plain)
    assert "nvidia-dra-driver-gpu" not in addons_of(plain)


def test_a_capacity_block_group_is_told_it_cannot_use_dra_rather_than_two_contradicting_minimums():
    block = {
        "name": "train-block",
        "gpu": True,
        "instanceTypes": ["p5.48xlarge"],
        "availabilityZone": "us-east-1b",
        "capacityReservation": {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2},
        "gpuAllocation": "dra",
    }
    text = refusal(extra=[block])
    assert "additionalNodeGroups[0].gpuAllocation" in text and "Capacity Block" in text and "devicePlugin" in text
    assert "set minSize: 1" not in text  # which the Capacity Block would refuse in turn
