"""The pods of operators' custom resources, for `mlplatform place`: where each kind keeps its pod templates and
how many pods each makes, read from the CRDs' own Go types (field paths and defaults cited per kind).

Pure Python. `pod_templates(obj)` answers for a custom resource of a known kind (by API group and kind) with
one PodTemplate per role (a PyTorchJob's Master and Worker, a RayCluster's head and each worker group...), or
None for a kind it does not know (which `place` notes, never drops). A kind whose pods an operator builds
from other fields (SparkApplication, Argo Workflows) is built in built_pods.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .built_pods import argo_templates, spark_templates
from .pod_template import KindError, PodTemplate, count, get, spec_at

# --- Kubeflow training jobs: kubeflow/training-operator v1.9.0 pkg/apis/kubeflow.org/v1/*_types.go, a
# map ReplicaType -> ReplicaSpec{replicas, template} (common_types.go); replicas default 1 (*_defaults.go
# setDefaultReplicas), but an MPIJob's Worker 0 (mpi_defaults.go). kubeflow/mpi-operator v0.8.0 v2beta1
# (pkg/apis/kubeflow/v2beta1/types.go mpiReplicaSpecs; default.go: Launcher 1, Worker 0).
REPLICA_SPECS = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
}


def _kubeflow_job(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    field = f"spec.{REPLICA_SPECS[kind]}"
    specs = get(obj, field)
    if not isinstance(specs, Mapping) or not specs:
        raise KindError(f"{field} is missing or empty; a {kind} keeps its pod templates there, one per replica type")
    for role, replica in specs.items():
        base = f"{field}.{role}"
        default = 0 if kind == "MPIJob" and str(role).lower() == "worker" else 1
        notes = ()
        if kind == "PyTorchJob" and get(obj, "spec.elasticPolicy.maxReplicas") is not None and role == "Worker":
            most = get(obj, "spec.elasticPolicy.maxReplicas")
            notes = (f"elastic: spec.elasticPolicy lets the workers grow to {most}",)
        yield PodTemplate(
            str(role),
            f"{base}.template.spec",
            spec_at(replica, "template.spec", kind),
            count(replica, "replicas", default),
            notes,
        )


# --- KubeRay: ray-project/kuberay v1.7.0 ray-operator/apis/ray/v1/raycluster_types.go: headGroupSpec.template
# (one head), workerGroupSpecs[].template with replicas (default 0) x numOfHosts (default 1) pods, up to
# maxReplicas x numOfHosts when Ray's autoscaler is on; rayjob_types.go spec.rayClusterSpec and
# submitterPodTemplate; rayservice_types.go spec.rayClusterConfig.
def _ray_cluster(cluster: Any, at: str, kind: str) -> Iterator[PodTemplate]:
    if not isinstance(cluster, Mapping):
        raise KindError(f"{at} is missing; a {kind} keeps its Ray cluster (headGroupSpec, workerGroupSpecs) there")
    head = f"{at}.headGroupSpec.template.spec"
    yield PodTemplate("head", head, spec_at(cluster, "headGroupSpec.template.spec", kind), 1)
    groups = cluster.get("workerGroupSpecs") or []
    if not isinstance(groups, list):
        raise KindError(f"{at}.workerGroupSpecs must be a list")
    autoscaling = bool(cluster.get("enableInTreeAutoscaling"))
    for i, group in enumerate(groups):
        name = get(group, "groupName") or str(i)
        hosts = count(group, "numOfHosts", 1) or 1
        replicas = count(group, "replicas", 0)
        notes: tuple[str, ...] = ()
        if hosts > 1:
            notes += (f"{replicas} replicas x numOfHosts {hosts}",)
        if autoscaling and get(group, "maxReplicas") is not None:
            notes += (f"Ray's autoscaler may grow it to maxReplicas {count(group, 'maxReplicas', 0)} x {hosts}",)
        path = f"{at}.workerGroupSpecs[{i}].template.spec"
        yield PodTemplate(f"worker group {name}", path, spec_at(group, "template.spec", kind), replicas * hosts, notes)


def _ray(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    if kind == "RayCluster":
        yield from _ray_cluster(obj.get("spec"), "spec", kind)
    elif kind == "RayService":
        yield from _ray_cluster(get(obj, "spec.rayClusterConfig"), "spec.rayClusterConfig", kind)
    else:  # RayJob
        if get(obj, "spec.rayClusterSpec") is not None:
            yield from _ray_cluster(get(obj, "spec.rayClusterSpec"), "spec.rayClusterSpec", kind)
        if get(obj, "spec.submitterPodTemplate") is not None:
            path = "spec.submitterPodTemplate.spec"
            yield PodTemplate("submitter", path, spec_at(obj, path, kind), 1)


# --- JobSet: kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go: replicatedJobs[] with a Job
# template (batchv1.JobTemplateSpec) and replicas (default 1); each Job runs `parallelism` pods (default 1).
# Kubeflow Trainer's runtimes hold a JobSet template: kubeflow/trainer v2.3.0
# pkg/apis/trainer/v1alpha1/trainingruntime_types.go spec.template (JobSetTemplateSpec).spec.
def _replicated_jobs(spec: Any, at: str, kind: str) -> Iterator[PodTemplate]:
    jobs = get(spec, "replicatedJobs")
    if not isinstance(jobs, list) or not jobs:
        raise KindError(f"{at}.replicatedJobs is missing or empty; a {kind} keeps its Job templates there")
    for i, job in enumerate(jobs):
        name = get(job, "name") or str(i)
        parallelism = count(job, "template.spec.parallelism", 1)
        replicas = count(job, "replicas", 1)
        notes = (f"{replicas} Job(s) x parallelism {parallelism}",) if parallelism != 1 and replicas != 1 else ()
        path = f"{at}.replicatedJobs[{i}].template.spec.template.spec"
        yield PodTemplate(
            f"replicatedJob {name}",
            path,
            spec_at(job, "template.spec.template.spec", kind),
            replicas * parallelism,
            notes,
        )


def _jobset(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    yield from _replicated_jobs(obj.get("spec"), "spec", kind)


def _training_runtime(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    for t in _replicated_jobs(get(obj, "spec.template.spec"), "spec.template.spec", kind):
        note = "a TrainJob that names this runtime may change the node count and resources (numNodes, resourcesPerNode)"
        yield PodTemplate(t.role, t.path, t.spec, t.replicas, (*t.notes, note))


# --- LeaderWorkerSet: kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go: replicas
# groups (default 1), each a leader (leaderTemplate, else workerTemplate) and size - 1 workers (size default 1).
def _lws(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    at = "spec.leaderWorkerTemplate"
    groups, size = count(obj, "spec.replicas", 1), count(obj, f"{at}.size", 1)
    leader = "leaderTemplate" if get(obj, f"{at}.leaderTemplate") is not None else "workerTemplate"
    note = () if leader == "leaderTemplate" else ("no leaderTemplate: the leader uses the workerTemplate",)
    yield PodTemplate("leader", f"{at}.{leader}.spec", spec_at(obj, f"{at}.{leader}.spec", kind), groups, note)
    if size > 1:
        notes = (f"{groups} group(s) x (size {size} - 1)",)
        path = f"{at}.workerTemplate.spec"
        yield PodTemplate("worker", path, spec_at(obj, path, kind), groups * (size - 1), notes)


# --- Dask: dask/dask-kubernetes 2025.4.3 dask_kubernetes/operator/customresources/templates.yaml: a DaskCluster's
# spec.scheduler.spec and spec.worker.spec are PodSpecs, worker.replicas default 1; a DaskWorkerGroup's spec.worker;
# a DaskJob's spec.job.spec (the client) and spec.cluster.spec (a DaskCluster's spec). dask_kubernetes' KubeCluster
# creates a DaskCluster.
def _dask_cluster(spec: Any, at: str, kind: str) -> Iterator[PodTemplate]:
    yield PodTemplate("scheduler", f"{at}.scheduler.spec", spec_at(spec, "scheduler.spec", kind), 1)
    yield PodTemplate(
        "worker", f"{at}.worker.spec", spec_at(spec, "worker.spec", kind), count(spec, "worker.replicas", 1)
    )


def _dask(obj: Mapping[str, Any], kind: str) -> Iterator[PodTemplate]:
    if kind == "DaskCluster":
        yield from _dask_cluster(obj.get("spec"), "spec", kind)
    elif kind == "DaskWorkerGroup":
        path = "spec.worker.spec"
        yield PodTemplate("worker", path, spec_at(obj, path, kind), count(obj, "spec.worker.replicas", 1))
    else:  # DaskJob
        yield PodTemplate("job runner", "spec.job.spec", spec_at(obj, "spec.job.spec", kind), 1)
        yield from _dask_cluster(get(obj, "spec.cluster.spec"), "spec.cluster.spec", kind)


Reader = Callable[[Mapping[str, Any], str], Iterator[PodTemplate]]
# (API group, kind) -> reader. The groups are the CRDs' own (spec.group of each CustomResourceDefinition).
KINDS: Mapping[tuple[str, str], Reader] = {
    **{("kubeflow.org", kind): _kubeflow_job for kind in REPLICA_SPECS},
    ("ray.io", "RayCluster"): _ray,
    ("ray.io", "RayJob"): _ray,
    ("ray.io", "RayService"): _ray,
    ("jobset.x-k8s.io", "JobSet"): _jobset,
    ("trainer.kubeflow.org", "TrainingRuntime"): _training_runtime,
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): _training_runtime,
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): _lws,
    ("kubernetes.dask.org", "DaskCluster"): _dask,
    ("kubernetes.dask.org", "DaskWorkerGroup"): _dask,
    ("kubernetes.dask.org", "DaskJob"): _dask,
    ("sparkoperator.k8s.io", "SparkApplication"): spark_templates,
    ("sparkoperator.k8s.io", "ScheduledSparkApplication"): spark_templates,
    ("argoproj.io", "Workflow"): argo_templates,
    ("argoproj.io", "WorkflowTemplate"): argo_templates,
    ("argoproj.io", "ClusterWorkflowTemplate"): argo_templates,
    ("argoproj.io", "CronWorkflow"): argo_templates,
}
# Operators' groups inside Kubernetes' own domain (*.k8s.io): custom resources all the same.
OPERATOR_GROUPS = frozenset(group for group, _ in KINDS if group.endswith(".k8s.io"))
# Kinds whose pods come from another object: said, not placed.
ELSEWHERE = {
    ("trainer.kubeflow.org", "TrainJob"): "its pods come from the TrainingRuntime or ClusterTrainingRuntime its "
    "spec.runtimeRef names (kubeflow/trainer v2.3.0 trainjob_types.go); place that runtime's manifest, which "
    "place reads as a JobSet template",
}


def api_group(obj: Mapping[str, Any]) -> str:
    api_version = obj.get("apiVersion")
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


def known_kinds() -> list[str]:
    return sorted({kind for _, kind in KINDS})


def pod_templates(obj: Mapping[str, Any], kind: str) -> list[PodTemplate] | None:
    """The pod templates of a custom resource of a known kind, or None for a kind this module does not know.
    Raises KindError naming the field that is missing or malformed."""
    reader = KINDS.get((api_group(obj), kind))
    if reader is None:
        return None
    return list(reader(obj, kind))
