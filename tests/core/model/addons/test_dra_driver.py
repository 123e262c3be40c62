"""The NVIDIA DRA driver for gpuAllocation: dra groups, proven as its chart renders (data/charts, recorded by
scripts/generators/render_charts.py with a real helm from NVIDIA/k8s-dra-driver-gpu at its release tag)."""

from __future__ import annotations

import dataclasses

import pytest

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model import eks_versions
from mlplatform_core.model.addons import device_plugin, dra_driver, proof
from mlplatform_core.model.charts import facts as chart_facts
from mlplatform_core.model.config import read_stack_file
from tests.conftest import ROOT
from tests.core.model.addons.test_gpu_charts import at_deploy, example

DRA_MINORS = [m for m in sorted(versions.snapshot()["minors"], key=eks_versions.minor_key) if m >= "1.34"]


def training_dra():
    """The training example with its on-demand group on DRA (it keeps one node: the autoscaler's template)."""
    groups = [dict(g) for g in _raw("training")["additionalNodeGroups"]]
    groups[0].update(gpuAllocation="dra", minSize=1)
    return example("training", additionalNodeGroups=groups)


def shared_gpus_dra():
    """The shared-GPU example with its MIG group on DRA (static MIG; the time-sliced group keeps the plugin)."""
    groups = [dict(g) for g in _raw("shared-gpus")["additionalNodeGroups"]]
    groups[0] = {**groups[0], "gpuAllocation": "dra", "minSize": 1, "gpuSharing": {"mig": {"profile": "1g.10gb"}}}
    return example("shared-gpus", additionalNodeGroups=groups)


def _raw(stack: str) -> dict:
    config = read_stack_file(ROOT / "examples" / "stacks" / f"Pulumi.{stack}.yaml")
    return {k.removeprefix("ml-platform-eks:"): v for k, v in config.items()}


@pytest.mark.parametrize("minor", DRA_MINORS)
@pytest.mark.parametrize("variant", [training_dra, shared_gpus_dra])
def test_the_gpu_examples_plan_with_dra_proven_on_every_minor_that_allows_it(variant, minor):
    layout, cfg = variant()
    layout = dataclasses.replace(layout, kubernetes_version=minor)
    result = proof.prove(layout, at_deploy(cfg))
    assert result.ok, result.problems
    (item,) = [r for r in result.releases if r.release.chart.name == versions.NVIDIA_DRA_DRIVER]
    assert item.release.chart.version == versions.pinned(versions.NVIDIA_DRA_DRIVER, minor)["chart"]
    # The kubelet plugin's privilege is stated, not silently exempt.
    assert any(dra_driver.KUBELET_PLUGIN in s and "privileged" in s for s in result.stated)


def test_the_kubelet_plugin_runs_on_exactly_the_dra_groups_and_the_device_plugin_on_the_others():
    layout, _ = training_dra()
    workloads = {w.name: w for w in proof.chart_workloads(layout)}
    plugin = workloads[dra_driver.KUBELET_PLUGIN]
    assert plugin.groups == ("train",)
    assert workloads[device_plugin.DAEMONSET].groups == ("train-block",)  # never both on one node
    # Its rendered placement tolerates the group's taint and selects its group label.
    pod = plugin.workload["pod"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {"key": "mlplatform.io/node-group", "operator": "In", "values": ["train"]} in terms[0]["matchExpressions"]
    # A node still labelled for the device plugin (launched before the group moved to DRA) gets no driver.
    guard = {"key": "mlplatform.io/nvidia-device-plugin", "operator": "DoesNotExist"}
    assert guard in terms[0]["matchExpressions"]
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"} in pod["tolerations"]
    # Requests on every container (the init container's from the namespace's LimitRange).
    containers = {c["name"]: c for c in plugin.workload["containers"]}
    assert containers["gpus"]["resources"]["requests"] == dra_driver.RESOURCES["requests"]


def test_the_rendered_chart_creates_the_device_classes_pods_ask_for():
    layout, _ = shared_gpus_dra()
    (item,) = [r for r in proof.rendered_releases(layout) if r.release.chart.name == versions.NVIDIA_DRA_DRIVER]
    classes = {d["name"]: d for d in item.rendering.facts.device_classes}
    assert set(dra_driver.device_classes(layout)) == {"gpu.nvidia.com", "mig.nvidia.com"} <= set(classes)
    assert classes["mig.nvidia.com"]["apiVersion"] == "resource.k8s.io/v1"
    assert "type == 'mig'" in classes["mig.nvidia.com"]["spec"]["selectors"][0]["cel"]["expression"]
    assert dra_driver.device_class_problems(layout, item.rendering) == []


def test_a_chart_without_the_device_classes_is_caught():
    layout, _ = shared_gpus_dra()
    (item,) = [r for r in proof.rendered_releases(layout) if r.release.chart.name == versions.NVIDIA_DRA_DRIVER]
    bare = dataclasses.replace(item.rendering, facts=dataclasses.replace(item.rendering.facts, device_classes=()))
    problems = dra_driver.device_class_problems(layout, bare)
    assert any("mig.nvidia.com" in p for p in problems) and any("gpu.nvidia.com" in p for p in problems)


def test_compute_domains_are_off_and_no_controller_runs():
    layout, _ = training_dra()
    values = dra_driver.driver_values(layout)
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    (item,) = [r for r in proof.rendered_releases(layout) if r.release.chart.name == versions.NVIDIA_DRA_DRIVER]
    assert [w["kind"] for w in item.rendering.workloads] == ["DaemonSet"]


def test_the_facts_come_from_the_upstream_chart_at_its_release_tag():
    pin = versions.pinned(versions.NVIDIA_DRA_DRIVER, "1.35")
    facts = chart_facts.load(versions.NVIDIA_DRA_DRIVER, pin["chart"])
    assert facts.source["repo"] == "NVIDIA/k8s-dra-driver-gpu" and facts.source["tag"] == f"v{pin['chart']}"
    assert facts.app_version == pin["image"].removeprefix("v")
    # Without the override the chart refuses GPUs (it cannot know the device plugin is kept away): recorded.
    assert "gpuResourcesEnabledOverride" in facts.presence
