"""The GPU capacity charts (EFA device plugin, GPU operator, DCGM exporter) and GPU sharing, proven as they render.

The facts and the example stacks' full renderings (tests/data/rendered/training, shared-gpus) were written by
scripts/generators/render_charts.py with a real helm from the charts at their pinned release tags.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
import yaml

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model import eks_versions
from mlplatform_core.model.addons import gpu_agents, proof, releases, sharing_proof
from mlplatform_core.model.charts import facts as chart_facts
from mlplatform_core.model.config import parse, read_stack_file
from mlplatform_core.model.layout import build_layout
from tests.conftest import ROOT
from tests.scripts.test_generators import load

RENDERED = ROOT / "tests" / "data" / "rendered"
EXAMPLES = ("training", "shared-gpus")
GPU_CHARTS = (versions.EFA_DEVICE_PLUGIN, versions.GPU_OPERATOR, versions.DCGM_EXPORTER)


def example(stack: str, minor: str | None = None, **changes):
    config = read_stack_file(ROOT / "examples" / "stacks" / f"Pulumi.{stack}.yaml")
    config |= {f"ml-platform-eks:{k}": v for k, v in changes.items()}
    cfg = parse(config)
    layout = build_layout(cfg, stack)
    return (dataclasses.replace(layout, kubernetes_version=minor) if minor else layout), cfg


def at_deploy(cfg) -> releases.DeployTimeValues:
    return releases.DeployTimeValues(region=cfg.region, image_registry=cfg.image_registry)


def rendered(layout, name: str):
    (item,) = [r for r in proof.rendered_releases(layout) if r.release.chart.name == name]
    return item.rendering


@pytest.mark.parametrize("minor", sorted(versions.snapshot()["minors"], key=eks_versions.minor_key))
@pytest.mark.parametrize("stack", EXAMPLES)
def test_the_gpu_examples_are_proven_on_every_supported_minor(stack, minor):
    layout, cfg = example(stack, minor)
    result = proof.prove(layout, at_deploy(cfg))
    assert result.ok, result.problems
    installed = {r.release.chart.name for r in result.releases}
    want = {"training": {versions.EFA_DEVICE_PLUGIN, versions.DCGM_EXPORTER}, "shared-gpus": {versions.GPU_OPERATOR}}
    assert want[stack] <= installed and not (set(GPU_CHARTS) - want[stack]) & installed
    # Their versions are the generated pins of the minor, not typed by hand.
    for item in result.releases:
        if item.release.chart.name in GPU_CHARTS:
            assert item.release.chart.version == versions.pinned(item.release.chart.name, minor)["chart"]


@pytest.mark.parametrize("stack", EXAMPLES)
def test_the_facts_predict_what_helm_rendered_for_the_examples(stack):
    renderer = load("rendered_facts")
    layout, cfg = example(stack)
    index = json.loads((RENDERED / "index.json").read_text())["stacks"][stack]
    by_name = {r.release.name: r for r in proof.rendered_releases(layout, at_deploy(cfg))}
    assert set(index) == set(by_name)
    for name, entry in index.items():
        item = by_name[name]
        values = json.dumps(json.loads(json.dumps(item.release.values)), sort_keys=True, separators=(",", ":"))
        assert entry["version"] == item.release.chart.version, f"{name}: run scripts/generators/render_charts.py"
        assert entry["valuesSha256"] == hashlib.sha256(values.encode()).hexdigest(), f"{name}: values changed"
        objects = [d for d in yaml.safe_load_all((RENDERED / stack / f"{name}.yaml").read_text()) if d]
        workloads, grants = renderer.facts_of(objects, entry["namespace"], dict(item.rendering.facts.recorded))
        assert [*item.rendering.workloads, *item.rendering.config_maps] == workloads, name
        assert list(item.rendering.facts.rbac) == grants, name


def test_the_gpu_charts_workloads_land_on_exactly_their_groups():
    layout, _ = example("training")
    placed = {w.name: w for w in proof.chart_workloads(layout)}
    assert placed["aws-efa-k8s-device-plugin"].groups == ("train", "train-block")
    assert placed["dcgm-exporter"].groups == ("train", "train-block")
    # As rendered: the EFA plugin's affinity names the groups' types (the chart's list replaced).
    efa = placed["aws-efa-k8s-device-plugin"].workload["pod"]
    terms = efa["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0]["values"] == ["p5.48xlarge"]
    shared, _ = example("shared-gpus")
    placed = {w.name: w for w in proof.chart_workloads(shared)}
    assert placed["gpu-operator"].groups == ("initial",) and placed["gpu-operator"].workload["kind"] == "Deployment"


def test_the_gpu_operator_controller_is_bounded_and_its_gaps_stated():
    layout, cfg = example("shared-gpus")
    workloads = {w["name"]: w for w in rendered(layout, versions.GPU_OPERATOR).workloads}
    # The operator and NFD, its subchart (on since the operator recognises GPU nodes by NFD's labels: nfd.py).
    assert set(workloads) == {
        "gpu-operator",
        "gpu-operator-node-feature-discovery-master",
        "gpu-operator-node-feature-discovery-gc",
        "gpu-operator-node-feature-discovery-worker",
    }
    for name, w in workloads.items():
        res = w["containers"][0]["resources"]
        assert res["requests"]["cpu"], name
        if w["kind"] == "Deployment":
            assert res["requests"]["memory"] == res["limits"]["memory"], name
    proven = proof.prove(layout, at_deploy(cfg))
    assert not proven.problems
    assert any(s.startswith("gpu-operator: Deployment gpu-operator ") for s in proven.stated)
    assert any(
        s.startswith("gpu-operator: DaemonSet gpu-operator-node-feature-discovery-worker") for s in proven.stated
    )
    # NFD's controllers meet the baseline: nothing stated for them.
    assert not any("node-feature-discovery-master" in s or "node-feature-discovery-gc" in s for s in proven.stated)


def test_time_slicing_is_proven_on_the_configmap_and_env_the_chart_renders():
    layout, _ = example("shared-gpus")
    rendering = rendered(layout, versions.NVIDIA_DEVICE_PLUGIN)
    configs = sharing_proof.rendered_configs(rendering)
    assert configs["gpu"]["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert configs["mig"]["flags"]["migStrategy"] == "mixed"
    (plugin,) = [w for w in rendering.workloads if w["name"] == "nvidia-device-plugin"]
    env = {c["name"]: {e["name"]: e.get("value") for e in c.get("env", [])} for c in plugin["containers"]}
    assert env["nvidia-device-plugin-sidecar"]["NODE_LABEL"] == "nvidia.com/device-plugin.config"
    assert env["nvidia-device-plugin-ctr"]["CONFIG_FILE"] == env["nvidia-device-plugin-sidecar"]["CONFIG_FILE_DST"]
    assert sharing_proof.sharing_problems(layout, rendering) == []
    # Another replica count is carried into the rendered ConfigMap (the facts bind config.map verbatim).
    layout8 = dataclasses.replace(
        layout,
        groups=tuple(
            dataclasses.replace(g, sharing=dataclasses.replace(g.sharing, per_gpu=8))
            if g.sharing and g.sharing.kind == "time-slicing"
            else g
            for g in layout.groups
        ),
    )
    configs8 = sharing_proof.rendered_configs(rendered(layout8, versions.NVIDIA_DEVICE_PLUGIN))
    assert configs8["gpu"]["sharing"]["timeSlicing"]["resources"][0]["replicas"] == 8


def test_a_chart_whose_config_manager_reads_another_label_fails_the_proof(monkeypatch):
    layout, _ = example("shared-gpus")
    rendering = rendered(layout, versions.NVIDIA_DEVICE_PLUGIN)
    text = json.dumps([dict(w) for w in rendering.workloads]).replace(
        '"nvidia.com/device-plugin.config"', '"example.com/other-label"'
    )
    broken = dataclasses.replace(rendering, workloads=tuple(json.loads(text)))
    found = sharing_proof.sharing_problems(layout, broken)
    assert any("reads the node label 'example.com/other-label'" in p for p in found)
    # And a ConfigMap without the group's config.
    maps = tuple({**m, "data": {"default": m["data"]["default"]}} for m in rendering.config_maps)
    found = sharing_proof.sharing_problems(layout, dataclasses.replace(rendering, config_maps=maps))
    assert any("group gpu is labelled nvidia.com/device-plugin.config=gpu" in p for p in found)


def test_the_dcgm_exporter_uses_the_node_monitoring_agents_host_engine_as_rendered():
    layout, _ = example("training")  # nodeRepair defaults to true: the agent runs nv-hostengine on GPU nodes
    (exporter,) = rendered(layout, versions.DCGM_EXPORTER).workloads
    ctr = exporter["containers"][0]
    assert ctr["args"][-2:] == ["-r", f"$(NODE_IP):{gpu_agents.AGENT_HOST_ENGINE_PORT}"]
    assert {"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}} in ctr["env"]
    # Without node repair there is no agent: the exporter runs its own (embedded) host engine, proven too.
    alone, cfg = example("training", nodeRepair=False)
    (exporter,) = rendered(alone, versions.DCGM_EXPORTER).workloads
    assert "-r" not in exporter["containers"][0]["args"]
    assert proof.prove(alone, at_deploy(cfg)).ok


def test_the_recorded_gpu_chart_facts_name_their_upstream_tag():
    for name in GPU_CHARTS:
        version = versions.pinned(name, "1.35")["chart"]
        facts = chart_facts.load(name, version)
        assert facts.source["commit"] and facts.source["tag"] and facts.version == version


def test_gpu_metrics_with_node_repair_is_refused_where_the_agent_runs_no_host_engine(monkeypatch):
    from mlplatform_core.model.config import ConfigError
    from mlplatform_core.model.layout import gpu_metrics

    served = dict(gpu_metrics.dcgm_server())
    assert "p5.48xlarge" in served["instanceTypes"] and served["hostPort"] == gpu_agents.AGENT_HOST_ENGINE_PORT
    monkeypatch.setattr(gpu_metrics, "dcgm_server", lambda: {**served, "instanceTypes": ["g5.xlarge"]})
    with pytest.raises(ConfigError) as err:
        example("training")
    found = [p for p in err.value.problems if p.path.endswith("gpuMetrics")]
    assert len(found) == 2  # both EFA groups
    problem = found[0]
    assert "nodeRepair: true" in problem.message and "group train's p5.48xlarge" in problem.message
    assert "set nodeRepair: false" in problem.message and "gpuMetrics: false" in problem.message
    # Either setting off: accepted (without node repair the exporter runs its own host engine).
    example("training", nodeRepair=False)
    example("training", gpuMetrics=False)


def test_an_efa_group_of_another_type_is_proven_with_its_own_types_and_taints_as_rendered():
    # The EFA chart writes supportedInstanceLabels.values inside its affinity and appends `tolerations` after its
    # own CriticalAddonsOnly: the facts bind both below the field, so any stack's values are proven, not only the
    # sample's.
    config = read_stack_file(ROOT / "examples" / "stacks" / "Pulumi.training.yaml")
    train = config["ml-platform-eks:additionalNodeGroups"][0]
    train["instanceTypes"] = ["p4d.24xlarge"]
    train["taints"] = [{"key": "team", "value": "ml", "effect": "NoSchedule"}]
    layout = build_layout(parse(config), "training")
    assert proof.prove(layout).ok
    (efa,) = [w for w in proof.chart_workloads(layout) if w.name == "aws-efa-k8s-device-plugin"]
    terms = efa.workload["pod"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["p4d.24xlarge", "p5.48xlarge"]
    tolerations = efa.workload["pod"]["tolerations"]
    assert tolerations[0] == {"key": "CriticalAddonsOnly", "operator": "Exists"}
    assert {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"} in tolerations[1:]


def test_image_registry_moves_every_gpu_chart_image_and_stays_proven():
    # A stack behind a mirror (China: imageRegistry): the EFA plugin, the DCGM exporter, the GPU operator and the
    # operands it runs pull from the mirror, paths kept; the facts prove the moved repositories (image.repository
    # lands in the image; the operands' repositories only in the ClusterPolicy).
    mirror = "123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror"
    deploy = releases.DeployTimeValues(region="cn-north-1", image_registry=mirror)
    for stack in EXAMPLES:
        layout, _ = example(stack)
        result = proof.prove(layout, deploy)
        assert result.ok, result.problems
        for item in result.releases:
            for w in item.rendering.workloads:
                for c in [*w.get("initContainers", []), *w["containers"]]:
                    assert c["image"].startswith(mirror + "/"), (item.release.name, c["image"])
    shared, _ = example("shared-gpus")
    (operator,) = [r for r in releases.stack_releases(shared, deploy) if r.chart.name == versions.GPU_OPERATOR]
    assert operator.values["migManager"]["repository"] == f"{mirror}/nvidia/cloud-native"
    assert {operator.values[k]["repository"] for k in ("gfd", "validator", "operator")} == {f"{mirror}/nvidia"}
