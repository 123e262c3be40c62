"""The chart proof as `plan` reports it (tests/core/model/addons/test_chart_proof.py: the proof alone)."""

from __future__ import annotations

from tests.core.model.addons.test_chart_proof import regression_facts


def test_the_plan_exits_2_naming_the_missing_permissions(monkeypatch, capsys):
    from mlplatform.cli import main

    regression_facts(monkeypatch, "cluster-autoscaler", "9.50.0", "1.35")
    code = main(["plan", "prod"])
    assert code == 2
    err = capsys.readouterr()
    text = err.out + err.err
    assert "kubernetesVersion" in text and "resource.k8s.io/resourceslices" in text
