"""`mlplatform init` writes gpuAllocation: dra for GPU groups on the default minor (1.34+), and it plans."""

from __future__ import annotations

import yaml

from mlplatform.scaffold.stack_files import stack_file
from mlplatform_core.model.addons.releases import addons_of
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout


def test_init_writes_dra_for_gpu_groups_and_the_group_plans_with_the_dra_driver_once_enabled():
    for environment in ("dev", "prod"):
        config = yaml.safe_load(stack_file(environment, "demo", "us-east-1", "0.0.0"))["config"]
        gpu = config["ml-platform-eks:nodeGroups"]["gpu"]
        assert gpu["gpuAllocation"] == "dra" and gpu["minSize"] >= 1
        gpu["enabled"] = True
        layout = build_layout(parse(config), environment)
        assert layout.group("gpu").gpu_allocation == "dra"
        installed = addons_of(layout)
        assert "nvidia-dra-driver-gpu" in installed and "nvidia-device-plugin" not in installed
