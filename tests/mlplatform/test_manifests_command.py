"""`mlplatform manifests`: what `make scan` hands checkov, for the shipped stacks and for a team's own."""

from __future__ import annotations

import pytest
import yaml

import mlplatform.engine
from mlplatform.cli import main
from mlplatform.commands import manifests
from mlplatform_core.model.addons import autoscaler
from mlplatform_core.model.plan_document import KubernetesSection
from tests.conftest import ROOT
from tests.runs import shipped_run


@pytest.fixture(autouse=True)
def cached_runs(monkeypatch):
    """The shipped stacks' offline runs, cached for the session (the command's own run is the same)."""
    monkeypatch.setattr(mlplatform.engine, "run_stack", lambda stack, config, root: shipped_run(stack))


def test_a_shipped_stack_gets_its_objects_and_its_committed_chart_renderings(tmp_path, capsys):
    assert main(["manifests", "dev", "--out", str(tmp_path)]) == 0
    written = {p.name for p in (tmp_path / "dev").iterdir()}
    assert written == {"objects.yaml", "cluster-autoscaler.yaml", "nvidia-device-plugin.yaml"}
    kinds = {d["kind"] for d in yaml.safe_load_all((tmp_path / "dev" / "objects.yaml").read_text())}
    assert {"PriorityClass", "Namespace", "LimitRange", "ConfigMap", "StorageClass"} <= kinds
    committed = ROOT / "tests" / "data" / "rendered" / "dev" / "cluster-autoscaler.yaml"
    assert (tmp_path / "dev" / "cluster-autoscaler.yaml").read_text() == committed.read_text()


def test_values_that_moved_since_the_rendering_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        autoscaler, "RESOURCES", {"requests": {"cpu": "200m", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}
    )
    assert main(["manifests", "prod", "--out", str(tmp_path)]) == 2
    assert "stale; run scripts/generators/render_charts.py" in capsys.readouterr().err


def test_a_stack_without_a_committed_rendering_gets_its_objects_and_a_note(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(manifests, "RENDERED", tmp_path / "none")  # as for a team's own stack
    assert main(["manifests", "prod", "--out", str(tmp_path / "out")]) == 0
    assert {p.name for p in (tmp_path / "out" / "prod").iterdir()} == {"objects.yaml"}
    err = capsys.readouterr().err
    assert "chart cluster-autoscaler" in err and "give --helm PATH" in err


def test_an_auto_mode_stack_has_no_chart_to_render_and_needs_no_helm(tmp_path, capsys):
    # Auto Mode runs the autoscaling and the device plugins itself: objects only, and no note about charts.
    assert main(["manifests", "dev-automode", "--out", str(tmp_path)]) == 0
    assert {p.name for p in (tmp_path / "dev-automode").iterdir()} == {"objects.yaml"}
    assert "chart" not in capsys.readouterr().err
    objects = list(yaml.safe_load_all((tmp_path / "dev-automode" / "objects.yaml").read_text()))
    kinds = {(d["kind"], d["metadata"]["name"]) for d in objects}
    assert ("NodePool", "gpu") in kinds and ("NodeClass", "gpu") in kinds
    assert {d["metadata"]["labels"]["mlplatform.io/environment"] for d in objects if d["kind"] == "NodePool"} == {"dev"}


def test_bad_helm_out_and_a_failing_helm_are_bad_input_named_never_a_crash(tmp_path, monkeypatch, capsys):
    """Exit 2 with `error:` naming the option, before anything is written; a `helm template` that fails (a
    chart repository it cannot reach) names the chart; never exit 3, the code of a bug."""
    assert main(["manifests", "dev", "--out", str(tmp_path / "o"), "--helm", str(tmp_path / "no-helm")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --helm ") and "not an executable file" in err
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert main(["manifests", "dev", "--out", str(a_file)]) == 2
    assert "error: --out " in capsys.readouterr().err
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\necho 'Error: looks like the repository cannot be reached' >&2\nexit 1\n")
    helm.chmod(0o755)
    monkeypatch.setattr(manifests, "RENDERED", tmp_path / "none")  # as for a team's own stack
    assert main(["manifests", "dev", "--out", str(tmp_path / "o"), "--helm", str(helm)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: helm template of chart cluster-autoscaler ") and "cannot be reached" in err


def test_a_stack_named_as_pulumi_names_it_is_written_under_its_name(tmp_path, capsys):
    assert main(["manifests", "acme/dev", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"wrote dev into {tmp_path}\n"
    assert (tmp_path / "dev" / "objects.yaml").is_file()


def test_stacks_are_taken_as_plan_and_check_take_them(tmp_path, capsys, monkeypatch):
    """--all with no stack file says so (it was told "give --all"); a STACK with --all is refused, not dropped."""
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    for stack_file in (project / "stacks").iterdir():
        stack_file.unlink()
    capsys.readouterr()
    assert main(["manifests", "--all", "--out", str(tmp_path / "o"), "--project-dir", str(project)]) == 2
    assert capsys.readouterr().err == "error: --all: no stack file (Pulumi.<stack>.yaml) in stacks\n"
    assert main(["manifests", "dev", "--all", "--out", str(tmp_path / "o")]) == 2
    assert "--all runs every stack of the project" in capsys.readouterr().err


def test_the_gpu_examples_are_written_from_their_committed_renderings(tmp_path, monkeypatch):
    # What `make scan` hands checkov for examples/stacks (--config-file): the GPU charts as helm rendered them.
    import mlplatform.reports.workload_layer as workload_layer

    monkeypatch.setattr(mlplatform.engine, "run_stack", lambda stack, config, root: None)  # objects: not this test
    monkeypatch.setattr(workload_layer, "kubernetes_section", lambda run: KubernetesSection(objects=[]))
    files = [str(ROOT / "examples" / "stacks" / f"Pulumi.{s}.yaml") for s in ("training", "shared-gpus")]
    assert main(["manifests", "--config-file", files[0], "--config-file", files[1], "--out", str(tmp_path)]) == 0
    training = {p.name for p in (tmp_path / "training").iterdir()}
    assert {"aws-efa-k8s-device-plugin.yaml", "dcgm-exporter.yaml"} <= training
    assert "gpu-operator.yaml" in {p.name for p in (tmp_path / "shared-gpus").iterdir()}
    committed = ROOT / "tests" / "data" / "rendered" / "training" / "dcgm-exporter.yaml"
    assert (tmp_path / "training" / "dcgm-exporter.yaml").read_text() == committed.read_text()
