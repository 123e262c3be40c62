"""`mlplatform place`: manifests in, per-group verdicts with the scheduler's reasons out; bad input exits 2."""

from __future__ import annotations

import json

import pytest
import yaml

from mlplatform.cli import main
from tests.conftest import ROOT, stack_config
from tests.mlplatform.conftest import DATA, EXAMPLES, place_json, run_place, verdicts

# --- placing real manifests ----------------------------------------------------------------------


def test_mlrun_jobs_on_dev(capsys):
    doc = place_json(capsys, "dev", EXAMPLES / "mlrun-jobs.yaml")
    v = verdicts(doc)
    prevent, constrain = v["Pod/train-prevent"], v["Pod/train-constrain"]
    assert [g for g, r in prevent.items() if r["schedulable"]] == ["jobs"]
    assert prevent["jupyter"]["reasons"] == [
        "node(s) had untolerated taint {mlplatform.io/node-role: jupyter} (effect NoSchedule)"
    ]
    assert prevent["spot"]["reasons"] == [
        "node(s) had untolerated taint {app.iguazio.com/lifecycle: preemptible} (effect NoSchedule)"
    ]
    assert prevent["initial"]["reasons"] == [
        "node(s) had untolerated taint {CriticalAddonsOnly: true} (effect NoSchedule)"
    ]
    assert [g for g, r in constrain.items() if r["schedulable"]] == ["spot"]
    assert constrain["jobs"]["reasons"][0].startswith("node(s) didn't match Pod's node affinity/selector")


def test_gpu_jobs_land_only_where_their_gpus_fit(capsys):
    v = verdicts(place_json(capsys, "prod", EXAMPLES / "gpu-training.yaml"))
    train, nightly = v["Job/train-resnet"], v["CronJob/nightly-retrain"]
    assert [g for g, r in train.items() if r["schedulable"]] == ["gpu"]
    assert train["gpu"]["instanceTypes"] == ["g5.2xlarge"]
    assert "Insufficient nvidia.com/gpu: the pod requests 1, m5.4xlarge allocates 0" in train["workload"]["reasons"]
    assert [g for g, r in nightly.items() if r["schedulable"]] == ["gpu"]  # the GPU request brings the toleration
    dev = verdicts(place_json(capsys, "dev", EXAMPLES / "gpu-training.yaml"))  # sized for dev's g5.xlarge
    assert all([g for g, r in pod.items() if r["schedulable"]] == ["gpu"] for pod in dev.values())


def test_polyaxon_spot_experiment_needs_a_spot_group(capsys):
    dev = verdicts(place_json(capsys, "dev", EXAMPLES / "polyaxon-spot-experiment.yaml"))["podspec-1"]
    assert [g for g, r in dev.items() if r["schedulable"]] == ["spot"]
    prod = verdicts(place_json(capsys, "prod", EXAMPLES / "polyaxon-spot-experiment.yaml"))["podspec-1"]
    assert not any(r["schedulable"] for r in prod.values())


def test_allow_mode_nuclio_prefers_spot(capsys):
    doc = place_json(capsys, "dev", EXAMPLES / "nuclio-function.yaml")
    (pod,) = doc["pods"]
    assert pod["ranking"][0] == "spot"
    assert {g["name"] for g in pod["groups"] if g["schedulable"]} == {"jobs", "spot"}


def test_json_shape(capsys):
    doc = place_json(capsys, "dev", EXAMPLES / "oversized-statefulset.yaml")
    assert list(doc) == ["schemaVersion", "stack", "pods", "notes"] and doc["stack"] == "dev"
    (pod,) = doc["pods"]
    # every documented key, empty lists when empty
    keys = ["name", "namespace", "replicas", "groups", "ranking", "rejected", "notes", "warnings", "queue"]
    assert list(pod) == keys
    assert pod["rejected"] == [] and doc["notes"] == [] and pod["queue"] is None  # no teams: no Kueue
    assert pod["name"] == "StatefulSet/feature-store-cache"
    for group in pod["groups"]:
        assert {"name", "schedulable", "reasons"} <= set(group)
        assert isinstance(group["schedulable"], bool) and not group["schedulable"]
        assert any(r.startswith("Insufficient cpu") for r in group["reasons"])


