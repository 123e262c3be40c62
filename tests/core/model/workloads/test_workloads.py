"""The workload layer's config and objects: priority classes, namespaces, LimitRanges, quotas."""

from __future__ import annotations

import kubernetes_validate
import kubernetes_validate.utils
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.quantity import parse_quantity
from mlplatform_core.model.workloads import build_workloads, manifests
from tests.conftest import stack_config


def schema_version(kubernetes_version: str) -> str:
    """The kubernetes_validate schema closest to the stack's Kubernetes minor (it ships one per minor)."""
    minor = int(kubernetes_version.split(".")[1])
    shipped = {v for v in kubernetes_validate.utils.all_versions() if v.startswith("1.")}
    return min(shipped, key=lambda v: (abs(int(v.split(".")[1]) - minor), v))


def workloads_of(stack: str, settings: dict | None = None, **overrides):
    raw = stack_config(stack)
    if settings is not None:
        raw["ml-platform-eks:workloads"] = settings
    raw.update(overrides)
    return build_workloads(parse(raw))


def problems(stack: str, settings: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        workloads_of(stack, settings)
    return [str(p) for p in err.value.problems]


def by_kind(objs: list[dict], kind: str) -> list[dict]:
    return [o for o in objs if o["kind"] == kind]


# --- defaults -----------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_user_priority_classes_queue_ahead_but_never_evict(stack):
    classes = {o["metadata"]["name"]: o for o in by_kind(manifests(workloads_of(stack)), "PriorityClass")}
    assert list(classes) == ["igz-workload-low", "igz-workload-medium", "igz-workload-high"]
    values = [c["value"] for c in classes.values()]
    assert values == sorted(values) and len(set(values)) == 3
    assert all(0 < v < 1_000_000_000 for v in values)
    assert {c["preemptionPolicy"] for c in classes.values()} == {"Never"}
    assert not any(c["globalDefault"] for c in classes.values())


def test_dev_has_job_and_jupyter_namespaces_with_burstable_defaults():
    w = workloads_of("dev")
    assert [ns.name for ns in w.namespaces] == ["mlrun", "jupyter"]
    for ns in w.namespaces:
        lim = ns.limits
        assert ns.limits.qos == "Burstable"
        for r in ("cpu", "memory"):
            req, default, mx = (parse_quantity(getattr(v, r)) for v in (lim.default_request, lim.default, lim.max))
            assert req < default <= mx


def test_prod_has_only_the_job_namespace_with_guaranteed_defaults():
    w = workloads_of("prod")
    assert [ns.name for ns in w.namespaces] == ["mlrun"]
    lim = w.mlrun.limits
    assert lim.qos == "Guaranteed"
    assert lim.default_request == lim.default


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_no_gpu_defaults_and_no_quota_unless_asked(stack):
    objs = manifests(workloads_of(stack))
    for lr in by_kind(objs, "LimitRange"):
        for item in lr["spec"]["limits"]:
            for field in ("defaultRequest", "default", "max"):
                assert set(item[field]) == {"cpu", "memory"}
    assert by_kind(objs, "ResourceQuota") == []


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_manifests_validate_against_the_kubernetes_schema(stack):
    settings = {
        "systemPriorityClasses": {"enabled": True},
        "globalDefault": "low",
        "namespaces": {
            "mlrun": {
                "quota": {"requests.cpu": "40", "limits.memory": "200Gi", "pods": 100, "requests.nvidia.com/gpu": 4},
                "limits": {"min": {"cpu": "100m"}},
            },
            "team-a": {"labels": {"team": "a"}},
        },
    }
    objs = manifests(workloads_of(stack, settings))
    assert {o["kind"] for o in objs} == {"PriorityClass", "Namespace", "LimitRange", "ResourceQuota"}
    version = schema_version(parse(stack_config(stack)).kubernetes_version)
    assert version == "1.35.0"  # the shipped stacks pin 1.35, and kubernetes_validate ships it
    for obj in objs:
        kubernetes_validate.validate(obj, version, strict=True)


def test_namespaces_come_before_the_objects_in_them():
    objs = manifests(workloads_of("dev", {"namespaces": {"mlrun": {"quota": {"pods": 10}}}}))
    seen: set[str] = set()
    for obj in objs:
        if obj["kind"] == "Namespace":
            seen.add(obj["metadata"]["name"])
        elif "namespace" in obj["metadata"]:
            assert obj["metadata"]["namespace"] in seen


# --- overrides ----------------------------------------------------------------------------------


def test_global_default_marks_exactly_one_class():
    w = workloads_of("dev", {"globalDefault": "medium", "systemPriorityClasses": {"enabled": True}})
    marked = [p.name for p in w.priority_classes if p.global_default]
    assert marked == ["igz-workload-medium"]
    w = workloads_of("dev", {"globalDefault": "igz-workload-low"})
    assert [p.name for p in w.priority_classes if p.global_default] == ["igz-workload-low"]


def test_system_classes_outrank_user_classes_and_may_preempt():
    w = workloads_of("prod", {"systemPriorityClasses": {"enabled": True}})
    system = [p for p in w.priority_classes if p.tier.startswith("system-")]
    assert [p.name for p in system] == ["igz-system-medium", "igz-system-high", "igz-system-critical"]
    top_user = max(p.value for p in w.workload_classes)
    assert all(top_user < p.value <= 1_000_000_000 for p in system)


def test_renamed_classes_and_default_priority_follow_config():
    w = workloads_of(
        "dev", {"priorityClasses": {"medium": {"name": "normal", "value": 25_000}}, "defaultPriority": "high"}
    )
    assert [p.name for p in w.workload_classes] == ["igz-workload-low", "normal", "igz-workload-high"]
    assert w.default_priority_class == "igz-workload-high"


def test_prod_keeps_guaranteed_when_only_the_limit_is_set():
    w = workloads_of("prod", {"namespaces": {"mlrun": {"limits": {"default": {"cpu": "2", "memory": "8Gi"}}}}})
    lim = w.mlrun.limits
    assert (lim.default_request.cpu, lim.default_request.memory) == ("2", "8Gi")
    assert lim.qos == "Guaranteed"


def test_dev_partial_override_keeps_other_defaults():
    w = workloads_of("dev", {"namespaces": {"mlrun": {"limits": {"default": {"memory": "6Gi"}}}}})
    lim = w.mlrun.limits
    assert (lim.default.cpu, lim.default.memory, lim.default_request.memory) == ("2", "6Gi", "1Gi")


def test_a_default_namespace_can_be_disabled_and_others_added():
    w = workloads_of("dev", {"namespaces": {"jupyter": {"enabled": False}, "serving": {}}})
    assert [ns.name for ns in w.namespaces] == ["mlrun", "serving"]


def test_yaml_numbers_are_accepted_as_quantities():
    w = workloads_of(
        "dev", {"namespaces": {"mlrun": {"limits": {"defaultRequest": {"cpu": 0.5}, "default": {"cpu": 2}}}}}
    )
    assert (w.mlrun.limits.default_request.cpu, w.mlrun.limits.default.cpu) == ("0.5", "2")


def test_workloads_settings_arrive_as_json_text_from_pulumi():
    raw = stack_config("dev")
    raw["ml-platform-eks:workloads"] = '{"preemptionMode": "allow"}'
    assert build_workloads(parse(raw)).preemption_mode == "allow"


# --- rejected configs: key path, bad value, what is valid -------------------------------------------


@pytest.mark.parametrize(
    "settings, path, words",
    [
        (
            {"namespaces": {"mlrun": {"limits": {"default": {"cpu": "two"}}}}},
            "workloads.namespaces.mlrun.limits.default.cpu",
            ["'two'", "500m"],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"default": {"memory": "512m"}}}}},
            "workloads.namespaces.mlrun.limits.default.memory",
            ["512Mi"],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"defaultRequest": {"cpu": "0.0001"}}}}},
            "workloads.namespaces.mlrun.limits.defaultRequest.cpu",
            ["1m"],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"default": {"cpu": "250m"}}}}},
            "workloads.namespaces.mlrun.limits.default.cpu",
            ["'250m'", "defaultRequest '500m'", "<="],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"defaultRequest": {"memory": "16Gi"}}}}},
            "workloads.namespaces.mlrun.limits.defaultRequest.memory",
            ["'16Gi'", "default '4Gi'"],
        ),
        (
            {"namespaces": {"jupyter": {"limits": {"max": {"cpu": "1"}}}}},
            "workloads.namespaces.jupyter.limits.max.cpu",
            ["'1'", "below default"],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"min": {"memory": "2Gi"}}}}},
            "workloads.namespaces.mlrun.limits.min.memory",
            ["above defaultRequest"],
        ),
        (
            {"namespaces": {"mlrun": {"limits": {"default": {"nvidia.com/gpu": 1}}}}},
            "workloads.namespaces.mlrun.limits.default",
            ["GPU request must equal its limit"],
        ),
        (
            {"namespaces": {"mlrun": {"quota": {"requests.cpu": "100m"}}}},
            "workloads.namespaces.mlrun.quota.requests.cpu",
            ["below", "per-container default"],
        ),
        (
            {"namespaces": {"mlrun": {"quota": {"limits.nvidia.com/gpu": 2}}}},
            "workloads.namespaces.mlrun.quota",
            ["requests.nvidia.com/gpu"],
        ),
        ({"namespaces": {"mlrun": {"quota": {"gpus": 2}}}}, "workloads.namespaces.mlrun.quota", ["'gpus'"]),
        ({"namespaces": {"ML_Jobs": {}}}, "workloads.namespaces", ["'ML_Jobs'", "lowercase"]),
        ({"namespaces": {"kube-system": {}}}, "workloads.namespaces", ["belongs to Kubernetes"]),
        (
            {"priorityClasses": {"low": {"name": "system-low"}}},
            "workloads.priorityClasses.low.name",
            ["system- prefix"],
        ),
        ({"priorityClasses": {"high": {"name": "High_Jobs"}}}, "workloads.priorityClasses.high.name", ["RFC 1123"]),
        (
            {"priorityClasses": {"high": {"value": 2_000_000_000}}},
            "workloads.priorityClasses.high.value",
            ["1000000000"],
        ),
        (
            {"priorityClasses": {"low": {"value": 50_000}}},
            "workloads.priorityClasses.low.value",
            ["low < medium < high"],
        ),
        ({"priorityClasses": {"low": {"name": "igz-workload-high"}}}, "workloads.priorityClasses.low.name", ["unique"]),
        (
            {"systemPriorityClasses": {"enabled": True, "medium": {"value": 100}}},
            "workloads.systemPriorityClasses.medium.value",
            ["outrank"],
        ),
        ({"globalDefault": "urgent"}, "workloads.globalDefault", ["'urgent'", "low, medium, high"]),
        ({"preemptionMode": "sometimes"}, "workloads.preemptionMode", ["'prevent'", "'constrain'"]),
        ({"mlrunNamespace": "jobs"}, "workloads.mlrunNamespace", ["'jobs'", "mlrun"]),
        ({"namespaces": {"mlrun": {"limit": {}}}}, "workloads.namespaces.mlrun.limit", ["limits"]),
    ],
)
def test_invalid_workload_settings_name_the_key(settings, path, words):
    found = problems("dev", settings)
    hit = [p for p in found if p.startswith(f"ml-platform-eks:{path}:")]
    assert hit, found
    for word in words:
        assert word in hit[0], hit[0]


