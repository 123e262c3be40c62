"""The API server before the scheduler: LimitRange defaults and bounds, validation, Priority and RuntimeClass.

Each case is what kube-apiserver v1.20 does to the pod (tests/scheduler/test_differential.py checks the
same corpus against the real one); here against the shipped stacks' own objects.
"""

from __future__ import annotations

from functools import cache

import pytest

from mlplatform_core.model.validation import ValidStack, validate_stack
from mlplatform_core.model.workloads import manifests
from mlplatform_core.placement.admission import ClusterObjects, admit
from mlplatform_core.placement.filters import place, place_admitted
from mlplatform_core.placement.pods import Pod, PodSpecError
from mlplatform_core.placement.templates import allocatable_ephemeral_storage, node_templates
from tests.conftest import stack_config


@cache
def stack(name: str) -> ValidStack:
    return validate_stack(stack_config(name), name)


@cache
def cluster(name: str) -> ClusterObjects:
    return ClusterObjects.from_manifests(manifests(stack(name).workloads))


def container(name: str = "c", requests: dict | None = None, limits: dict | None = None, **extra) -> dict:
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return {"name": name, "image": "busybox", **({"resources": resources} if resources else {}), **extra}


def spec(*containers: dict, **fields) -> dict:
    return {"containers": list(containers) or [container()], **fields}


def verdict(pod_spec: dict, namespace: str | None = "mlrun", name: str = "dev"):
    adm = admit(pod_spec, cluster(name), "test", namespace)
    return adm, place_admitted(adm, node_templates(stack(name).layout))


# --- LimitRange -----------------------------------------------------------------------------------


def test_the_limit_range_fills_what_a_container_leaves_out():
    adm, result = verdict(spec())
    resources = adm.spec["containers"][0]["resources"]
    assert resources == {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}}
    assert adm.pod.requests["cpu"] == 500 and adm.pod.requests["memory"] == 2**30
    assert result.reachable and "the LimitRange of namespace mlrun set" in adm.notes[0]


def test_a_16_cpu_job_in_mlrun_is_refused_by_the_limit_range_not_scheduled():
    """The issue's case: the dev mlrun LimitRange caps a container at 7 CPUs, so the API server refuses it."""
    _, result = verdict(spec(container(limits={"cpu": "16"})))
    assert result.rejected == (
        "forbidden: spec.containers[0]: maximum cpu usage per Container is 7, but limit is 16 "
        "(LimitRange container-defaults, spec.limits[0].max.cpu)",
    )
    assert result.reachable == () and result.groups == ()
    # prod's LimitRange allows 15
    assert verdict(spec(container(limits={"cpu": "16"})), name="prod")[1].rejected
    assert not verdict(spec(container(limits={"cpu": "15"})), name="prod")[1].rejected


def test_a_request_above_the_default_limit_is_invalid():
    """Only a request: the LimitRange adds its default limit (2), below the request, which validation refuses."""
    _, result = verdict(spec(container(requests={"cpu": "4"})))
    assert result.rejected == (
        "invalid: spec.containers[0].resources.requests: 4 must be less than or equal to cpu limit 2",
    )


def test_init_containers_are_bounded_too():
    _, result = verdict(spec(container(), initContainers=[container("init", limits={"memory": "64Gi"})]))
    assert "spec.initContainers[0]: maximum memory usage per Container is 28Gi, but limit is 64Gi" in result.rejected[0]


def test_limit_range_items_are_defaulted_as_the_api_server_stores_them():
    """An item with only max: default takes max, defaultRequest takes default; min fills defaultRequest last."""
    objects = [
        {"kind": "Namespace", "metadata": {"name": "t"}},
        {
            "kind": "LimitRange",
            "metadata": {"name": "l", "namespace": "t"},
            "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]},
        },
    ]
    adm = admit(spec(), ClusterObjects.from_manifests(objects), "p", "t")
    assert adm.spec["containers"][0]["resources"] == {
        "requests": {"cpu": "2", "memory": "1Mi"},
        "limits": {"cpu": "2"},
    }


def test_minimum_and_ratio_are_enforced():
    objects = [
        {
            "kind": "LimitRange",
            "metadata": {"name": "l", "namespace": "t"},
            "spec": {
                "limits": [
                    {"type": "Container", "min": {"cpu": "100m"}, "maxLimitRequestRatio": {"memory": "2"}},
                ]
            },
        },
    ]
    objs = ClusterObjects.from_manifests(objects)
    low = admit(spec(container(requests={"cpu": "50m"})), objs, "p", "t")
    assert low.rejected == (
        "forbidden: spec.containers[0]: minimum cpu usage per Container is 100m, but request is 50m "
        "(LimitRange l, spec.limits[0].min.cpu)",
        # a ratio needs both a request and a limit
        "forbidden: spec.containers[0]: memory max limit to request ratio per Container is 2, but no request or no "
        "limit is specified or one is 0 (LimitRange l, spec.limits[0].maxLimitRequestRatio.memory)",
    )
    ratio = admit(spec(container(requests={"cpu": "1", "memory": "1Gi"}, limits={"memory": "4Gi"})), objs, "p", "t")
    assert "memory max limit to request ratio per Container is 2, but provided ratio is 4.000000" in ratio.rejected[0]


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pod_spec, reason",
    [
        (
            spec(container(requests={"cpu": "2"}, limits={"cpu": "1"})),
            "invalid: spec.containers[0].resources.requests: 2 must be less than or equal to cpu limit 1",
        ),
        (
            spec(container(requests={"nvidia.com/gpu": 1})),
            "invalid: spec.containers[0].resources.limits: nvidia.com/gpu: Limit must be set for non overcommitable "
            "resources",
        ),
        (
            spec(container(requests={"nvidia.com/gpu": 1}, limits={"nvidia.com/gpu": 2})),
            "invalid: spec.containers[0].resources.requests: 1 must be equal to nvidia.com/gpu limit 2",
        ),
        (
            spec(container(limits={"nvidia.com/gpu": "500m"})),
            "invalid: spec.containers[0].resources.limits.nvidia.com/gpu: 500m must be an integer",
        ),
        (
            spec(container(requests={"gpu": 1})),
            "invalid: spec.containers[0].resources.requests.gpu: must be a standard resource for containers",
        ),
        (
            spec(container(limits={"hugepages-2Mi": "4Mi"})),
            "invalid: spec.containers[0].resources: HugePages require cpu or memory",
        ),
        (
            spec(tolerations=[{"operator": "Equal", "value": "x"}]),
            "invalid: spec.tolerations[0].operator: an empty key needs operator Exists",
        ),
        (spec(priorityClassName="urgent"), "forbidden: no PriorityClass with name urgent was found"),
        (
            spec(overhead={"cpu": "100m"}),
            "forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass",
        ),
        (spec(runtimeClassName="nvidia"), 'forbidden: pod rejected: RuntimeClass "nvidia" not found'),
    ],
)
def test_what_the_api_server_refuses_is_rejected_never_schedulable(pod_spec, reason):
    _, result = verdict(pod_spec, namespace="feature-store")
    assert any(r.startswith(reason) for r in result.rejected), result.rejected
    assert result.reachable == ()
    assert result.to_dict()["rejected"] == list(result.rejected)


