"""The placement matrix and the `placement` section of the plan."""

from __future__ import annotations

import dataclasses

from mlplatform.reports.placement import placement_matrix, placement_section
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.plan_document import dump
from mlplatform_core.placement.filters import place
from mlplatform_core.placement.invariants import check_layout
from mlplatform_core.placement.profiles import ProfileInputs, builtin_profiles
from tests.conftest import stack_config
from tests.core.placement.conftest import (
    shipped_stack,
)

# --- matrix and JSON -----------------------------------------------------------------------------


def test_matrix_gives_a_short_reason_in_every_refused_cell():
    _, layout = shipped_stack("dev")
    profiles, _ = builtin_profiles(layout)
    matrix = placement_matrix(layout, profiles)
    assert matrix.groups == ("initial", "jupyter", "jobs", "spot", "gpu")
    assert matrix.cell("mlrun-job-prevent", "spot").short == "taint lifecycle"
    assert matrix.cell("mlrun-job-constrain", "jobs").short == "affinity"
    assert matrix.cell("gpu-training-job", "jobs").short == "insufficient gpu"
    assert matrix.cell("mlrun-job-allow", "spot").schedulable
    for row in matrix.rows:
        for cell in row.cells:
            assert cell.schedulable or (cell.short and cell.reasons)


def test_placement_section_is_plain_json():
    import json

    cfg, layout = shipped_stack("dev")
    section = dump(placement_section(layout, ProfileInputs.for_stack(cfg, layout)))  # the typed model's JSON form
    assert json.loads(json.dumps(section)) == section
    assert section["ok"] is True and section["errors"] == []
    gpu = next(t for t in section["nodeTemplates"] if t["name"] == "gpu")
    assert gpu["allocatable"] == {"cpu": "3920m", "memory": "15391Mi", "nvidia.com/gpu": 1}  # g5.xlarge
    constrain = next(p for p in section["profiles"] if p["name"] == "mlrun-job-constrain")
    assert constrain["reaches"] == ["spot"]


def test_profiles_are_pods_as_the_scheduler_sees_them():
    # The GPU job gets its GPU taint toleration from admission, not from the profile.
    _, layout = shipped_stack("dev")
    profiles, _ = builtin_profiles(layout)
    gpu = next(p for p in profiles if p.name == "gpu-training-job")
    assert "tolerations" not in gpu.spec or all(t.get("key") != "nvidia.com/gpu" for t in gpu.spec["tolerations"])
    assert place(gpu.pod(), layout).reachable == ("gpu",)


def test_unknown_instance_types_are_reported_in_the_notes():
    raw = stack_config("dev")
    # A type the catalog knows only by its network limits (no vCPU/memory data upstream). The settings refuse it
    # in every group (its accelerators are unknown too), so the proof meets it only in a layout built otherwise.
    raw["ml-platform-eks:additionalNodeGroups"] = [{"name": "mem", "instanceTypes": ["m5.xlarge"]}]
    layout = build_layout(parse(raw), "dev")
    mem = dataclasses.replace(layout.group("mem"), instance_types=("u-6tb1.metal",))
    layout = dataclasses.replace(layout, groups=tuple(mem if g.name == "mem" else g for g in layout.groups))
    report = check_layout(layout)
    assert (
        "group mem: instance type(s) u-6tb1.metal described only by network limits in the instance catalog; "
        "resource fit is not checked for them" in report.notes
    )
