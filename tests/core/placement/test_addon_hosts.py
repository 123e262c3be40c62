"""The groups an add-on's deployment waits for are the groups the scheduler places its pods on.

core_services_groups and device_plugin_groups decide what CoreDNS, the autoscaler and the device
plugin wait for in `pulumi up`; the scheduler's filters over their real placement (nodeSelector and
tolerations from model/addons) must reach exactly those groups, or an add-on would wait for the wrong
nodes (or for too few, and time out with pods Pending).
"""

from __future__ import annotations

import pytest

from mlplatform_core.model.addons import autoscaler, coredns, device_plugin
from mlplatform_core.model.addons.core_services import core_services_groups
from mlplatform_core.model.addons.device_plugin import device_plugin_groups
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.placement.filters import place_spec
from tests.conftest import stack_config

EXTRA_GROUPS = [
    {"name": "gpu-spot", "instanceTypes": ["g5.2xlarge"], "gpu": True, "capacityType": "SPOT", "maxSize": 4},
    {"name": "batch", "instanceTypes": ["m5.2xlarge"], "maxSize": 4},
]


def layouts():
    for stack in ("dev", "prod"):
        yield stack, build_layout(parse(stack_config(stack)), stack)
        raw = stack_config(stack)
        raw["ml-platform-eks:additionalNodeGroups"] = EXTRA_GROUPS
        yield f"{stack}+extra", build_layout(parse(raw), stack)


def pod(placement: dict) -> dict:
    spec = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}
    spec.update({k: placement[k] for k in ("nodeSelector", "tolerations") if k in placement})
    return spec


@pytest.mark.parametrize(("name", "layout"), list(layouts()), ids=lambda x: x if isinstance(x, str) else "")
def test_add_ons_wait_for_exactly_the_groups_their_pods_land_on(name, layout):
    core = set(core_services_groups(layout))
    assert core == {"initial"}
    for placement in (
        coredns.coredns_configuration(),
        autoscaler.autoscaler_values(layout, "us-west-2", "arn:role", "1.33"),
    ):
        assert set(place_spec(pod(placement), layout).reachable) == core
    plugin = device_plugin.device_plugin_values(layout)
    gpu = set(device_plugin_groups(layout))
    assert gpu == {g.name for g in layout.groups if g.gpu} and gpu
    assert set(place_spec(pod(plugin), layout).reachable) == gpu
    if name.endswith("+extra"):
        assert "gpu-spot" in gpu
