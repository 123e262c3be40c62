"""Deployment waves and the critical path: what `pulumi up` waits for, in `plan` and `plan --json`."""

from __future__ import annotations

import json

from mlplatform.cli import main
from mlplatform.engine import ProgramRun, Recorded
from mlplatform.reports.deployment_order import critical_path, order_section, waves
from mlplatform_core.model.plan_document import dump


def res(name, type_="test:index:Thing", parent=None, deps=(), custom=True, remote=False, provider=None):
    return Recorded(
        urn=f"urn:{name}",
        type=type_,
        name=name,
        parent=f"urn:{parent}" if parent else None,
        custom=custom,
        remote=remote,
        inputs={},
        outputs={},
        provider=f"urn:{provider}::id-1" if provider else None,
        dependencies=[f"urn:{d}" for d in deps],
    )


def by_urn(doc):
    return {r["urn"]: r for r in doc["resources"]}


def names(grouped):
    return [[r.name for r in group] for group in grouped]


def test_waves_follow_dependencies_providers_parents_and_component_depends_on():
    run = ProgramRun(
        "s",
        {},
        [
            res("net"),
            res("cluster", "eks:index:Cluster", deps=["net"], custom=False, remote=True),
            # built inside the remote component: part of its step, never a wave of its own
            res("cluster-eksCluster", "aws:eks/cluster:Cluster", parent="cluster"),
            res("k8s", "pulumi:providers:kubernetes", deps=["cluster"]),
            res("ns", "kubernetes:core/v1:Namespace", provider="k8s"),
            # a local component that depends on the cluster: its children wait for it too
            res("group", "test:index:Group", deps=["cluster"], custom=False),
            res("lt", parent="group"),
            res("free", parent=None),
            res("child-of-custom", parent="net"),
            res("dep-on-inner", deps=["cluster-eksCluster"]),
        ],
        {},
        set(),
    )
    assert names(waves(run)) == [
        ["net", "free"],
        ["cluster", "child-of-custom"],
        ["k8s", "lt", "dep-on-inner"],
        ["ns"],
    ]
    assert [r.name for r in critical_path(run)] == ["net", "cluster", "k8s", "ns"]


def test_an_empty_run_has_no_waves():
    run = ProgramRun("s", {}, [], {}, set())
    assert waves(run) == [] and critical_path(run) == []
    assert dump(order_section(run)) == {"program": ".", "project": "ml-platform-eks", "waves": [], "criticalPath": []}


def test_waves_of_the_shipped_stacks_cover_every_created_resource_once(dev_run, prod_run):
    for run in (program for stack in (dev_run, prod_run) for program in stack.programs):
        grouped = waves(run)
        flat = [r.urn for group in grouped for r in group]
        # a remote component (pulumi_eks.Cluster) is one step: what it builds is not a step of its own
        created = [r.urn for r in run.resources if (r.custom or r.remote) and r.created_by is None]
        assert sorted(flat) == sorted(created) and len(flat) == len(set(flat))
        wave = {urn: i for i, group in enumerate(grouped) for urn in (r.urn for r in group)}
        for r in run.resources:  # everything a resource depends on comes in an earlier wave
            for d in r.dependencies:
                if r.urn in wave and d in wave:
                    assert wave[d] < wave[r.urn], (r.name, d)


def test_plan_json_carries_dependencies_and_waves_per_program(capsys):
    assert main(["plan", "prod", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_name = {(r["type"], r["name"]): r for r in doc["resources"]}
    group = by_name[("aws:eks/nodeGroup:NodeGroup", "initial")]
    eks = by_name[("eks:index:Cluster", "cluster")]
    assert eks["urn"] in group["dependencies"] and eks["urn"] in group["propertyDependencies"]["clusterName"]
    assert all(v for r in doc["resources"] for v in r["propertyDependencies"].values())  # no empty lists
    # prod deploys two programs, each its own `pulumi up` with its own order
    orders = doc["deploymentOrder"]
    assert [(o["program"], o["project"]) for o in orders] == [
        (".", "ml-platform-eks"),
        ("kubernetes-layer", "ml-platform-eks-kubernetes"),
    ]
    for o in orders:
        assert o["waves"] and {r["urn"] for w in o["waves"] for r in w["resources"]} <= set(by_urn(doc))
    waves_ = orders[0]["waves"]
    assert [w["wave"] for w in waves_] == list(range(1, len(waves_) + 1))
    wave_of = {r["urn"]: w["wave"] for w in waves_ for r in w["resources"]}
    assert wave_of[group["urn"]] == wave_of[eks["urn"]] + 1
    path = orders[0]["criticalPath"]
    assert [wave_of[r["urn"]] for r in path] == list(range(1, len(waves_) + 1))


def test_plan_tables_show_the_waves(capsys):
    assert main(["plan", "prod"]) == 0
    out = capsys.readouterr().out
    assert "Deployment waves of ml-platform-eks " in out and "critical path:" in out
    assert "Deployment waves of ml-platform-eks-kubernetes " in out
    assert "3 x NodeGroup: initial, workload, gpu" in out


def test_the_critical_path_runs_through_the_slow_steps_when_chains_tie(dev_run):
    # Subnet -> route table association ties with subnet -> control plane in waves; the control plane takes
    # minutes, so the critical path is the chain through it. The longest chain by waits now ends in the flow logs:
    # their group is encrypted with the stack's key, whose policy waits for the cluster role (components/network.py).
    cluster_program = dev_run.programs[0]
    path = [r.type for r in critical_path(cluster_program)]
    assert "eks:index:Cluster" in path
    assert path[-3:] == [
        "aws:kms/keyPolicy:KeyPolicy",
        "aws:cloudwatch/logGroup:LogGroup",
        "aws:iam/rolePolicy:RolePolicy",
    ]
    assert len(path) == len(waves(cluster_program))


def test_on_a_full_tie_the_critical_path_takes_the_first_in_program_order():
    run = ProgramRun("s", {}, [res("a"), res("b"), res("a2", deps=["a"]), res("b2", deps=["b"])], {}, set())
    assert [r.name for r in critical_path(run)] == ["a", "a2"]
    slow = res("b", type_="aws:eks/nodeGroup:NodeGroup")
    run = ProgramRun("s", {}, [res("a"), slow, res("a2", deps=["a"]), res("b2", deps=["b"])], {}, set())
    assert [r.name for r in critical_path(run)] == ["b", "b2"]
