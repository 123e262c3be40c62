"""A migrating stack in the plan's placement and GPU capacity sections (tests/core/placement/
test_migration_placement.py: the placement proof alone)."""

from __future__ import annotations

from types import SimpleNamespace

from mlplatform.reports.gpu_capacity import gpu_capacity_section
from mlplatform.reports.placement import placement_section
from mlplatform_core.model.cost.capacity import stack_capacity
from mlplatform_core.model.plan_document import dump
from tests.core.placement.test_automode_placement import stack as automode_stack
from tests.core.placement.test_migration_placement import from_karpenter, from_node_groups


def test_cost_and_the_plan_matrix_see_every_provisioner_of_a_migrating_stack():
    _, layout, report = from_karpenter()
    kinds = {(c.name, c.kind) for c in stack_capacity(layout)}
    assert {("initial", "node group"), ("jobs", "node pool"), ("jobs", "Karpenter pool (kept)")} <= kinds
    section = dump(placement_section(layout, report=report))  # its JSON form
    assert "gpu (kept Karpenter pool)" in section["matrix"]["groups"]
    templates = {t["name"]: t for t in section["nodeTemplates"]}
    assert templates["gpu (kept Karpenter pool)"]["kept"] and templates["gpu (kept Karpenter pool)"]["source"] == "gpu"
    assert section["ok"]


def test_the_gpu_capacity_report_lists_the_kept_gpu_groups_and_pools_by_the_proofs_names():
    """Kept GPU node groups and Karpenter pools still launch GPU nodes while a stack migrates: the plan's GPU
    capacity lists them as the proof names them (no scale-from-zero tags: no autoscaler reads them)."""

    def capacity(cfg, layout):
        return {g["name"]: g for g in dump(gpu_capacity_section(SimpleNamespace(layout=layout, config=cfg)))["groups"]}

    groups = capacity(*from_node_groups()[:2])
    assert set(groups) == {"gpu", "gpu (kept node group)"}
    assert groups["gpu"]["provisioner"] == "autoMode" and groups["gpu (kept node group)"]["provisioner"] == "nodeGroups"
    assert "scaleFromZero" not in groups["gpu (kept node group)"]
    assert groups["gpu (kept node group)"]["gpuResources"]["resource"] == "nvidia.com/gpu"
    groups = capacity(*from_karpenter()[:2])
    assert (
        set(groups) == {"gpu", "gpu (kept Karpenter pool)"}
        and groups["gpu (kept Karpenter pool)"]["provisioner"] == "karpenter"
    )
    cfg, layout = automode_stack("dev")
    assert capacity(cfg, layout)["gpu"]["scaleFromZero"] == {"nvidia.com/gpu": 1}  # read by the autoscaler
