"""The DeviceClasses `place` matches claims against are the ones the pinned driver chart really creates.

Two generators read the NVIDIA DRA driver: the chart render (data/charts/nvidia-dra-driver-gpu-*.json, helm) and
the device facts (data/nvidia_dra_devices.json, the driver's source). A bump of one without the other would have
`place` match claims against selectors the cluster does not have.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from mlplatform_core.model import addon_versions
from mlplatform_core.model.nvidia_dra import DEVICE_CLASSES

MINORS = addon_versions.supported(addon_versions.NVIDIA_DRA_DRIVER)


def _rendered_classes(minor: str) -> dict[str, tuple[str, ...]]:
    version = addon_versions.pinned(addon_versions.NVIDIA_DRA_DRIVER, minor)["chart"]
    chart = (
        resources.files("mlplatform_core") / "data" / "charts" / f"{addon_versions.NVIDIA_DRA_DRIVER}-{version}.json"
    )
    doc = json.loads(chart.read_text())
    return {c["name"]: tuple(s["cel"]["expression"] for s in c["spec"]["selectors"]) for c in doc["deviceClasses"]}


@pytest.mark.parametrize("minor", MINORS)
def test_every_class_place_knows_is_rendered_by_the_pinned_chart_with_the_same_selectors(minor):
    rendered = _rendered_classes(minor)
    for name, selectors in DEVICE_CLASSES.items():
        assert name in rendered, f"{name} is not among the chart's DeviceClasses {sorted(rendered)}"
        assert tuple(selectors) == rendered[name]


def test_the_driver_is_pinned_for_some_minor():
    assert MINORS
