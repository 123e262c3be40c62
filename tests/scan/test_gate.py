"""`make scan`'s gate: a checkov finding passes only when scan/skips.yaml lists it with a reason."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("gate", ROOT / "scan" / "gate.py")
gate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gate)


def report(*failed: tuple[str, str]) -> list[dict]:
    checks = [{"check_id": c, "resource": r, "file_path": "/x.yaml"} for c, r in failed]
    return [{"check_type": "kubernetes", "results": {"failed_checks": checks}}]


SKIPS = [{"check": "CKV_K8S_11", "resources": ["Deployment.kube-system.*"], "reason": "no CPU limit on purpose"}]


def test_a_listed_finding_passes_and_an_unlisted_one_fails():
    found = gate.findings(report(("CKV_K8S_11", "Deployment.kube-system.cluster-autoscaler")))
    assert gate.gate(found, SKIPS) == ([], [])
    found = gate.findings(report(("CKV_K8S_11", "DaemonSet.kube-system.x"), ("CKV_K8S_22", "Deployment.kube-system.a")))
    new, _ = gate.gate(found, SKIPS)
    assert new == ["CKV_K8S_11 DaemonSet.kube-system.x (/x.yaml)", "CKV_K8S_22 Deployment.kube-system.a (/x.yaml)"]


def test_a_skip_that_matches_nothing_is_stale(tmp_path):
    assert gate.gate([], SKIPS) == ([], ["CKV_K8S_11 ['Deployment.kube-system.*']"])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report()))
    skips = tmp_path / "s.yaml"
    skips.write_text(json.dumps(SKIPS))
    assert gate.main([str(path), "--skips", str(skips)]) == 1
    assert gate.main([str(path), "--skips", str(skips), "--allow-unused"]) == 0


def test_every_committed_skip_has_a_reason_and_no_checkov_report_fails(tmp_path):
    skips = gate.load_skips(ROOT / "scan" / "skips.yaml")
    assert skips and all(len(s["reason"].split()) >= 5 for s in skips)
    bad = tmp_path / "s.yaml"
    bad.write_text("- {check: CKV_K8S_8, resources: ['*']}\n")
    with pytest.raises(SystemExit):
        gate.load_skips(bad)
    assert gate.main([str(tmp_path / "missing.json")]) == 1