def test_mutating_admission_stops_at_the_first_refusal_validation_reports_all():
    both = spec(priorityClassName="urgent", runtimeClassName="nvidia")
    assert len(verdict(both, "feature-store")[1].rejected) == 1  # Priority runs before RuntimeClass
    two = spec(container(requests={"cpu": "2"}, limits={"cpu": "1"}), tolerations=[{"key": "a", "operator": "In"}])
    assert len(verdict(two, "feature-store")[1].rejected) == 2


def test_a_gpu_limit_alone_is_a_request_too():
    adm, result = verdict(spec(container(limits={"nvidia.com/gpu": 1})), "feature-store")
    assert adm.admitted and adm.pod.requests["nvidia.com/gpu"] == 1
    assert result.reachable == ("gpu",)


def test_the_stacks_priority_classes_and_the_system_ones_exist():
    for name in ("igz-workload-low", "igz-workload-high", "system-node-critical", "system-cluster-critical"):
        assert verdict(spec(priorityClassName=name))[0].admitted


def test_an_invalid_pod_is_never_schedulable_even_through_place():
    pod = Pod.from_spec(spec(tolerations=[{"key": "a", "operator": "Exists", "value": "x"}]))
    result = place(pod, stack("dev").layout)
    assert result.rejected and result.reachable == ()


def test_malformed_input_stays_a_pod_spec_error():
    with pytest.raises(PodSpecError):
        admit(spec(container(requests={"cpu": "lots"})), cluster("dev"))


# --- namespaces -------------------------------------------------------------------------------------


def test_without_a_namespace_the_pod_goes_to_default_and_says_so():
    adm = admit(spec(container(requests={"cpu": "16"})), cluster("dev"))
    assert adm.namespace == "default" and adm.admitted  # default has no LimitRange
    assert any("goes to 'default'" in n for n in adm.notes)


def test_a_namespace_the_stack_does_not_create_is_assumed_without_limit_range():
    adm = admit(spec(), cluster("dev"), namespace="nuclio")
    assert adm.admitted and any("'nuclio' is not created by this stack" in n for n in adm.notes)
    assert not any("not created" in n for n in admit(spec(), cluster("dev"), namespace="kube-system").notes)


# --- what the scheduler counts --------------------------------------------------------------------


def test_ephemeral_storage_is_the_root_volume_less_the_kubelets_reservation():
    # 100 GiB: less 1Gi kube-reserved and the 10% nodefs eviction threshold
    assert allocatable_ephemeral_storage(100) == 100 * 2**30 - 2**30 - 10 * 2**30
    fits = spec(container(requests={"ephemeral-storage": "89Gi"}))
    too_much = spec(container(requests={"ephemeral-storage": "90Gi"}))
    assert "jobs" in verdict(fits, "feature-store")[1].reachable
    result = verdict(too_much, "feature-store")[1]
    assert "jobs" not in result.reachable
    reasons = [r.message for r in result.group("jobs").reasons]
    assert reasons == ["Insufficient ephemeral-storage: the pod requests 90Gi, m5.2xlarge allocates 89Gi"]


def test_hugepages_fit_nowhere_on_the_eks_amis():
    pages = {"hugepages-2Mi": "4Mi", "memory": "1Gi"}
    result = verdict(spec(container(requests=pages, limits=pages), tolerations=[{"operator": "Exists"}]), "x")[1]
    assert result.reachable == ()
    assert all("Insufficient hugepages-2Mi" in g.reasons[-1].message for g in result.groups)


@pytest.mark.parametrize("namespace", ["Bad_NS", "mlrun.jobs", "-x", "x" * 64])
def test_a_namespace_no_namespace_can_have_is_not_found(namespace):
    """A Namespace's name is a DNS-1123 label: a pod sent to another name is refused (NotFound), never
    taken to land in a namespace "assumed to exist"."""
    a = admit(spec(), cluster("dev"), "Pod/p", namespace)
    assert not a.admitted and a.rejected[0].startswith(f'not found: namespaces "{namespace}" not found')
    assert admit(spec(), cluster("dev"), "Pod/p", "x" * 63).admitted
