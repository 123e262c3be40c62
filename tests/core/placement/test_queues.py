"""Kueue's answer for a workload of a team namespace (placement/queues.py), on the shipped three-team stack:
the queue, the flavor (resource-group order, taints, selectors, nominal then borrowing), or why it waits."""

from __future__ import annotations

import functools

import yaml

from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.validation import validate_stack
from mlplatform_core.model.workloads import manifests
from mlplatform_core.placement.admission import ClusterObjects
from mlplatform_core.placement.filters import place_admitted
from mlplatform_core.placement.manifests import ManifestStream
from mlplatform_core.placement.queues import QueuedPlacement, place_workloads
from mlplatform_core.placement.templates import node_templates
from tests.conftest import ROOT

STACK = ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"
EXAMPLE = ROOT / "examples" / "manifests" / "team-pytorchjob.yaml"
RENDERED = ROOT / "tests" / "data" / "rendered" / "teams" / "kueue.yaml"  # the pinned Kueue chart, helm-rendered


@functools.cache
def _stack():
    valid = validate_stack(read_stack_file(STACK), "teams")
    return valid, ClusterObjects.from_manifests(manifests(valid.workloads)), node_templates(valid.layout)


def placed(text: str) -> list[QueuedPlacement]:
    valid, cluster, templates = _stack()
    out = place_workloads(
        ManifestStream(text), lambda m: m.admit(cluster), lambda a: place_admitted(a, templates), valid.teams
    )
    return [r for _, r in out]  # type: ignore[misc]


SPOT = {"key": "app.iguazio.com/lifecycle", "operator": "Exists", "effect": "NoSchedule"}  # as MLRun's allow mode


def pytorchjob(
    namespace: str = "vision", gpus: int = 1, workers: int = 2, labels: dict | None = None, spot: bool = False
) -> str:
    def role(n: int) -> dict:
        res = {"cpu": "6", "memory": "24Gi"}
        limits = {**res, "nvidia.com/gpu": gpus} if gpus else res
        spec: dict = {"containers": [{"name": "c", "image": "i", "resources": {"requests": res, "limits": limits}}]}
        if spot:
            spec["tolerations"] = [SPOT]
        return {"replicas": n, "template": {"spec": spec}}

    obj = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {
            "name": "train",
            "namespace": namespace,
            "labels": labels or {"kueue.x-k8s.io/queue-name": namespace},
        },
        "spec": {"pytorchReplicaSpecs": {"Master": role(1), "Worker": role(workers)}},
    }
    return yaml.safe_dump(obj)


def test_the_shipped_pytorchjob_names_its_queue_flavor_and_landing_group():
    results = placed(EXAMPLE.read_text())
    answer = results[0].queue
    assert answer is not None and answer.admitted
    assert (answer.local_queue, answer.cluster_queue, answer.team) == ("vision", "vision", "vision")
    assert answer.flavors == ("gpu",) and not answer.borrowing
    assert ("gpu", "nvidia.com/gpu", "3") in answer.usage
    # Kueue adds the flavor's node label and GPU toleration: the pods land on the gpu group only.
    assert all(r.reachable == ("gpu",) for r in results)
    assert [r.first_of_workload for r in results] == [True, False]


def test_over_nominal_it_borrows_what_the_cohort_lends():
    # vision: 3 GPUs nominal, borrowingLimit 2; nlp lends 1 (lendingLimit): 4 fit by borrowing, 5 do not.
    answer = placed(pytorchjob(workers=3))[0].queue
    assert answer.admitted and answer.borrowing and answer.podsets[-1].borrows
    answer = placed(pytorchjob(workers=4))[0].queue
    assert not answer.admitted
    (wait,) = answer.waits
    assert "Worker" in wait and "needs 5 nvidia.com/gpu" in wait and "nominal quota 3" in wait and "borrow" in wait


