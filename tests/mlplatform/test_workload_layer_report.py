"""The workload layer in `mlplatform plan`: the `kubernetes` section of --json and the tables."""

from __future__ import annotations

import json

import kubernetes_validate
import pytest

from mlplatform.cli import main
from mlplatform_core.model.ml_settings.mlrun import decode_mlrun_env
from tests.core.model.workloads.test_workloads import schema_version


def plan(capsys, *argv) -> tuple[int, str, str]:
    code = main(["plan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_plan_json_kubernetes_objects_are_valid_manifests(capsys, stack):
    code, out, _ = plan(capsys, stack, "--json")
    assert code == 0
    doc = json.loads(out)
    objects = doc["kubernetes"]["objects"]
    kinds = [o["kind"] for o in objects]
    assert kinds.count("PriorityClass") == 3
    assert {"PriorityClass", "Namespace", "LimitRange"} <= set(kinds)
    version = schema_version(doc["kubernetesVersion"])
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)
    namespaces = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"}
    # The workload namespaces, and the device plugin's own (both stacks ship a GPU group).
    assert namespaces == ({"mlrun", "jupyter"} if stack == "dev" else {"mlrun"}) | {"nvidia-device-plugin"}


@pytest.mark.parametrize("stack", ["dev", "prod"])  # both ship a GPU group
def test_plan_json_lists_the_addons(capsys, stack):
    doc = json.loads(plan(capsys, stack, "--json")[1])
    addons = doc["kubernetes"]["addons"]
    assert [a["name"] for a in addons if a["kind"] == "helm"] == ["cluster-autoscaler", "nvidia-device-plugin"]
    assert all(a["version"] for a in addons if a["kind"] == "helm")
    eks_addons = {a["name"]: a["createdBy"] for a in addons if a["kind"] == "eks-addon"}
    # kube-proxy and vpc-cni come with pulumi_eks.Cluster; CoreDNS, the EBS CSI driver and the node agents
    # (node monitoring: nodeRepair is on by default; Pod Identity: the shipped stacks set podIdentity) are ours.
    assert eks_addons == {
        "coredns": None,
        "aws-ebs-csi-driver": None,
        "eks-node-monitoring-agent": None,
        "eks-pod-identity-agent": None,
        "kube-proxy": "pulumi-eks",
        "vpc-cni": "pulumi-eks",
    }


def test_plan_json_exports_the_mlrun_and_polyaxon_settings(capsys):
    doc = json.loads(plan(capsys, "dev", "--json")[1])
    decoded = decode_mlrun_env(doc["exports"]["mlrunEnv"])
    spot = next(g for g in doc["nodeGroups"] if g["name"] == "spot")
    assert decoded["node_selector"].items() <= spot["labels"].items()
    assert [{k: t[k] for k in ("key", "value", "effect")} for t in decoded["tolerations"]] == spot["taints"]
    assert doc["exports"]["polyaxonEnvironments"]["spot"]["nodeSelector"] == {"mlplatform.io/node-role": "spot"}


def test_plan_tables_show_the_workload_layer(capsys):
    code, out, _ = plan(capsys, "prod")
    assert code == 0
    for title in ("Priority classes", "Workload namespaces", "Add-ons", "MLRun settings", "Polyaxon environments"):
        assert title in out
    assert "igz-workload-medium" in out and "Guaranteed" in out
    assert "cluster-autoscaler" in out and "9." in out
    assert "MLRUN_FUNCTION_DEFAULTS__PREEMPTION_MODE" in out


def test_plan_refuses_bad_workload_settings_before_running(tmp_path, capsys):
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(
        "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: prod\n"
        "  ml-platform-eks:workloads:\n    namespaces:\n      mlrun:\n        limits:\n"
        "          max:\n            cpu: 500m\n"
    )
    code, _, err = plan(capsys, "--config-file", str(path))
    assert code == 2
    assert "ml-platform-eks:workloads.namespaces.mlrun.limits.max.cpu: '500m' is below default" in err
