"""Usable groups: one pod taking a GPU node whole must get past its namespace's LimitRange (issue 30: a p5.48xlarge
group behind the mlrun namespace's 7 cpu / 28Gi maximum, which every check called fine)."""

from __future__ import annotations

from mlplatform_core.model.validation import validate_stack
from mlplatform_core.model.workloads import ResourceValues, manifests
from mlplatform_core.placement.admission import ClusterObjects, admit
from mlplatform_core.placement.filters import place_admitted
from mlplatform_core.placement.invariants import stack_report
from tests.conftest import stack_config

P5 = {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "maxSize": 2}
CAP = {"namespaces": {"mlrun": {"limits": {"max": {"cpu": "7", "memory": "28Gi"}}}}}


def _stack(workloads: dict | None = None):
    raw = stack_config("dev")
    raw["ml-platform-eks:additionalNodeGroups"] = [P5]
    if workloads:
        raw["ml-platform-eks:workloads"] = workloads
    return validate_stack(raw, "dev")


def _eight_gpu_job() -> dict:
    """An MLRun training job asking for the whole p5 node: its 8 GPUs and most of its cpu and memory."""
    limits = {"cpu": "180", "memory": "1800Gi", "nvidia.com/gpu": 8}
    return {
        "containers": [{"name": "base", "image": "mlrun/mlrun-gpu", "resources": {"limits": limits}}],
        "priorityClassName": "igz-workload-medium",
        "restartPolicy": "Never",
    }


def test_the_mlrun_maximum_follows_the_largest_gpu_node_and_an_8_gpu_job_is_admitted_onto_it():
    valid = _stack()
    assert valid.workloads.namespace("mlrun").limits.max == ResourceValues("192", "2048Gi")  # p5.48xlarge's size
    cluster = ClusterObjects.from_manifests(manifests(valid.workloads))
    admission = admit(_eight_gpu_job(), cluster, "train-llm", "mlrun")
    assert admission.admitted, admission.rejected
    assert place_admitted(admission, valid.layout).reachable == ("train",)
    report = stack_report(valid.config, valid.layout)
    assert report.ok, report.errors
    assert any("container maximum 192 cpu, 2048Gi memory" in n and "p5.48xlarge" in n for n in report.notes)


def test_a_stack_without_bigger_gpu_nodes_keeps_the_default_maximum():
    dev = validate_stack(stack_config("dev"), "dev")  # its g5.xlarge GPU nodes are smaller than 7 cpu / 28Gi
    assert dev.workloads.namespace("mlrun").limits.max == ResourceValues("7", "28Gi")
    assert dev.workloads.notes == ()


def test_a_maximum_the_stack_sets_below_a_gpu_node_is_an_error_naming_the_cap_and_the_edit():
    valid = _stack(CAP)
    assert valid.workloads.namespace("mlrun").limits.max == ResourceValues("7", "28Gi")  # the stack's own, kept
    errors = [str(f) for f in stack_report(valid.config, valid.layout).errors]
    assert len(errors) == 1, errors
    assert errors[0].startswith("whole-node-train: ")
    for part in (
        "is refused by the API server in namespace mlrun",
        "maximum cpu usage per Container is 7, but limit is",
        "(LimitRange container-defaults, spec.limits[0].max.cpu)",
        "maximum memory usage per Container is 28Gi",
        "set workloads.namespaces.mlrun.limits.max to at least {cpu: '192', memory: '2047Gi'}",
    ):
        assert part in errors[0]
    # and place says which cap refused the 8-GPU job
    cluster = ClusterObjects.from_manifests(manifests(valid.workloads))
    rejected = admit(_eight_gpu_job(), cluster, "train-llm", "mlrun").rejected
    assert rejected[0].endswith(
        "maximum cpu usage per Container is 7, but limit is 180 (LimitRange container-defaults, spec.limits[0].max.cpu)"
    )
