"""The scheduler's filters, rule by rule (domain-facts section 3), against node templates of real layouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlplatform_core.model.scheduling import EKS_CAPACITY_LABEL, EKS_NODEGROUP_LABEL, Taint, Toleration
from mlplatform_core.placement.filters import place, place_on
from mlplatform_core.placement.pods import Pod, Requirement
from mlplatform_core.placement.templates import ARCH_LABEL, INSTANCE_TYPE_LABEL, OS_LABEL
from tests.core.placement.conftest import container, expr, group_with, pod, required, shipped_layout

# --- matchExpressions operators --------------------------------------------------------------------

NODE = {"lifecycle": "preemptible", "cores": "3", "gen": "v2", "blank": ""}


@pytest.mark.parametrize(
    "key, operator, values, expected",
    [
        ("lifecycle", "In", ("preemptible", "x"), True),
        ("lifecycle", "In", ("non-preemptible",), False),
        ("missing", "In", ("x",), False),
        ("lifecycle", "In", (), False),  # rejected by the API server; matches nothing here
        ("lifecycle", "NotIn", ("preemptible",), False),
        ("lifecycle", "NotIn", ("non-preemptible",), True),
        ("missing", "NotIn", ("x",), True),  # NotIn matches a node without the key
        ("lifecycle", "Exists", (), True),
        ("blank", "Exists", (), True),  # an empty value still exists
        ("missing", "Exists", (), False),
        ("lifecycle", "DoesNotExist", (), False),
        ("missing", "DoesNotExist", (), True),
        ("cores", "Gt", ("2",), True),
        ("cores", "Gt", ("3",), False),
        ("cores", "Lt", ("4",), True),
        ("cores", "Lt", ("+4",), True),  # ParseInt accepts a sign
        ("cores", "Lt", ("3",), False),
        ("cores", "Gt", ("-1",), True),
        ("missing", "Gt", ("1",), False),
        ("gen", "Gt", ("1",), False),  # non-integer node label
        ("cores", "Gt", ("two",), False),  # non-integer value
        ("cores", "Gt", ("1.5",), False),  # floats are not integers
        ("cores", "Gt", ("1", "2"), False),  # Gt/Lt take exactly one value
        ("blank", "Lt", ("1",), False),
        ("lifecycle", "in", ("preemptible",), False),  # operators are case-sensitive
    ],
)
def test_requirement_operators(key, operator, values, expected):
    assert Requirement(key, operator, values).matches(NODE) is expected


# --- taints and tolerations ------------------------------------------------------------------------

TAINT = Taint("k", "v", "NoSchedule")


@pytest.mark.parametrize(
    "toleration, expected",
    [
        ({"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}, True),
        ({"key": "k", "value": "v", "effect": "NoSchedule"}, True),  # empty operator means Equal
        ({"key": "k", "operator": "Equal", "value": "w", "effect": "NoSchedule"}, False),
        ({"key": "k", "operator": "Exists", "effect": "NoSchedule"}, True),
        ({"key": "k", "operator": "Equal", "value": "v"}, True),  # empty effect tolerates every effect
        ({"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute"}, False),
        ({"key": "k", "operator": "Exists", "effect": "PreferNoSchedule"}, False),
        ({"operator": "Exists"}, True),  # empty key with Exists tolerates every taint
        ({"operator": "Exists", "effect": "NoExecute"}, False),  # ... of the given effect only
        ({"operator": "Equal", "value": "v"}, False),  # empty key needs Exists
        ({"key": "other", "operator": "Exists"}, False),
        ({"key": "k", "operator": "exists"}, False),  # unknown operator tolerates nothing
    ],
)
def test_toleration_matching(toleration, expected):
    p = pod(tolerations=[toleration])
    assert p.tolerations[0].tolerates(TAINT) is expected
    t = group_with(taints=(TAINT,))
    assert place_on(p, t).schedulable is expected


@pytest.mark.parametrize("effect, refuses", [("NoSchedule", True), ("NoExecute", True), ("PreferNoSchedule", False)])
def test_only_noschedule_and_noexecute_refuse(effect, refuses):
    t = group_with(taints=(Taint("dedicated", "ml", effect),))
    result = place_on(pod(), t)
    assert result.schedulable is not refuses
    if refuses:
        assert [r.message for r in result.reasons] == [
            f"node(s) had untolerated taint {{dedicated: ml}} (effect {effect})"
        ]
    else:  # PreferNoSchedule: still schedulable, ranked lower
        assert result.prefer_not == (Taint("dedicated", "ml", effect),)


def test_prefer_no_schedule_lowers_the_rank_only():
    plain = group_with("jobs")
    tainted = group_with("jupyter", taints=(Taint("busy", "", "PreferNoSchedule"),))
    result = place(pod(), [tainted, plain])
    assert result.reachable == ("jupyter", "jobs")
    assert result.ranking == ("jobs", "jupyter")


def test_every_untolerated_taint_is_reported():
    t = group_with(taints=(Taint("a", "1", "NoSchedule"), Taint("b", "", "NoExecute"), Taint("c", "3", "NoSchedule")))
    result = place_on(pod(tolerations=[{"key": "c", "operator": "Exists"}]), t)
    assert [r.message for r in result.reasons] == [
        "node(s) had untolerated taint {a: 1} (effect NoSchedule)",
        "node(s) had untolerated taint {b: } (effect NoExecute)",
    ]


# --- nodeSelector and required affinity ------------------------------------------------------------

JOBS_LABELS = {"app.iguazio.com/lifecycle": "non-preemptible", "mlplatform.io/node-role": "jobs"}


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"nodeSelector": {"mlplatform.io/node-role": "jobs"}}, True),
        ({"nodeSelector": {"mlplatform.io/node-role": "jobs", "app.iguazio.com/lifecycle": "non-preemptible"}}, True),
        ({"nodeSelector": {"mlplatform.io/node-role": "jobs", "app.iguazio.com/lifecycle": "preemptible"}}, False),
        ({"nodeSelector": {"missing": ""}}, False),  # a selector needs the label, even with an empty value
        ({"nodeSelector": {}}, True),
        # terms are ORed
        (
            {
                "affinity": required(
                    {"matchExpressions": [expr("mlplatform.io/node-role", "In", "spot")]},
                    {"matchExpressions": [expr("mlplatform.io/node-role", "In", "jobs")]},
                )
            },
            True,
        ),
        # expressions in a term are ANDed
        (
            {
                "affinity": required(
                    {
                        "matchExpressions": [
                            expr("mlplatform.io/node-role", "In", "jobs"),
                            expr("app.iguazio.com/lifecycle", "In", "preemptible"),
                        ]
                    }
                )
            },
            False,
        ),
        # an empty term matches nothing, alone or next to a failing term; a matching term still wins
        ({"affinity": required({})}, False),
        ({"affinity": required({"matchExpressions": []})}, False),
        ({"affinity": required({}, {"matchExpressions": [expr("mlplatform.io/node-role", "In", "spot")]})}, False),
        ({"affinity": required({}, {"matchExpressions": [expr("mlplatform.io/node-role", "Exists")]})}, True),
        ({"affinity": required()}, False),  # no terms at all
        (
            {"affinity": required({"matchExpressions": [expr("app.iguazio.com/lifecycle", "NotIn", "preemptible")]})},
            True,
        ),
        ({"affinity": required({"matchExpressions": [expr("not-on-nodes", "NotIn", "x")]})}, True),
        ({"affinity": required({"matchExpressions": [expr("not-on-nodes", "DoesNotExist")]})}, True),
        ({"affinity": required({"matchExpressions": [expr(EKS_NODEGROUP_LABEL, "In", "jobs")]})}, True),
        ({"affinity": required({"matchExpressions": [expr(EKS_CAPACITY_LABEL, "In", "SPOT")]})}, False),
        # nodeSelector and affinity must both hold
        (
            {
                "nodeSelector": {"mlplatform.io/node-role": "jobs"},
                "affinity": required({"matchExpressions": [expr("mlplatform.io/node-role", "In", "spot")]}),
            },
            False,
        ),
        ({"nodeSelector": {ARCH_LABEL: "arm64"}}, False),
        ({"nodeSelector": {OS_LABEL: "linux", INSTANCE_TYPE_LABEL: "m5.2xlarge"}}, True),
    ],
)
def test_selector_and_required_affinity(spec, expected):
    result = place_on(pod(**spec), group_with("jobs"))
    assert result.schedulable is expected
    if not expected:
        assert [r.kind for r in result.reasons] == ["affinity"]
        assert result.reasons[0].message.startswith("node(s) didn't match Pod's node affinity/selector: ")


def test_affinity_reason_names_the_failing_requirement():
    spec = {"affinity": required({"matchExpressions": [expr("app.iguazio.com/lifecycle", "In", "preemptible")]})}
    (reason,) = place_on(pod(**spec), group_with("jobs")).reasons
    assert reason.message == (
        "node(s) didn't match Pod's node affinity/selector: required node affinity needs "
        "app.iguazio.com/lifecycle In (preemptible), the nodes have app.iguazio.com/lifecycle=non-preemptible"
    )
    (reason,) = place_on(pod(nodeSelector={"gpu": "yes"}), group_with("jobs")).reasons
    assert "nodeSelector needs gpu=yes, the nodes have no gpu label" in reason.message


def test_preferred_affinity_only_ranks():
    prefer_spot = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 40, "preference": {"matchExpressions": [expr("mlplatform.io/node-role", "In", "jobs")]}},
                {"weight": 100, "preference": {"matchExpressions": [expr("nowhere", "Exists")]}},
                {"weight": 7, "preference": {}},  # an empty preference matches nothing
            ]
        }
    }
    result = place(pod(affinity=prefer_spot), [group_with("jupyter", taints=()), group_with("jobs")])
    assert result.reachable == ("jupyter", "jobs")  # a preference never refuses
    assert result.group("jobs").score == 40 and result.group("jupyter").score == 0
    assert result.ranking == ("jobs", "jupyter")


MIXED_GPU = ("g5.xlarge", "g5.2xlarge")  # a mixed group (the layout refuses one that autoscales; a template may be)


def test_instance_type_selection_narrows_a_mixed_group():
    gpu = group_with("gpu", instance_types=MIXED_GPU)
    result = place_on(
        pod(nodeSelector={INSTANCE_TYPE_LABEL: "g5.2xlarge"}, containers=[container(limits={"nvidia.com/gpu": 1})]), gpu
    )
    assert result.schedulable and result.instance_types == ("g5.2xlarge",)


def test_per_node_labels_are_assumed_except_their_absence():
    zone = {"affinity": required({"matchExpressions": [expr("topology.kubernetes.io/zone", "In", "us-west-2a")]})}
    result = place_on(pod(**zone), group_with("jobs"))
    assert result.schedulable and any("depends on the node" in n for n in result.notes)
    no_host = {"affinity": required({"matchExpressions": [expr("kubernetes.io/hostname", "DoesNotExist")]})}
    assert not place_on(pod(**no_host), group_with("jobs")).schedulable


# --- resources -------------------------------------------------------------------------------------


def test_more_cpu_than_any_instance_offers_cannot_land():
    result = place_on(pod(containers=[container(requests={"cpu": "8"})]), group_with("jobs"))  # m5.2xlarge: 7910m
    assert not result.schedulable
    assert [r.message for r in result.reasons] == ["Insufficient cpu: the pod requests 8, m5.2xlarge allocates 7910m"]
    assert place_on(pod(containers=[container(requests={"cpu": "7910m"})]), group_with("jobs")).schedulable


def test_memory_and_cpu_shortfalls_are_all_reported():
    result = place_on(pod(containers=[container(requests={"cpu": "64", "memory": "1Ti"})]), group_with("jobs"))
    assert [r.short for r in result.reasons] == ["insufficient cpu", "insufficient memory"]


def test_a_pod_fits_a_group_when_one_of_its_types_fits():
    # g5.xlarge (4 vCPU) and g5.2xlarge (8 vCPU)
    p = pod(containers=[container(requests={"cpu": "6"}, limits={"nvidia.com/gpu": 1})])
    result = place_on(p, group_with("gpu", instance_types=MIXED_GPU))
    assert result.schedulable and result.instance_types == ("g5.2xlarge",)


def test_gpu_requests_get_the_extended_resource_toleration():
    p = pod(containers=[container(limits={"nvidia.com/gpu": 1})])
    assert p.requests["nvidia.com/gpu"] == 1  # limits default the request
    assert Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule") in p.effective_tolerations
    assert place_on(p, group_with("gpu")).schedulable
    # The same pod without the GPU request is kept off by the GPU taint.
    assert not place_on(pod(), group_with("gpu")).schedulable


def test_more_gpus_than_the_largest_type_has():
    two_gpus = pod(containers=[container(limits={"nvidia.com/gpu": 2})])
    result = place_on(two_gpus, group_with("gpu", instance_types=MIXED_GPU))
    assert [r.message for r in result.reasons] == [
        "Insufficient nvidia.com/gpu: the pod requests 2, g5.2xlarge allocates 1"
    ]


def test_gpu_pods_are_refused_by_cpu_groups_for_want_of_gpus():
    result = place_on(pod(containers=[container(limits={"nvidia.com/gpu": 1})]), group_with("jobs"))
    assert [r.short for r in result.reasons] == ["insufficient gpu"]


def test_other_extended_resources_are_checked_too():
    p = pod(containers=[container(limits={"aws.amazon.com/neuron": 1})])
    assert [r.message.split(":")[0] for r in place_on(p, group_with("jobs")).reasons] == [
        "Insufficient aws.amazon.com/neuron"
    ]


def test_pod_requests_follow_the_scheduler():
    spec = {
        "containers": [container(requests={"cpu": "1", "memory": "1Gi"}), container(limits={"cpu": "500m"})],
        "initContainers": [
            {"name": "setup", "resources": {"requests": {"cpu": "3"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m"}}},
            {"name": "late", "resources": {"requests": {"memory": "3Gi"}}},
        ],
        "overhead": {"cpu": "100m"},
    }
    p = Pod.from_spec(spec)
    # cpu: max(1 + 0.5 + sidecar 0.25, init 3) + overhead 0.1; memory: max(1Gi, 3Gi started after the sidecar)
    assert p.requests["cpu"] == 3100
    assert p.requests["memory"] == 3 * 2**30


def test_unknown_instance_types_are_reported_not_guessed():
    t = group_with("jobs", instance_types=("m5.2xlarge", "x9z.huge"))
    assert t.unknown_instance_types == ("x9z.huge",)
    result = place_on(pod(containers=[container(requests={"cpu": "30"})]), t)
    assert result.schedulable and result.instance_types == ("x9z.huge",)
    assert any("x9z.huge described only by network limits in the instance catalog" in n for n in result.notes)
    only_unknown = group_with("jobs", instance_types=("x9z.huge",))
    assert only_unknown.allocatable is None and only_unknown.to_dict()["allocatable"] is None


# --- properties ------------------------------------------------------------------------------------

label_keys = st.sampled_from(["a", "b", "app.iguazio.com/lifecycle", "mlplatform.io/node-role"])
label_values = st.sampled_from(["", "1", "7", "x", "preemptible", "jobs", "spot"])
labels = st.dictionaries(label_keys, label_values, max_size=4)


@given(labels, label_keys, st.lists(label_values, min_size=1, max_size=3))
def test_in_and_notin_are_complements(node, key, values):
    assert Requirement(key, "In", tuple(values)).matches(node) != Requirement(key, "NotIn", tuple(values)).matches(node)
    assert Requirement(key, "Exists").matches(node) != Requirement(key, "DoesNotExist").matches(node)


@given(st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6))
def test_gt_and_lt_compare_integers(node_value, bound):
    node = {"n": str(node_value)}
    assert Requirement("n", "Gt", (str(bound),)).matches(node) is (node_value > bound)
    assert Requirement("n", "Lt", (str(bound),)).matches(node) is (node_value < bound)


tolerations = st.lists(
    st.fixed_dictionaries(
        {
            "key": st.sampled_from(["", "CriticalAddonsOnly", "app.iguazio.com/lifecycle", "nvidia.com/gpu"]),
            "operator": st.sampled_from(["Exists", "Equal"]),
            "value": st.sampled_from(["", "true", "preemptible"]),
            "effect": st.sampled_from(["", "NoSchedule", "NoExecute"]),
        }
    ).filter(  # tolerations the API server accepts (others reject the pod, tested in test_admission.py)
        lambda t: not (t["operator"] == "Exists" and t["value"]) and (t["key"] or t["operator"] == "Exists")
    ),
    max_size=3,
)
expressions = st.lists(
    st.builds(expr, label_keys, st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]), label_values), max_size=2
)


@settings(max_examples=150, deadline=None)
@given(tolerations, tolerations, st.dictionaries(label_keys, label_values, max_size=2), expressions)
def test_more_tolerations_never_lose_a_group_and_more_constraints_never_gain_one(tols, more, selector, exprs):
    layout = shipped_layout("dev")
    base = set(place(pod(tolerations=tols), layout).reachable)
    assert base <= set(place(pod(tolerations=tols + more), layout).reachable)
    constrained = pod(
        tolerations=tols, nodeSelector=selector, affinity=required({"matchExpressions": exprs}) if exprs else None
    )
    assert set(place(constrained, layout).reachable) <= base


@settings(max_examples=100, deadline=None)
@given(tolerations)
def test_a_group_is_reachable_exactly_when_no_reason_refuses_it(tols):
    for g in place(pod(tolerations=tols), shipped_layout("dev")).groups:
        assert g.schedulable is (not g.reasons)


def test_selecting_the_eks_nodegroup_label_warns_about_pulumi_names():
    result = place_on(pod(nodeSelector={EKS_NODEGROUP_LABEL: "jobs"}), group_with("jobs"))
    assert result.schedulable
    assert any("select mlplatform.io/node-role instead" in n for n in result.notes)
