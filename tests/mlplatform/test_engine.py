"""The offline engine: recordings in program order whatever the speed measures do, several runs per process."""

from __future__ import annotations

import copy
import gc

import pulumi
import pytest

from mlplatform.engine import collector_and_pump, run_program, run_stack
from mlplatform.engine import run as engine_run
from mlplatform_core.model.deployment import KUBERNETES_DIRECTORY, KUBERNETES_PROJECT, cluster_stack_reference
from tests.conftest import ROOT, stack_config
from tests.runs import shipped_run


def recording(run) -> list[dict]:
    return [r.to_dict() for r in run.resources]


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_recording_does_not_depend_on_the_pump(stack):
    # The pump changes when registrations finish, never what is recorded or in which order.
    with_pump = shipped_run(stack)
    without = run_stack(stack, stack_config(stack), pump=False)
    assert recording(without) == recording(with_pump)
    assert without.exports == with_pump.exports


def test_resources_are_recorded_in_the_order_the_program_builds_them(prod_run):
    names = [(r.type, r.name) for r in prod_run.resources]
    assert names[0] == ("mlplatform:cluster:Cluster", "cluster")
    position = {r.urn: i for i, r in enumerate(prod_run.resources)}
    for r in prod_run.resources:  # a component is built before its children
        if r.parent in position:
            assert position[r.parent] < position[r.urn], r.name
    groups = [r.name for r in prod_run.of_type("aws:eks/nodeGroup:NodeGroup")]
    assert groups == ["initial", "workload", "gpu"]  # the layout's order (stacks/Pulumi.prod.yaml)
    # Within a node group: its launch template, the group, then the ASG tags that read the group's ASG.
    initial = [n for t, n in names if n.startswith("initial")]
    assert initial[:3] == ["initial", "initial-lt", "initial"] and all("-asg-" in n for n in initial[3:])


def test_runs_in_one_process_do_not_leak_into_each_other():
    dev, prod = shipped_run("dev"), shipped_run("prod")
    again_prod = run_stack("prod", stack_config("prod"))
    again_dev = run_stack("dev", stack_config("dev"))
    assert recording(again_dev) == recording(dev) and again_dev.exports == dev.exports
    assert recording(again_prod) == recording(prod) and again_prod.exports == prod.exports
    assert all(r.urn.startswith("urn:pulumi:dev::") for r in again_dev.resources)
    # Nothing of a run stays configured once it ends.
    assert pulumi.runtime.get_root_resource() is None
    assert pulumi.runtime.config.CONFIG.get() == {}


def test_a_failed_run_leaves_the_next_one_clean():
    raw = stack_config("dev")
    raw["ml-platform-eks:workloads"] = {"namespaces": {"mlrun": {"limits": {"default": {"cpu": "100m"}}}}}
    with pytest.raises(Exception, match="ml-platform-eks:workloads"):
        run_program("dev", raw)
    assert recording(run_stack("dev", stack_config("dev"))) == recording(shipped_run("dev"))


def test_a_run_failing_inside_an_apply_leaves_the_next_one_clean():
    # The error surfaces from an Output's task, not the program body: the next run must not await it again.
    cluster = copy.copy(shipped_run("dev").programs[0])
    cluster.exports = {k: v for k, v in cluster.exports.items() if k != "nodeGroups"}
    layer = ROOT / KUBERNETES_DIRECTORY
    reference = {cluster_stack_reference(engine_run.ORGANIZATION, "dev"): cluster}
    with pytest.raises(Exception, match="has no output 'nodeGroups'"):
        run_program("dev", stack_config("dev"), layer, project=KUBERNETES_PROJECT, references=reference)
    assert recording(run_stack("dev", stack_config("dev"))) == recording(shipped_run("dev"))


@pytest.mark.parametrize("collect_above", [0, 10**9])
def test_frozen_runs_are_collected_once_they_pile_up(monkeypatch, collect_above):
    freezer = collector_and_pump.Freezer()
    freezer.enabled = True
    monkeypatch.setattr(engine_run, "FREEZER", freezer)
    monkeypatch.setattr(collector_and_pump, "COLLECT_ABOVE", collect_above)
    calls = []
    for name in ("collect", "unfreeze"):
        real = getattr(gc, name)
        monkeypatch.setattr(gc, name, lambda *a, _n=name, _f=real: calls.append(_n) or _f(*a))
    try:
        first = run_program("prod", stack_config("prod"))
        assert freezer.frozen and gc.get_freeze_count() > 0 and calls == []
        second = run_program("prod", stack_config("prod"))
        assert recording(second) == recording(first)
        # Above the bound the first run's objects are unfrozen and collected before the second run.
        assert calls == (["unfreeze", "collect"] if collect_above == 0 else [])
        assert freezer.frozen
    finally:
        gc.unfreeze()


def test_collector_thresholds_are_restored_after_a_run():
    before = gc.get_threshold()
    shipped_run("dev")
    run_program("dev", stack_config("dev"), pump=False)
    assert gc.get_threshold() == before


PROGRAM_WAITING_ON_LATER_WORK = """
import asyncio
import pulumi

later = asyncio.get_event_loop().create_future()
# This registration waits on a value the program only provides after building 40 more resources.
pulumi.CustomResource("test:index:Thing", "early", {"value": pulumi.Output.from_input(later)})
for i in range(40):
    pulumi.CustomResource("test:index:Thing", f"thing-{i}", {"index": i})
later.set_result("ready")
"""


def test_the_pump_never_deadlocks_a_program_that_waits_on_later_work(tmp_path, monkeypatch):
    (tmp_path / "__main__.py").write_text(PROGRAM_WAITING_ON_LATER_WORK)
    monkeypatch.setattr(collector_and_pump, "PUMP_TIMEOUT_S", 0.05)
    run = run_program("dev", {"aws:region": "us-west-2"}, program=tmp_path)
    assert [r.name for r in run.resources] == ["early", *(f"thing-{i}" for i in range(40))]
    assert run.one("test:index:Thing", "early").inputs == {"value": "ready"}