def test_table_output_lists_every_reason(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    code, out, _ = run_place(capsys, "dev", "-f", str(EXAMPLES / "oversized-statefulset.yaml"))
    assert code == 0
    assert "StatefulSet/feature-store-cache" in out
    assert "Insufficient memory: the pod requests 96Gi, m5.2xlarge allocates 31775Mi" in out
    assert "no node group can run this pod" in out


def test_reads_standard_input(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO((EXAMPLES / "mlrun-jobs.yaml").read_text()))
    code, out, _ = run_place(capsys, "--config-file", str(ROOT / "stacks" / "Pulumi.dev.yaml"), "-f", "-", "--json")
    assert code == 0 and len(json.loads(out)["pods"]) == 2


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["dev", "-f", str(DATA / "not-yaml.yaml")], "is not valid YAML"),
        (["dev", "-f", str(DATA / "does-not-exist.yaml")], "cannot read"),
        (["nosuchstack", "-f", str(EXAMPLES / "mlrun-jobs.yaml")], "no stack file"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(capsys, argv, fragment):
    code, out, err = run_place(capsys, *argv)
    assert code == 2
    assert fragment in err and out == ""


def test_missing_filename_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["place", "dev"])
    assert exc.value.code == 2


# --- the plan shows placement for both shipped stacks -----------------------------------------------


@pytest.mark.parametrize(
    "stack, groups", [("dev", ["initial", "jupyter", "jobs", "spot", "gpu"]), ("prod", ["initial", "workload", "gpu"])]
)
def test_plan_shows_the_placement_matrix_and_json_section(capsys, stack, groups, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the cells whole on one line: content, not layout
    assert main(["plan", stack]) == 0
    out = capsys.readouterr().out
    assert "Placement (profiles x node groups)" in out and "placement invariants: all hold" in out
    assert "mlrun-job-prevent" in out and "no: taint CriticalAddonsOnly" in out
    assert main(["plan", stack, "--json"]) == 0
    placement = json.loads(capsys.readouterr().out)["placement"]
    assert placement["ok"] is True and placement["errors"] == []
    assert placement["matrix"]["groups"] == groups
    prevent = next(p for p in placement["profiles"] if p["name"] == "mlrun-job-prevent")
    assert "spot" not in prevent["reaches"] and "initial" not in prevent["reaches"]


# --- the API server before the scheduler, and files that mix kinds ------------------------------------


def test_a_job_the_limit_range_refuses_is_rejected_not_placed(capsys):
    doc = place_json(capsys, "dev", EXAMPLES / "rejected-by-limit-range.yaml")
    job, gpu = doc["pods"]
    assert job["name"] == "Job/wide-training" and job["namespace"] == "mlrun"
    assert job["groups"] == [] and job["ranking"] == []
    assert job["rejected"][0] == (
        "forbidden: spec.containers[0]: maximum cpu usage per Container is 7, but limit is 16 "
        "(LimitRange container-defaults, spec.limits[0].max.cpu)"
    )
    assert gpu["rejected"] == [
        "invalid: spec.containers[0].resources.limits: nvidia.com/gpu: Limit must be set for non overcommitable "
        "resources"
    ]
    code, out, _ = run_place(capsys, "dev", "-f", str(EXAMPLES / "rejected-by-limit-range.yaml"))
    assert code == 0 and "rejected by the API server" in out and "would stay Pending" not in out


def test_helm_template_output_is_read_and_what_has_no_pods_is_counted(capsys):
    doc = place_json(capsys, "dev", DATA / "helm-template.yaml")
    assert [p["name"] for p in doc["pods"]] == ["Deployment/nuclio-dashboard"]
    assert doc["notes"] == [
        "skipped 4 object(s) of kinds without pods: ConfigMap (1), CustomResourceDefinition (1), Service (1), "
        "ServiceAccount (1)"
    ]
    code, out, _ = run_place(capsys, "dev", "-f", str(DATA / "helm-template.yaml"))
    assert code == 0 and "skipped 4 object(s) of kinds without pods" in out


def test_kubectl_get_all_is_read_item_by_item(capsys):
    doc = place_json(capsys, "dev", DATA / "kubectl-get-all.yaml")
    pods = {p["name"]: p for p in doc["pods"]}
    assert list(pods) == ["Pod/mlrun-api-7d9f-abcde", "Deployment/mlrun-api", "ReplicaSet/mlrun-api-7d9f"]
    assert all(p["namespace"] == "mlrun" for p in pods.values())
    assert pods["ReplicaSet/mlrun-api-7d9f"]["rejected"]  # 12 CPUs: above the LimitRange's 7
    assert doc["notes"] == ["skipped 1 object(s) of kinds without pods: Service (1)"]


def test_the_namespace_comes_from_the_object_then_dash_n_then_default(capsys):
    bare = place_json(capsys, "dev", DATA / "service-and-deployment.yaml")["pods"][0]
    assert bare["namespace"] == "default" and any("goes to 'default'" in n for n in bare["notes"])
    code, out, err = run_place(capsys, "dev", "-f", str(DATA / "service-and-deployment.yaml"), "-n", "mlrun", "--json")
    assert code == 0, err
    in_mlrun = json.loads(out)["pods"][0]
    assert in_mlrun["namespace"] == "mlrun"
    assert any("the LimitRange of namespace mlrun set" in n for n in in_mlrun["notes"])


def test_a_list_item_that_cannot_be_read_is_named(capsys, tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text(
        "kind: List\nitems:\n- {apiVersion: v1, kind: Service}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, "
        "spec: {containers: "
        "[{name: c, resources: {requests: {cpu: lots}}}]}}\n"
    )
    code, out, err = run_place(capsys, "dev", "-f", str(path))
    assert code == 2 and out == ""
    assert "document 1 items[1] (Pod/p): spec.containers[0].resources.requests.cpu: 'lots' is not a quantity" in err


def test_every_documented_key_of_a_rejected_pod(capsys):
    doc = place_json(capsys, "dev", EXAMPLES / "rejected-by-limit-range.yaml")
    for pod in doc["pods"]:
        assert {"name", "namespace", "groups", "ranking", "rejected", "notes", "warnings"} <= set(pod)
        assert all(isinstance(pod[k], list) for k in ("groups", "ranking", "rejected", "notes", "warnings"))
    assert any(pod["rejected"] and pod["groups"] == [] for pod in doc["pods"])


def manifest_of(n: int, tmp_path, tail: str = "") -> str:
    docs = [
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: mlrun}}\n"
        f"spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: {100 + i % 800}m}}}}}}]}}\n"
        for i in range(n)
    ]
    path = tmp_path / "many.yaml"
    path.write_text("".join(docs) + tail)
    return str(path)


