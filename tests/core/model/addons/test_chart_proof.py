"""The add-on charts proven as they render: the recorded facts against the real helm rendering, and the proof.

The facts (mlplatform_core/data/charts) and the shipped stacks' full renderings (tests/data/rendered) are
written by scripts/generators/render_charts.py with a real helm; tests/data/charts holds facts of charts the toolkit no
longer pins (cluster-autoscaler 9.50.0), to show the proof refuses them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
import yaml

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model import eks_versions
from mlplatform_core.model.addons import autoscaler, proof, releases
from mlplatform_core.model.charts import facts as chart_facts
from mlplatform_core.model.charts.render import render
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.validation import prove_charts, validate_stack
from tests.conftest import ROOT, stack_config
from tests.scripts.test_generators import load

RENDERED = ROOT / "tests" / "data" / "rendered"
SHIPPED = ("dev", "prod", "dev-karpenter", "dev-automode")  # dev-automode: no chart, so no rendering
DRA = {("resource.k8s.io", r) for r in ("deviceclasses", "resourceclaims", "resourceslices")}


def layout_of(stack: str, minor: str | None = None):
    cfg = parse(stack_config(stack))
    layout = build_layout(cfg, stack)
    return (dataclasses.replace(layout, kubernetes_version=minor) if minor else layout), cfg


def at_deploy(cfg) -> releases.DeployTimeValues:
    return releases.DeployTimeValues(
        region=cfg.region, image_registry=cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas
    )


@pytest.mark.parametrize("minor", sorted(versions.snapshot()["minors"], key=eks_versions.minor_key))
@pytest.mark.parametrize("stack", SHIPPED)
def test_every_shipped_stack_is_proven_on_every_supported_minor(stack, minor):
    layout, cfg = layout_of(stack, minor)
    result = proof.prove(layout, at_deploy(cfg))
    assert result.ok, result.problems
    if stack == "dev-automode":  # Auto Mode runs the autoscaling and the GPU nodes' device plugin: no chart
        assert not releases.addons_of(layout) and not result.releases and not result.stated
        return
    # The device plugin's host needs are stated, not silently exempted.
    assert any("nvidia-device-plugin" in s and "/var/lib/kubelet/device-plugins" in s for s in result.stated)


def test_every_minor_eks_creates_has_every_add_on():
    generated = datetime_of(versions.snapshot()["generated"])
    for minor in eks_versions.creatable(generated):
        row = versions.of_minor(minor)
        missing = {"cluster-autoscaler", "nvidia-device-plugin", "karpenter", "karpenter-crd", "al2023Ami"} - set(row)
        regenerate = "regenerate addon_versions.json (scripts/generators/generate_addon_versions.py)"
        assert not missing, f"{minor}: {regenerate}: {missing}"


def datetime_of(day: str):
    import datetime

    return datetime.date.fromisoformat(day)


@pytest.mark.parametrize("minor", versions.supported(versions.CLUSTER_AUTOSCALER))
def test_the_autoscaler_chart_and_image_are_of_one_line(minor):
    """The image's minor is the cluster's; the chart is of the same line (appVersion minor) wherever upstream
    published one, and where it has not (sameLine false), the chart's RBAC is proven enough for the image."""
    pin = versions.pinned(versions.CLUSTER_AUTOSCALER, minor)
    assert pin["image"].startswith(f"v{minor}.")
    facts = chart_facts.load(versions.CLUSTER_AUTOSCALER, pin["chart"])
    line = ".".join(facts.app_version.split(".")[:2])
    assert line == pin["chartLine"]
    if pin["sameLine"]:
        assert line == minor
    else:  # no chart of the image's line yet: an older line, and the newest chart upstream had
        assert eks_versions.minor_key(line) < eks_versions.minor_key(minor)
        newest = max(
            (
                versions.pinned(versions.CLUSTER_AUTOSCALER, m)["chart"]
                for m in versions.supported("cluster-autoscaler")
            ),
            key=lambda v: tuple(int(x) for x in v.split(".")),
        )
        assert pin["chart"] == newest
    # The rendered container runs the pinned image.
    (workload,) = facts.workloads
    values = autoscaler.autoscaler_values(layout_of("prod", minor)[0], "us-east-1", "arn")
    (rendered,) = render(facts, values).workloads
    assert rendered["containers"][0]["image"] == f"registry.k8s.io/autoscaling/cluster-autoscaler:{pin['image']}"
    assert workload["name"] == rendered["name"]


