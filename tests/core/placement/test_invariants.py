"""MLRun's preemption enrichment, the built-in profiles and the placement invariants of the shipped stacks."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import Layout, build_layout
from mlplatform_core.model.scheduling import Toleration
from mlplatform_core.placement.filters import place
from mlplatform_core.placement.invariants import check_invariants, check_layout
from mlplatform_core.placement.mlrun_preemption import MLRunPreemption, enrich_preemption
from mlplatform_core.placement.pods import Pod
from mlplatform_core.placement.profiles import ProfileInputs, builtin_profiles
from tests.conftest import stack_config
from tests.core.placement.conftest import (
    LIFECYCLE,
    REQUIRED,
    SETTINGS,
    SPOT_TOLERATION,
    reach,
    shipped_stack,
    stack_report,
)

# --- the shipped stacks --------------------------------------------------------------------------


def test_dev_stack_keeps_every_promise():
    report = stack_report("dev")
    assert report.errors == ()
    assert reach(report, "mlrun-job-constrain") == ("spot",)
    assert "spot" in reach(report, "mlrun-job-allow") and "jobs" in reach(report, "mlrun-job-allow")
    # The jupyter group is dedicated: jobs and functions stay off the notebooks' nodes.
    for profile in ("mlrun-job-prevent", "mlrun-job-none", "nuclio-function"):
        assert set(reach(report, profile)) == {"jobs"}
    assert reach(report, "jupyter-server") == ("jupyter",)
    assert reach(report, "gpu-training-job") == ("gpu",)
    assert reach(report, "polyaxon-spot-experiment") == ("spot",)
    assert reach(report, "core-platform-service") == ("initial",)
    assert reach(report, "nvidia-device-plugin") == ("gpu",)


def test_prod_stack_keeps_every_promise_and_says_what_it_cannot_host():
    report = stack_report("prod")
    assert report.errors == ()
    names = [p.name for p, _ in report.placements]
    assert "jupyter-server" not in names and "polyaxon-spot-experiment" not in names
    assert any("no Jupyter group" in n for n in report.notes)
    # No spot group: MLRun gets empty settings, so constrain is a no-op and the note says so.
    assert reach(report, "mlrun-job-constrain") == ("workload",)
    assert any("constrain-mode jobs run on on-demand nodes" in n for n in report.notes)
    assert reach(report, "gpu-training-job") == ("gpu",)


def test_prod_with_spot_enabled_gets_the_full_spot_promises():
    raw = stack_config("prod")
    raw["ml-platform-eks:nodeGroups"]["spot"] = {"enabled": True}
    cfg = parse(raw)
    layout = build_layout(cfg, "prod")
    report = check_layout(layout, ProfileInputs.for_stack(cfg, layout))
    assert report.errors == ()
    assert reach(report, "mlrun-job-constrain") == ("spot",)
    assert set(reach(report, "mlrun-job-allow")) == {"workload", "spot"}


def test_a_layout_whose_only_spot_group_is_a_gpu_group_keeps_cpu_jobs_off_its_gpus():
    # The cost layout "GPU on spot, CPU on demand": spot is a GPU group's trait here, never a CPU job's way in.
    raw = stack_config("prod")
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "gpu-spot", "gpu": True, "capacityType": "SPOT", "instanceTypes": ["g5.2xlarge"], "maxSize": 4}
    ]
    cfg = parse(raw)
    layout = build_layout(cfg, "prod")
    report = check_layout(layout, ProfileInputs.for_stack(cfg, layout))
    jobs = [(p, placed) for p, placed in report.placements if p.name.startswith(("mlrun-job", "nuclio"))]
    assert len(jobs) >= 4
    for profile, placement in jobs:  # node agents (DaemonSets) run everywhere, GPU nodes included
        assert "gpu-spot" not in placement.reachable, profile.name
    assert "polyaxon-spot-experiment" not in [p.name for p, _ in report.placements]
    assert any("only GPU spot groups" in n for n in report.notes)
    # What remains is true of this layout: constrain-mode CPU jobs have no spot node to run on.
    assert errors_of(report) == {
        "mlrun-job-constrain": [
            "reaches no node group; its pods would stay Pending",
            "must run on spot nodes but reaches no spot group",
        ]
    }


# --- breaking the layout breaks the invariants ---------------------------------------------------


def with_group(layout: Layout, name: str, **changes) -> Layout:
    groups = tuple(dataclasses.replace(g, **changes) if g.name == name else g for g in layout.groups)
    return dataclasses.replace(layout, groups=groups)


def errors_of(report) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in report.errors:
        out.setdefault(f.profile, []).append(f.message)
    return out


def test_removing_the_spot_taint_sends_prevent_and_none_jobs_to_spot():
    cfg, layout = shipped_stack("dev")
    inputs = ProfileInputs.for_stack(cfg, layout)  # what MLRun was configured with
    broken = with_group(layout, "spot", taints=())  # ... and nodes that lost their taint
    errors = errors_of(check_layout(broken, inputs))
    for profile in ("mlrun-job-prevent", "mlrun-job-none", "nuclio-function"):
        assert any("reaches spot group(s) spot" in m for m in errors[profile]), errors


def test_without_a_spot_taint_mlrun_falls_back_to_anti_affinity_but_none_mode_lands_on_spot():
    _, layout = shipped_stack("dev")
    broken = with_group(layout, "spot", taints=())
    report = check_layout(broken)  # settings derived from the broken layout: no tolerations to export
    errors = errors_of(report)
    assert "mlrun-job-prevent" not in errors  # MLRun's NotIn term keeps prevent off spot
    assert any("preemption mode none reaches spot" in m for m in errors["mlrun-job-none"])


def test_removing_the_critical_addons_taint_opens_the_initial_group_to_users():
    _, layout = shipped_stack("dev")
    broken = with_group(layout, "initial", taints=())
    errors = errors_of(check_layout(broken))
    assert any("reaches the initial group" in m for m in errors["mlrun-job-prevent"])
    assert "core-platform-service" not in errors


def test_removing_the_gpu_taint_lets_cpu_jobs_fill_gpu_nodes():
    _, layout = shipped_stack("prod")
    errors = errors_of(check_layout(with_group(layout, "gpu", taints=())))
    assert any("CPU-only workload reaches GPU group(s) gpu" in m for m in errors["mlrun-job-prevent"])


def test_a_gpu_job_reaching_a_non_gpu_group_is_an_error():
    _, layout = shipped_stack("prod")
    broken = with_group(layout, "workload", instance_types=("g5.2xlarge",))  # GPUs without the GPU flag/taint
    errors = errors_of(check_layout(broken))
    assert any("GPU job reaches non-GPU group(s) workload" in m for m in errors["gpu-training-job"])


def test_tolerations_that_miss_the_spot_taint_break_allow_and_constrain():
    cfg, layout = shipped_stack("dev")
    inputs = ProfileInputs.for_stack(cfg, layout)
    wrong = {**SPOT_TOLERATION, "value": "spot"}
    inputs = dataclasses.replace(inputs, mlrun=dataclasses.replace(inputs.mlrun, tolerations=(wrong,)))
    errors = errors_of(check_layout(layout, inputs))
    assert "mlrun-job-allow" in errors and any("reaches no spot group" in m for m in errors["mlrun-job-allow"])
    assert any("reaches no node group" in m for m in errors["mlrun-job-constrain"])


def test_mlrun_settings_naming_spot_nodes_the_layout_lacks_leave_constrain_nowhere():
    cfg, layout = shipped_stack("prod")
    inputs = dataclasses.replace(ProfileInputs.for_stack(cfg, layout), mlrun=SETTINGS)
    errors = errors_of(check_layout(layout, inputs))
    assert errors["mlrun-job-constrain"][0] == "reaches no node group; its pods would stay Pending"


def test_core_services_must_reach_exactly_the_initial_group():
    _, layout = shipped_stack("dev")
    profiles, notes = builtin_profiles(layout)
    core = next(p for p in profiles if p.name == "core-platform-service")
    loose = dataclasses.replace(core, spec={k: v for k, v in core.spec.items() if k != "nodeSelector"})
    report = check_invariants(layout, [loose], MLRunPreemption.from_layout(layout), notes)
    assert [f.message for f in report.errors] == ["must stay off jobs but can land there"]


# --- properties: whatever the user sets, the modes keep their promise on the dev layout ------------

_keys = st.sampled_from([LIFECYCLE, "mlplatform.io/node-role", "CriticalAddonsOnly", "team"])
_values = st.sampled_from(["preemptible", "non-preemptible", "spot", "jobs", "true", "a"])
_user_tolerations = st.lists(
    st.fixed_dictionaries(
        {
            "key": _keys,
            "operator": st.sampled_from(["Equal", "Exists"]),
            "value": _values,
            "effect": st.sampled_from(["NoSchedule", ""]),
        }
    ).map(lambda t: {k: v for k, v in t.items() if not (k == "value" and t["operator"] == "Exists")}),
    max_size=3,
)
_user_expressions = st.lists(
    st.fixed_dictionaries(
        {
            "key": _keys,
            "operator": st.sampled_from(["In", "NotIn"]),
            "values": st.lists(_values, min_size=1, max_size=2),
        }
    ),
    max_size=3,
)
_user_specs = st.builds(
    lambda tols, exprs, selector: {
        "containers": [{"name": "base"}],
        **({"tolerations": tols} if tols else {}),
        **(
            {"affinity": {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}}}
            if exprs
            else {}
        ),
        **({"nodeSelector": selector} if selector else {}),
    },
    _user_tolerations,
    _user_expressions,
    st.dictionaries(_keys, _values, max_size=2),
)


def _dev_reach(spec, mode) -> set[str]:
    cfg, layout = shipped_stack("dev")
    mlrun = ProfileInputs.for_stack(cfg, layout).mlrun
    return set(place(Pod.from_spec(enrich_preemption(spec, mode, mlrun)), layout).reachable)


@settings(max_examples=200, deadline=None)
@given(_user_specs)
def test_constrain_never_leaves_spot_whatever_the_user_set(spec):
    assert _dev_reach(spec, "constrain") <= {"spot"}


@settings(max_examples=200, deadline=None)
@given(_user_specs)
def test_prevent_keeps_off_spot_unless_the_user_tolerates_the_taint_their_own_way(spec):
    # MLRun only prunes tolerations EQUAL to its own; a user's `Exists` on the lifecycle key survives and
    # opens spot nodes. That is MLRun's behaviour, reproduced here, not hidden.
    _, layout = shipped_stack("dev")
    spot_taint = layout.group("spot").taints[0]
    own_way = any(
        Toleration.from_dict(t).tolerates(spot_taint) and t != SPOT_TOLERATION for t in spec.get("tolerations", [])
    )
    if not own_way:
        assert "spot" not in _dev_reach(spec, "prevent")


def test_a_default_function_node_selector_pins_jobs_but_starves_constrain():
    # Pinning MLRun functions to the jobs group with MLRUN_DEFAULT_FUNCTION_NODE_SELECTOR looks tidy, but the
    # selector is ANDed with constrain's spot affinity: constrain-mode jobs could then run nowhere.
    cfg, layout = shipped_stack("dev")
    inputs = dataclasses.replace(
        ProfileInputs.for_stack(cfg, layout), mlrun_node_selector={"mlplatform.io/node-role": "jobs", "unset": ""}
    )
    report = check_layout(layout, inputs)
    assert reach(report, "mlrun-job-prevent") == ("jobs",)
    assert errors_of(report)["mlrun-job-constrain"] == [
        "reaches no node group; its pods would stay Pending",
        "must run on spot nodes but reaches no spot group",
    ]
    prevent = next(p for p, _ in report.placements if p.name == "mlrun-job-prevent")
    assert prevent.spec["nodeSelector"] == {"mlplatform.io/node-role": "jobs"}  # empty values are dropped


def test_the_plan_warns_when_two_groups_look_the_same_to_every_workload():
    raw = stack_config("dev")
    same = {"role": "batch", "instanceTypes": ["c5.2xlarge"], "labels": {"team": "a"}}
    raw["ml-platform-eks:additionalNodeGroups"] = [{"name": "batch-a", **same}, {"name": "batch-b", **same}]
    cfg = parse(raw)
    layout = build_layout(cfg, "dev")
    notes = check_layout(layout, ProfileInputs.for_stack(cfg, layout)).notes
    warnings = [n for n in notes if n.startswith("warning: node groups batch-a, batch-b look the same")]
    assert len(warnings) == 1 and "mlplatform.io/node-group=<group>" in warnings[0]
    # A label of its own tells them apart: no warning.
    raw["ml-platform-eks:additionalNodeGroups"][1]["labels"] = {"team": "b"}
    cfg = parse(raw)
    layout = build_layout(cfg, "dev")
    assert not any("look the same" in n for n in check_layout(layout, ProfileInputs.for_stack(cfg, layout)).notes)


def test_the_shipped_stacks_have_no_look_alike_groups():
    for name in ("dev", "prod"):
        assert not any("look the same" in n for n in stack_report(name).notes)
