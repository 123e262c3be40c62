"""`mlplatform place` on operators' workloads: each role's pod template placed, with its replica count taken from
the CRD's own fields and defaults (placement/workload_kinds.py cites the upstream type files)."""

from __future__ import annotations

import pytest

from tests.mlplatform.conftest import EXAMPLES, place_json, run_place


def _roles(doc: dict) -> dict[str, tuple[int | None, list[str]]]:
    return {p["name"]: (p["replicas"], p["ranking"]) for p in doc["pods"]}


def test_a_pytorchjob_places_its_master_and_three_workers_on_the_gpu_group(capsys):
    roles = _roles(place_json(capsys, "dev", EXAMPLES / "pytorchjob.yaml"))
    assert roles == {"PyTorchJob/resnet-ddp Master": (1, ["gpu"]), "PyTorchJob/resnet-ddp Worker": (3, ["gpu"])}


def test_an_mpijob_places_a_cpu_launcher_and_two_gpu_workers(capsys):
    roles = _roles(place_json(capsys, "dev", EXAMPLES / "mpijob.yaml"))
    assert roles == {"MPIJob/horovod-train Launcher": (1, ["jobs"]), "MPIJob/horovod-train Worker": (2, ["gpu"])}


def test_a_raycluster_places_its_head_and_each_worker_group_with_its_replicas(capsys):
    roles = _roles(place_json(capsys, "dev", EXAMPLES / "raycluster.yaml"))
    assert roles == {
        "RayCluster/tune head": (1, ["jobs"]),
        "RayCluster/tune worker group cpu": (3, ["jobs"]),
        "RayCluster/tune worker group gpu": (2, ["gpu"]),
    }


def test_the_other_operator_workloads_with_their_replica_counts(capsys):
    replicas = {
        p["name"]: p["replicas"] for p in place_json(capsys, "dev", EXAMPLES / "operator-workloads.yaml")["pods"]
    }
    assert replicas == {
        "TFJob/mnist PS": 1,  # replicas defaults to 1
        "TFJob/mnist Worker": 2,
        "RayJob/batch-inference head": 1,
        "RayJob/batch-inference worker group gpu": 2,  # 1 replica x numOfHosts 2
        "JobSet/sweep replicatedJob workers": 6,  # 2 Jobs x parallelism 3
        "LeaderWorkerSet/llm-serving leader": 2,  # one per group
        "LeaderWorkerSet/llm-serving worker": 2,  # 2 groups x (size 2 - 1)
        "SparkApplication/etl driver": 1,
        "SparkApplication/etl executor": 4,
        "DaskCluster/analytics scheduler": 1,
        "DaskCluster/analytics worker": 5,
        "Workflow/preprocess- template prepare": 1,
        "Workflow/preprocess- template train": 1,
    }


def test_the_human_view_says_how_many_pods_each_role_runs(capsys):
    code, out, _ = run_place(capsys, "dev", "-f", str(EXAMPLES / "pytorchjob.yaml"))
    assert code == 0
    assert "PyTorchJob/resnet-ddp Worker (x 3 pods)" in out


def _write(tmp_path, text: str):
    path = tmp_path / "m.yaml"
    path.write_text(text)
    return path


def test_unknown_custom_resources_are_noted_never_dropped(capsys, tmp_path):
    manifest = _write(
        tmp_path,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n"
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
        "spec: {runtimeRef: {name: torch-distributed}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox}]}\n",
    )
    notes = " ".join(place_json(capsys, "dev", manifest)["notes"])
    assert "Widget (1)" in notes
    assert "TrainJob/t: its pods come from the TrainingRuntime or ClusterTrainingRuntime" in notes


@pytest.mark.parametrize(
    "text, fragment",
    [
        (
            "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x}\nspec: {}\n",
            "document 1 (PyTorchJob): spec.pytorchReplicaSpecs is missing or empty",
        ),
        (
            "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: x}\nspec: {headGroupSpec: {}}\n",
            "headGroupSpec.template.spec is missing",
        ),
        (  # the embedded PodSpec is checked against the core schema, as the API server checks the pods made from it
            "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x}\nspec:\n  pytorchReplicaSpecs:\n"
            "    Worker:\n      template:\n        spec:\n          containers: [{name: c, image: i, resorces: {}}]\n",
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resorces",
        ),
    ],
)
def test_unreadable_operator_workloads_exit_2_naming_the_field(capsys, tmp_path, text, fragment):
    code, out, err = run_place(capsys, "dev", "-f", str(_write(tmp_path, text)))
    assert code == 2 and out == ""
    assert fragment in err


def test_a_toleration_for_a_misspelt_taint_key_is_placed_with_a_did_you_mean(capsys, tmp_path):
    """Issue 30: a toleration for app.iguazio.com/lifecyle was placed on `jobs` with no word of the typo."""
    manifest = _write(
        tmp_path,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: mlrun}\nspec:\n"
        "  tolerations: [{key: app.iguazio.com/lifecyle, operator: Equal, value: preemptible, effect: NoSchedule}]\n"
        "  containers: [{name: c, image: busybox}]\n",
    )
    [pod] = place_json(capsys, "dev", manifest)["pods"]
    assert pod["ranking"] == ["jobs"]  # still placed where it can land (the spot taint is not tolerated)
    assert pod["warnings"] == [
        "toleration key 'app.iguazio.com/lifecyle' is on no node of this stack; "
        "did you mean 'app.iguazio.com/lifecycle'?"
    ]
