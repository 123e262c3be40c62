"""The operators' defaults and the pods built from fields (Spark, Argo), as workload_kinds/built_pods read them."""

from __future__ import annotations

from mlplatform_core.placement.manifests import read_manifests


def _pods(text: str) -> dict:
    return {m.name: m for m in read_manifests(text)}


POD = "{containers: [{name: c, image: i}]}"


def test_replica_defaults_follow_the_operators():
    pods = _pods(
        f"apiVersion: kubeflow.org/v1\nkind: MPIJob\nmetadata: {{name: m}}\nspec:\n  mpiReplicaSpecs:\n"
        f"    Launcher: {{template: {{spec: {POD}}}}}\n    Worker: {{template: {{spec: {POD}}}}}\n---\n"
        f"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {{name: p}}\nspec:\n  pytorchReplicaSpecs:\n"
        f"    Worker: {{template: {{spec: {POD}}}}}\n---\n"
        f"apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {{name: r}}\nspec:\n"
        f"  headGroupSpec: {{template: {{spec: {POD}}}}}\n"
        f"  workerGroupSpecs: [{{groupName: g, template: {{spec: {POD}}}}}]\n---\n"
        f"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {{name: l}}\n"
        f"spec: {{leaderWorkerTemplate: {{workerTemplate: {{spec: {POD}}}}}}}\n"
    )
    assert {name: m.replicas for name, m in pods.items()} == {
        "MPIJob/m Launcher": 1,
        "MPIJob/m Worker": 0,  # mpi_defaults.go: workers default to 0
        "PyTorchJob/p Worker": 1,
        "RayCluster/r head": 1,
        "RayCluster/r worker group g": 0,  # replicas: +kubebuilder:default:=0
        "LeaderWorkerSet/l leader": 1,  # size 1: a leader and no workers
    }


def test_spark_pods_are_sized_as_spark_sizes_them():
    pods = _pods(
        "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {name: s}\nspec:\n"
        "  type: Python\n  nodeSelector: {team: a}\n"
        "  driver: {cores: 1, memory: 2g, coreLimit: 1200m}\n"
        "  executor: {cores: 2, memory: 4g, nodeSelector: {team: b}, gpu: {name: nvidia.com/gpu, quantity: 1}}\n"
    )
    driver, executor = pods["SparkApplication/s driver"].spec, pods["SparkApplication/s executor"].spec
    # 2 GiB + max(0.4 x 2 GiB, 384 MiB) for a Python application
    assert driver["containers"][0]["resources"] == {
        "requests": {"cpu": "1", "memory": "2867Mi"},
        "limits": {"memory": "2867Mi", "cpu": "1200m"},
    }
    assert driver["nodeSelector"] == {"team": "a"}
    assert executor["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert executor["nodeSelector"] == {"team": "b"}  # the executor's own selector over the application's
    assert pods["SparkApplication/s executor"].replicas == 1  # defaults.go: instances 1


def test_argo_templates_take_the_workflows_scheduling_unless_they_set_their_own():
    pods = _pods(
        "apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: c}\nspec:\n  workflowSpec:\n"
        "    nodeSelector: {a: b}\n    podPriorityClassName: igz-workload-low\n    templates:\n"
        "      - {name: dag, dag: {tasks: []}}\n"
        "      - {name: one, container: {image: i}}\n"
        "      - {name: two, nodeSelector: {c: d}, priorityClassName: igz-workload-high,\n"
        "         script: {image: i, source: x}}\n"
    )
    assert set(pods) == {"CronWorkflow/c template one", "CronWorkflow/c template two"}  # the dag has no pod
    one, two = pods["CronWorkflow/c template one"].spec, pods["CronWorkflow/c template two"].spec
    assert (one["nodeSelector"], one["priorityClassName"]) == ({"a": "b"}, "igz-workload-low")
    assert (two["nodeSelector"], two["priorityClassName"]) == ({"c": "d"}, "igz-workload-high")
    assert "source" not in two["containers"][0]


def test_a_known_kind_with_no_pod_template_is_noted_never_dropped():
    from mlplatform_core.placement.manifests import ManifestStream

    stream = ManifestStream(
        "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: on-existing}\n"
        "spec: {entrypoint: python x.py, clusterSelector: {ray.io/cluster: shared}}\n---\n"
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec: {POD}\n"
    )
    assert [m.name for m in stream] == ["Pod/p"]
    assert "RayJob/on-existing: no pod template place can read" in " ".join(stream.notes)
