"""The plan document's account of the add-on charts (kubernetes.charts)."""

from __future__ import annotations

from mlplatform.plan import build_plan
from mlplatform.reports.plan_document import plan_document


def test_the_plan_document_names_each_chart_its_images_and_the_needs_it_states():
    charts = plan_document(build_plan("dev-karpenter"))["kubernetes"]["charts"]
    assert charts["problems"] == []
    by_release = {r["release"]: r for r in charts["releases"]}
    assert by_release["karpenter"]["workloads"] == [
        {"kind": "Deployment", "name": "karpenter", "images": ["public.ecr.aws/karpenter/controller:1.14.1"]}
    ]
    assert any("/var/lib/kubelet/device-plugins" in n for n in charts["statedNeeds"])