def regression_facts(monkeypatch, chart: str, version: str, minor: str) -> None:
    """Pin `chart` `version` for `minor`, with facts from tests/data/charts (as the renderer records them)."""
    snap = json.loads(json.dumps(versions.snapshot()))
    snap["minors"][minor][chart]["chart"] = version
    monkeypatch.setattr(versions, "snapshot", lambda: snap)
    raw = json.loads((ROOT / "tests" / "data" / "charts" / f"{chart}-{version}.json").read_text())
    real_load, real_available = chart_facts.load, chart_facts.available
    monkeypatch.setattr(
        chart_facts, "load", lambda c, v: chart_facts.from_json(raw) if (c, v) == (chart, version) else real_load(c, v)
    )
    monkeypatch.setattr(chart_facts, "available", lambda c, v: (c, v) == (chart, version) or real_available(c, v))


def test_the_autoscaler_chart_set_back_to_9_50_0_with_a_1_35_image_fails_the_plan(monkeypatch):
    regression_facts(monkeypatch, "cluster-autoscaler", "9.50.0", "1.35")
    layout, cfg = layout_of("prod", "1.35")
    result = proof.prove(layout, at_deploy(cfg))
    (problem,) = result.problems
    assert "9.50.0 (appVersion 1.33.0)" in problem and "v1.35.2" in problem and "9 permission(s)" in problem
    for group, resource in DRA:
        for verb in ("get", "list", "watch"):
            assert f"{verb} {group}/{resource} (cluster-wide)" in problem
    # Validation is about the settings (these are valid); the charts' proof, run once by the plan after it,
    # refuses the stack before anything is created, at the setting that chose the charts.
    valid = validate_stack(stack_config("prod"), "prod")
    with pytest.raises(ConfigError) as info:
        prove_charts(valid, "prod")
    (found,) = info.value.problems
    assert found.path == "ml-platform-eks:kubernetesVersion" and "resource.k8s.io/deviceclasses" in found.message


@pytest.mark.parametrize("stack", SHIPPED)
def test_the_facts_predict_what_helm_rendered_for_the_shipped_stacks(stack):
    """The full renderings of tests/data/rendered were made by a real helm with the stack's values: the facts
    with the same values applied (what every plan does) must give the same workloads and RBAC."""
    renderer = load("rendered_facts")
    layout, cfg = layout_of(stack)
    index = json.loads((RENDERED / "index.json").read_text())["stacks"].get(stack, {})
    rendered = {r.release.name: r for r in proof.rendered_releases(layout, at_deploy(cfg))}
    assert set(index) == {n for n, r in rendered.items() if r.release.chart.name != "karpenter-crd"}
    for name, entry in index.items():
        item = rendered[name]
        objects = [d for d in yaml.safe_load_all((RENDERED / stack / f"{name}.yaml").read_text()) if d]
        workloads, grants = renderer.facts_of(objects, entry["namespace"], dict(item.rendering.facts.recorded))
        assert [*item.rendering.workloads, *item.rendering.config_maps] == workloads, name
        assert list(item.rendering.facts.rbac) == grants, name


@pytest.mark.parametrize("stack", SHIPPED)
def test_the_shipped_renderings_are_of_the_current_values_and_versions(stack):
    """Change a chart version or a value without running scripts/generators/render_charts.py and this fails."""
    layout, cfg = layout_of(stack)
    index = json.loads((RENDERED / "index.json").read_text())["stacks"].get(stack, {})
    for release in releases.stack_releases(layout, at_deploy(cfg)):
        if release.chart.name == "karpenter-crd":
            continue
        entry = index[release.name]
        values = json.dumps(json.loads(json.dumps(release.values)), sort_keys=True, separators=(",", ":"))
        assert entry["version"] == release.chart.version, f"{release.name}: run scripts/generators/render_charts.py"
        assert entry["valuesSha256"] == hashlib.sha256(values.encode()).hexdigest(), f"{release.name}: values changed"