def test_more_than_500_pod_specs_are_placed(capsys, tmp_path):
    doc = place_json(capsys, "prod", manifest_of(1200, tmp_path))
    assert len(doc["pods"]) == 1200 and doc["pods"][-1]["name"] == "Pod/p1199"
    assert all(p["ranking"] == ["workload"] for p in doc["pods"])


@pytest.mark.parametrize("json_output", [True, False])
def test_a_bad_last_document_prints_only_the_error(capsys, tmp_path, json_output):
    """Pods stream through, but a manifest that turns out bad at the end leaves nothing half-written on stdout."""
    path = manifest_of(50, tmp_path, tail="---\n[not: a mapping\n")
    code, out, err = run_place(capsys, "prod", "-f", path, *(["--json"] if json_output else []))
    assert code == 2 and out == "" and "document 51" in err and "not valid YAML" in err


def test_a_migrating_stack_places_on_the_kept_node_groups_too(capsys, tmp_path):
    """dev-automode with keepNodeGroups (moving off node groups): `place` offers the kept groups by their names."""
    cfg = stack_config("dev-automode")
    cfg["ml-platform-eks:autoMode"]["keepNodeGroups"] = True
    path = tmp_path / "Pulumi.migrating.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}), encoding="utf-8")
    code, out, err = run_place(capsys, "--config-file", str(path), "-f", str(EXAMPLES / "mlrun-jobs.yaml"), "--json")
    assert code == 0, err
    prevent = verdicts(json.loads(out))["Pod/train-prevent"]
    assert [g for g, r in prevent.items() if r["schedulable"]] == ["jobs", "jobs (kept node group)"]
    assert not prevent["spot (kept node group)"]["schedulable"]


# --- fields the API server would refuse (kubectl apply validates them strictly) ------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_a_misspelt_field_is_bad_input_naming_file_object_and_field(capsys, tmp_path, as_json):
    path = tmp_path / "typo.yaml"
    good = (EXAMPLES / "gpu-training.yaml").read_text()
    path.write_text(
        good.replace("restartPolicy", "nodeSelect\u043er: {}\n      restartPolicy", 1)
        + "---\n"
        + good.replace("image:", "imag\u0435:")
    )
    code, out, err = run_place(capsys, "dev", "-f", str(path), *(["--json"] if as_json else []))
    assert code == 2 and out == ""
    assert err.startswith(f"error: {path}: ")
    assert "checked against the Kubernetes 1.35 schema" in err
    assert (
        "document 1 (Job/train-resnet): spec.template.spec.nodeSelect\\u043er: unknown field (it contains the "
        "non-ASCII character(s) \\u043e; did you mean nodeSelector?)"
    ) in err
    # the second copy: every container's image key misspelt, reported with the first copy's problem at once
    assert "document 3 (Job/train-resnet): spec.template.spec.containers[0].imag\\u0435: unknown field" in err


def test_a_custom_resource_is_skipped_and_said_in_the_json_notes(capsys, tmp_path):
    path = tmp_path / "with-cr.yaml"
    cr = "apiVersion: nuclio.io/v1beta1\nkind: NuclioFunction\nmetadata: {name: fn}\nspec: {runtime: python}\n"
    path.write_text(cr + "---\n" + (EXAMPLES / "nuclio-function.yaml").read_text())
    doc = place_json(capsys, "dev", path)
    assert [p["name"] for p in doc["pods"]] == ["Deployment/nuclio-model-server"]
    assert any(n.startswith("skipped custom resources") and "NuclioFunction (1)" in n for n in doc["notes"])
