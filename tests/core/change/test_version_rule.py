"""The change rule on Kubernetes versions reads only Kubernetes minors: a node group's `version` and the control
plane's. Other resources' `version` inputs are charts', providers' or add-ons' (efa-device-plugin v0.5.30), and a
saved BEFORE document is foreign input: neither is parsed as a minor, and neither crashes the gate."""

from __future__ import annotations

import pytest

from mlplatform_core.change.diff import diff_documents, version_step
from mlplatform_core.change.rules import change_violations
from mlplatform_core.model.eks_versions import kubernetes_minor
from mlplatform_core.model.plan_document import PlanDocument
from mlplatform_core.model.resource_types import NODE_GROUP

RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.mark.parametrize(
    ("text", "minor"),
    [
        ("1.35", (1, 35)),
        ("1.9", (1, 9)),
        ("v0.5.30", None),
        ("9.59.0", None),
        ("v26.4.0", None),
        ("1", None),
        ("(newest coredns for Kubernetes 1.35, resolved at deploy)", None),
        ("", None),
        (None, None),
        (1.35, None),
    ],
)
def test_kubernetes_minor_reads_only_minors(text, minor):
    assert kubernetes_minor(text) == minor


def _doc(control, *resources):
    return {"kubernetesVersion": control, "nodeGroups": [], "resources": list(resources)}


def _res(type_, name, version):
    return {"type": type_, "name": name, "urn": f"urn:{type_}::{name}", "inputs": {"version": version}}


def _version_rule(before, after):
    return [
        v.message
        for v in change_violations(diff_documents(before, after), before, after)
        if v.rule == "change-kubernetes-version"
    ]


def test_a_chart_version_is_not_a_minor():
    doc = _doc(
        "1.35",
        _res(NODE_GROUP, "train", "1.35"),
        _res(RELEASE, "efa-device-plugin", "v0.5.30"),
        _res(RELEASE, "cluster-autoscaler", "9.59.0"),
    )
    assert _version_rule(doc, doc) == []


def test_a_node_group_ahead_of_the_control_plane_is_still_refused():
    after = _doc("1.34", _res(NODE_GROUP, "train", "1.35"), _res(RELEASE, "efa-device-plugin", "v0.5.30"))
    assert _version_rule(after, after) == ["node group train runs Kubernetes 1.35, ahead of the control plane's 1.34"]


def test_foreign_versions_compare_as_unknown():
    def step(old: str, new: str) -> int | None:
        return version_step(PlanDocument(kubernetes_version=old), PlanDocument(kubernetes_version=new))["minors"]

    assert step("v1.35", "1.36") is None
    assert step("1.34", "1.36") == 2
    odd = _doc("latest", _res(NODE_GROUP, "train", "v1.36"))
    assert _version_rule(odd, odd) == []
