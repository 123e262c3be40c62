"""bench/run's generated stacks stay valid as the config model evolves (the benchmark would stop otherwise)."""

from __future__ import annotations

import importlib.machinery
import importlib.util

from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.workloads import build_workloads
from mlplatform_core.placement.invariants import stack_report
from tests.conftest import ROOT

BENCH = ROOT / "bench" / "run"


def load_bench():
    loader = importlib.machinery.SourceFileLoader("bench_run", str(BENCH))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("bench_run", loader))
    loader.exec_module(module)
    return module


def test_generated_stacks_are_valid_and_keep_the_placement_invariants():
    bench = load_bench()
    raw = bench.generated_stack(20, 50)["config"]
    cfg = parse(raw)
    layout = build_layout(cfg, "bench")
    assert (
        len(layout.groups)
        == len(
            build_layout(parse({k: v for k, v in raw.items() if not k.endswith("additionalNodeGroups")}), "b").groups
        )
        + 20
    )
    workloads = build_workloads(cfg)
    assert {f"team-{i:02d}" for i in range(50)} <= {ns.name for ns in workloads.namespaces}
    report = stack_report(cfg, layout)
    assert report.ok, [str(f) for f in report.errors]
