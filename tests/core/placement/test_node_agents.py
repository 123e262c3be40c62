"""The placement proof covers every DaemonSet the stack installs: each lands on exactly the groups it serves."""

from __future__ import annotations

import dataclasses

import pytest

from mlplatform_core.model.addons import node_agents as agents_module
from mlplatform_core.model.addons.node_agents import node_agents
from mlplatform_core.model.addons.proof import chart_workloads
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.placement.invariants import check_layout, stack_report
from tests.conftest import stack_config

P = "ml-platform-eks:"
# A layout with every kind of taint a node can carry: spot, dedicated roles, user taints (NoExecute
# too), a Bottlerocket GPU group that brings its own device plugin.
EXTRA = [
    {
        "name": "vision",
        "gpu": True,
        "instanceTypes": ["g6e.xlarge"],
        "dedicated": True,
        "taints": [{"key": "team", "value": "vision", "effect": "NoExecute"}],
    },
    {"name": "br-gpu", "gpu": True, "instanceTypes": ["g5.2xlarge"], "amiType": "BOTTLEROCKET_x86_64_NVIDIA"},
    {"name": "batch", "instanceTypes": ["c5.4xlarge"], "taints": [{"key": "batch", "effect": "NoSchedule"}]},
]


def busy_layout():
    raw = stack_config("dev")
    raw[P + "nodeGroups"]["gpu"].update(capacityType="SPOT")
    raw[P + "additionalNodeGroups"] = EXTRA
    cfg = parse(raw)
    return cfg, build_layout(cfg, "dev")


@pytest.mark.parametrize("stack", ["dev", "prod", "busy"])
def test_every_daemonset_reaches_exactly_its_groups(stack):
    if stack == "busy":
        cfg, layout = busy_layout()
    else:
        cfg = parse(stack_config(stack))
        layout = build_layout(cfg, stack)
    report = stack_report(cfg, layout)
    assert report.ok, report.errors
    reach = {p.name: set(r.reachable) for p, r in report.placements}
    every = {g.name for g in layout.groups}
    agents = node_agents(layout)
    assert {a.name for a in agents} <= set(reach), "every DaemonSet is a profile of the proof"
    for agent in agents:
        assert reach[agent.name] == set(agent.groups), agent.name
    assert reach["ebs-csi-node"] == every  # volumes attach on every node, whatever its taints
    assert reach["ebs-csi-controller"] == {"initial"}


def test_the_device_plugin_stays_off_bottlerocket_and_serves_every_other_gpu_group():
    _, layout = busy_layout()
    (plugin,) = [w for w in chart_workloads(layout) if w.name == "nvidia-device-plugin"]
    assert set(plugin.groups) == {"gpu", "vision"}
    report = check_layout(layout)
    reach = {p.name: set(r.reachable) for p, r in report.placements}
    assert reach["nvidia-device-plugin"] == {"gpu", "vision"}
    # The chart also renders its MPS control daemon, which selects nvidia.com/mps.capable=true: nowhere here.
    assert reach["nvidia-device-plugin-mps-control-daemon"] == set()
    assert report.ok, report.errors


def test_a_daemonset_that_misses_a_group_is_a_placement_error(monkeypatch):
    _, layout = busy_layout()
    real = chart_workloads(layout)

    def narrower(lay):
        out = []
        for w in real:
            if w.name == "nvidia-device-plugin":  # forget the spot, dedicated-role and user taints
                pod = dict(w.workload["pod"])
                pod["tolerations"] = [t for t in pod["tolerations"] if t.get("key") == "nvidia.com/gpu"]
                w = dataclasses.replace(w, workload={**w.workload, "pod": pod})
            out.append(w)
        return tuple(out)

    monkeypatch.setattr("mlplatform_core.placement.profiles.chart_workloads", narrower)
    errors = [f for f in check_layout(layout).errors if f.profile == "nvidia-device-plugin"]
    assert any("must run on" in f.message and "vision" in f.message for f in errors), errors


def test_every_addon_declares_its_daemonsets():
    assert set(agents_module.ADDONS) >= {a.addon for a in node_agents(busy_layout()[1])}