def test_cpu_jobs_take_the_first_flavor_that_fits_in_order():
    # analytics quotas jobs (42 cpu, + vision's 14 lent) then spot (56 cpu, nobody lends there).
    small = placed(pytorchjob("analytics", gpus=0, workers=3))[0].queue
    assert small.flavors == ("jobs",) and not small.borrowing
    lent = placed(pytorchjob("analytics", gpus=0, workers=8))[0].queue  # 54 cpu: over nominal, within the lent
    assert lent.flavors == ("jobs",) and lent.borrowing
    # 6 + 54 cpu: the Master takes jobs; the Workers' 54 on top no longer fit there and go to spot.
    results = placed(pytorchjob("analytics", gpus=0, workers=9, spot=True))
    big = results[0].queue
    assert big.podsets[0].flavor == "jobs" and big.podsets[1].flavor == "spot"
    assert any("jobs: needs 60 cpu" in r for r in big.podsets[1].reasons)
    assert results[1].reachable == ("spot",) and results[0].reachable == ("jobs",)


def test_no_flavor_its_pods_tolerate_waits():
    # Without the spot toleration the spot flavor (nodeTaints: the spot taint) is never given to the Workers.
    answer = placed(pytorchjob("analytics", gpus=0, workers=9))[0].queue
    assert not answer.admitted
    assert any("spot: untolerated taint app.iguazio.com/lifecycle" in w for w in answer.waits)


def test_a_gpu_job_of_a_team_without_gpus_waits():
    answer = placed(pytorchjob("analytics"))[0].queue
    assert not answer.admitted and "nvidia.com/gpu" in answer.waits[0]


def test_without_the_queue_label_kueue_leaves_it_alone():
    answer = placed(pytorchjob(labels={"app": "x"}))[0].queue
    assert not answer.managed and "kueue.x-k8s.io/queue-name: vision" in answer.notes[0]


def test_a_queue_the_namespace_lacks_waits():
    answer = placed(pytorchjob(labels={"kueue.x-k8s.io/queue-name": "nlp"}))[0].queue
    assert answer.managed and not answer.admitted and "LocalQueue nlp does not exist" in answer.waits[0]


def test_a_priority_class_the_team_may_not_use_is_said_not_enforced():
    labels = {"kueue.x-k8s.io/queue-name": "nlp", "kueue.x-k8s.io/priority-class": "igz-workload-high"}
    answer = placed(pytorchjob("nlp", workers=1, labels=labels))[0].queue
    assert answer.admitted
    assert any("igz-workload-high is not one team nlp may use" in n for n in answer.notes)


def test_a_selector_for_another_group_skips_the_flavor():
    text = pytorchjob("analytics", gpus=0, workers=1, spot=True).replace(
        "containers:", "nodeSelector: {mlplatform.io/node-group: spot}\n          containers:", 2
    )
    answer = placed(text)[0].queue
    assert answer.flavors == ("spot",)
    assert any("jobs: the pod's node selector" in r for r in answer.podsets[0].reasons)


def test_a_plain_job_in_a_namespace_without_team():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "mlrun", "labels": {"kueue.x-k8s.io/queue-name": "vision"}},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}},
    }
    answer = placed(yaml.safe_dump(job))[0].queue
    assert not answer.admitted and "no team's" in answer.waits[0]


def test_pods_the_api_server_refuses_are_never_admitted():
    job = yaml.safe_load(pytorchjob(workers=1))
    for role in job["spec"]["pytorchReplicaSpecs"].values():
        role["template"]["spec"]["priorityClassName"] = "no-such-class"
    answer = placed(yaml.safe_dump(job))[0].queue
    assert not answer.admitted and "refuses" in answer.waits[0]


def test_the_pinned_kueue_behaves_as_place_models_it():
    """From the pinned chart as helm rendered it: the default flavorFungibility stops at the first flavor that
    fits by borrowing, and Kueue manages only jobs that carry the queue label."""
    docs = [d for d in yaml.load_all(RENDERED.read_text(), Loader=yaml.CSafeLoader) if d]
    crd = next(
        d for d in docs if d["kind"] == "CustomResourceDefinition" and d["spec"]["names"]["kind"] == "ClusterQueue"
    )
    version = next(v for v in crd["spec"]["versions"] if v["storage"])
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    fungibility = spec["flavorFungibility"]["properties"]
    assert fungibility["whenCanBorrow"]["default"] == "MayStopSearch"
    assert fungibility["whenCanPreempt"]["default"] == "TryNextFlavor"
    config_map = next(
        d for d in docs if d["kind"] == "ConfigMap" and "controller_manager_config.yaml" in d.get("data", {})
    )
    shipped = yaml.safe_load(config_map["data"]["controller_manager_config.yaml"])
    assert shipped.get("manageJobsWithoutQueueName", False) is False