def test_jupyter_namespace_is_refused_in_prod():
    found = problems("prod", {"namespaces": {"jupyter": {}}})
    assert found[0].startswith("ml-platform-eks:workloads.namespaces.jupyter:")


def test_every_problem_is_reported_at_once():
    found = problems(
        "dev",
        {
            "priorityClasses": {"low": {"value": 90_000}},
            "namespaces": {"mlrun": {"limits": {"default": {"cpu": "100m"}}}},
        },
    )
    assert len(found) == 2


# --- property: every accepted config yields objects Kubernetes would accept ---------------------

_cpu = st.sampled_from(["100m", "250m", "500m", "1", "1500m", "2", "4", "8", 0.5, 3])
_mem = st.sampled_from(["256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi", "32Gi", "1G"])
_amounts = st.fixed_dictionaries({}, optional={"cpu": _cpu, "memory": _mem})
_limits = st.fixed_dictionaries({}, optional=dict.fromkeys(("min", "defaultRequest", "default", "max"), _amounts))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(env=st.sampled_from(["dev", "prod"]), limits=_limits)
def test_any_limits_are_refused_with_a_path_or_satisfy_kubernetes(env, limits):
    try:
        w = workloads_of(env, {"namespaces": {"mlrun": {"limits": limits}}})
    except ConfigError as err:
        assert all(p.path.startswith("ml-platform-eks:workloads.namespaces.mlrun.limits.") for p in err.problems)
        return
    lim = w.mlrun.limits
    for r in ("cpu", "memory"):
        chain = [getattr(v, r) for v in (lim.min, lim.default_request, lim.default, lim.max) if v is not None]
        values = [parse_quantity(x) for x in chain if x is not None]
        assert values == sorted(values)
    if env == "prod" and not ({"default", "defaultRequest"} <= set(limits)):
        assert lim.qos == "Guaranteed"
    (lr,) = by_kind(manifests(w), "LimitRange")[:1]
    kubernetes_validate.validate(lr, "1.33.0", strict=True)