def test_a_controller_without_requests_fails_the_proof(monkeypatch):
    monkeypatch.setattr(autoscaler, "RESOURCES", {"requests": {"cpu": "100m"}})
    layout, cfg = layout_of("prod")
    problems = proof.prove(layout, at_deploy(cfg)).problems
    assert any("requests no memory" in p for p in problems), problems
    assert any("memory limit must equal its request" in p for p in problems), problems


def test_an_unhardened_container_fails_the_proof_unless_its_need_is_stated(monkeypatch):
    monkeypatch.setattr(autoscaler, "CONTAINER_SECURITY_CONTEXT", {"allowPrivilegeEscalation": False})
    layout, cfg = layout_of("prod")
    problems = proof.prove(layout, at_deploy(cfg)).problems
    (problem,) = problems
    assert "cluster-autoscaler" in problem and "root filesystem writable" in problem
    assert "capabilities not dropped" in problem


def test_a_value_the_facts_cannot_account_for_is_not_guessed(monkeypatch):
    """The priority expander changes the chart's RBAC: a value other than the recorded one is unproven."""
    real = autoscaler.autoscaler_values

    def other_expander(*args, **kwargs):
        values = real(*args, **kwargs)
        return {**values, "extraArgs": {**values["extraArgs"], "expander": "least-waste"}}

    monkeypatch.setattr(autoscaler, "autoscaler_values", other_expander)
    layout, cfg = layout_of("dev")
    problems = proof.prove(layout, at_deploy(cfg)).problems
    assert any("extraArgs.expander='least-waste'" in p and "rbac" in p for p in problems), problems


def test_a_minor_without_pinned_add_ons_is_refused_with_the_minors_that_work(monkeypatch):
    snap = json.loads(json.dumps(versions.snapshot()))
    del snap["minors"]["1.36"]["cluster-autoscaler"]
    monkeypatch.setattr(versions, "snapshot", lambda: snap)
    layout, cfg = layout_of("dev", "1.36")
    (problem,) = proof.prove(layout, at_deploy(cfg)).problems
    assert "no pinned cluster-autoscaler supports Kubernetes 1.36" in problem and "1.35" in problem
    layout, cfg = layout_of("dev-karpenter", "1.36")  # Karpenter stacks run no autoscaler
    assert proof.prove(layout, at_deploy(cfg)).ok


def test_a_mirror_registry_moves_every_image_and_changes_nothing_else():
    layout, cfg = layout_of("dev-karpenter")
    mirror = "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror"
    plain = proof.prove(layout, at_deploy(cfg))
    mirrored = proof.prove(layout, dataclasses.replace(at_deploy(cfg), image_registry=mirror))
    assert mirrored.ok, mirrored.problems
    images = [
        c["image"] for r in mirrored.releases if r.rendering for w in r.rendering.workloads for c in w["containers"]
    ]
    assert images and all(i.startswith(mirror + "/") for i in images), images
    assert f"{mirror}/karpenter/controller:1.14.1" in images
    assert f"{mirror}/nvidia/k8s-device-plugin:v0.20.0" in images
    placement = [w["pod"] for r in plain.releases if r.rendering for w in r.rendering.workloads]
    assert placement == [w["pod"] for r in mirrored.releases if r.rendering for w in r.rendering.workloads]


def test_facts_are_read_only_for_the_charts_a_stack_installs(monkeypatch):
    read = []
    real = chart_facts.load.__wrapped__

    def recording(chart, version):
        read.append(f"{chart}-{version}")
        return real(chart, version)

    monkeypatch.setattr(chart_facts, "load", recording)
    layout, cfg = layout_of("dev-karpenter")
    proof.prove(layout, at_deploy(cfg))
    assert set(read) == {"karpenter-1.14.1", "karpenter-crd-1.14.1", "nvidia-device-plugin-0.20.0"}


def test_the_add_on_page_is_generated_from_the_current_data():
    generator = load("generate_addon_docs")
    committed = (ROOT / "docs" / "addons.md").read_text()
    assert committed == generator.render(), "docs/addons.md is out of date: run scripts/docs/generate_addon_docs.py"
