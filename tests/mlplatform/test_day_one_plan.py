"""Day one in the plan and the check: deployment path, access entries, storage, GPU labels, support phase; CI."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest
import yaml

from mlplatform.check import run_checks
from mlplatform.cli import main
from mlplatform.plan import build_plan
from mlplatform_core.model import eks_versions
from tests.conftest import ROOT, STACKS

WORKFLOW = ROOT / ".github" / "workflows" / "infra.yml"


def plan_json(capsys, *argv) -> dict:
    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_stack(tmp_path, stack: str, **settings) -> str:
    doc = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())
    doc["config"].update({f"ml-platform-eks:{k}": v for k, v in settings.items()})
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_json_says_which_path_a_stack_uses_and_what_each_machine_must_reach(capsys, stack):
    dep = plan_json(capsys, stack)["deployment"]
    assert dep["kubernetesLayer"] == "separate"
    cluster, layer = dep["programs"]
    assert cluster["command"] == f"pulumi up --stack {stack} --cwd ." and cluster["kubernetesApi"] is False
    assert layer["command"] == f"pulumi up --stack {stack} --cwd kubernetes-layer" and layer["kubernetesApi"] is True
    assert any("private endpoint" in r for r in layer["reaches"]) and "inside the VPC" in layer["runsFrom"]
    assert cluster["resources"] > 0 and layer["resources"] > 0
    assert dep["clusterStackReference"] == f"<organization>/ml-platform-eks/{stack}"
    assert dep["endpoint"]["privateAccessCidrs"] == [{"dev": "10.40.0.0/16", "prod": "10.50.0.0/16"}[stack]]


def test_json_of_an_inline_stack_names_its_public_cidrs(capsys, tmp_path):
    endpoint = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.7/32"]}
    dep = plan_json(capsys, "--config-file", write_stack(tmp_path, "dev", endpoint=endpoint, kubernetesLayer="inline"))[
        "deployment"
    ]
    (program,) = dep["programs"]
    assert dep["kubernetesLayer"] == "inline" and "34.120.10.7/32" in program["runsFrom"]


def test_json_lists_access_entries_with_the_creator(capsys, tmp_path):
    access = {"edit": [{"principal": "arn:aws:iam::111122223333:role/ml", "namespaces": ["mlrun"]}]}
    entries = plan_json(capsys, "--config-file", write_stack(tmp_path, "prod", access=access))["access"]
    creator, ml = entries
    assert creator["principal"] == "the identity that creates the cluster" and creator["managedBy"].startswith("EKS")
    assert ml["principal"] == "arn:aws:iam::111122223333:role/ml" and ml["type"] == "STANDARD"
    assert [(p["policy"], p["scope"], p["namespaces"]) for p in ml["policies"]] == [
        ("AmazonEKSEditPolicy", "namespace", ["mlrun"])
    ]


def test_json_shows_the_storage_addon_gpu_labels_and_support_phase(capsys):
    doc = plan_json(capsys, "prod")
    storage = doc["storage"]
    assert storage["addon"] == "aws-ebs-csi-driver" and storage["preserve"] is True
    assert "resolved at deploy" in storage["version"] and storage["roleArn"].startswith("arn:aws:iam::")
    assert storage["roleThrough"] == "Pod Identity" and storage["serviceAccountRoleArn"] is None  # podIdentity: true
    assert storage["configuration"]["node"]["tolerateAllTaints"] is True
    (sc,) = storage["storageClasses"]
    assert sc["metadata"]["name"] == "gp3-encrypted" and sc["parameters"]["encrypted"] == "true"
    gpu = next(g for g in doc["nodeGroups"] if g["name"] == "gpu")
    assert gpu["labels"]["k8s.amazonaws.com/accelerator"] == "nvidia-a10g"
    assert gpu["autoscalerTags"]["k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator"]
    assert doc["kubernetesSupport"]["minor"] == "1.35" and doc["kubernetesSupport"]["phase"] in ("standard", "extended")
    projects = {r["project"] for r in doc["resources"]}
    assert projects == {"ml-platform-eks", "ml-platform-eks-kubernetes"}


def test_extended_support_is_called_out(capsys, monkeypatch):
    v135 = eks_versions.calendar()["1.35"]
    monkeypatch.setattr(eks_versions, "today", lambda: v135.end_of_standard_support + datetime.timedelta(days=1))
    support = plan_json(capsys, "prod")["kubernetesSupport"]
    assert support["phase"] == "extended" and "EXTENDED" in support["note"] and "bills" in support["note"]


def test_tables_show_the_deployment_path_access_and_storage(capsys):
    assert main(["plan", "prod"]) == 0
    out = capsys.readouterr().out
    assert "Deployment path (kubernetesLayer: separate" in out
    assert "pulumi up --stack prod --cwd kubernetes-layer" in out
    assert "Who may use the cluster" in out and "AmazonEKSClusterAdminPolicy" in out
    assert "Storage: EKS add-on aws-ebs-csi-driver" in out and "gp3-encrypted" in out
    assert "k8s.amazonaws.com/accelerator=nvidia-a10g" in out


def test_check_runs_the_pack_on_each_programs_stack():
    plan = build_plan("dev")
    assert len(plan.run.programs) == 2 and not [v for v in run_checks(plan) if v.mandatory]
    # A violation only the Kubernetes layer's stack holds is found there, with that stack's URN.
    cluster, layer = plan.run.programs
    broken_sc = [
        dataclasses.replace(r, inputs={**r.inputs, "parameters": {"type": "gp3", "encrypted": "false"}})
        if r.type == "kubernetes:storage.k8s.io/v1:StorageClass"
        else r
        for r in layer.resources
    ]
    broken = dataclasses.replace(layer, resources=broken_sc)
    run = dataclasses.replace(plan.run, programs=(cluster, broken))
    found = [v for v in run_checks(dataclasses.replace(plan, run=run)) if v.policy == "ebs-storage-classes-encrypted"]
    assert found and "::ml-platform-eks-kubernetes::" in found[0].urn
    # The cluster program's stack alone holds no Kubernetes objects: rules about them stay quiet there.
    assert not [v for v in run_checks(cluster) if v.mandatory]


# --- the example CI workflow matches the documented path ------------------------------------------------


def _jobs() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_ci_runs_each_program_where_the_plan_says_it_can_reach():
    stacks = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS.glob("Pulumi.*.yaml"))
    jobs = _jobs()
    layered = {}
    for stack in stacks:
        plan = build_plan(stack)
        layered[stack] = [p.directory for p in plan.deployment.programs]
    for name, job in jobs.items():
        if "pulumi " not in _runs(job):
            continue
        assert sorted(job["strategy"]["matrix"]["stack"]) == stacks, name
        in_layer = "--cwd kubernetes-layer" in _runs(job)
        if in_layer:
            # The Kubernetes layer needs the private endpoint: an in-VPC runner, after the cluster job.
            assert job["runs-on"][0] == "self-hosted" and "mlp-${{ matrix.stack }}-vpc" in job["runs-on"], name
            assert jobs[job["needs"]]["runs-on"] == "ubuntu-latest", name
            assert "--policy-pack ../policies" in _runs(job), name
        else:
            assert job["runs-on"] == "ubuntu-latest", name
    for stack, directories in layered.items():
        assert directories == [".", "kubernetes-layer"], stack  # what the workflow's two kinds of jobs do
    deploying = [_runs(j) for j in jobs.values() if "pulumi " in _runs(j)]
    kinds = {("--cwd kubernetes-layer" in run, "pulumi up" in run) for run in deploying}
    assert kinds == {(False, False), (True, False), (False, True), (True, True)}
