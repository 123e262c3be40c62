"""The three-team example (examples/stacks/Pulumi.teams.yaml) planned by the real program: Kueue's release and the
teams' objects created in dependency order, the plan's teams section, and no Kueue without `teams`."""

from __future__ import annotations

from functools import cache

from mlplatform.plan import Plan, build_plan
from mlplatform.reports.plan_document import plan_document
from tests.conftest import ROOT
from tests.runs import shipped_run

RELEASE = "kubernetes:helm.sh/v3:Release"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@cache
def plan() -> Plan:
    return build_plan(None, str(ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"))


def by_name(p: Plan) -> dict[tuple[str, str], object]:
    return {(r.type, r.name): r for r in p.run.resources}


def test_the_example_plans_kueue_and_every_team_object():
    p = plan()
    found = by_name(p)
    release = found[(RELEASE, "kueue")]
    assert release.inputs["chart"] == "kueue" and release.inputs["namespace"] == "kueue-system"
    kinds = sorted(r.type.removeprefix(KUEUE) for r in p.run.resources if r.type.startswith(KUEUE))
    assert kinds.count("ResourceFlavor") == 3 and kinds.count("ClusterQueue") == 3 and kinds.count("Cohort") == 1
    assert kinds.count("LocalQueue") == 3 and kinds.count("WorkloadPriorityClass") == 3
    urn = {r.urn: r for r in p.run.resources}
    queue = found[(KUEUE + "LocalQueue", "localqueue-vision-vision")]
    needs = {(urn[u].type, urn[u].name) for u in queue.dependencies if u in urn}
    assert (KUEUE + "ClusterQueue", "clusterqueue-vision") in needs
    assert ("kubernetes:core/v1:Namespace", "namespace-vision") in needs
    cq = found[(KUEUE + "ClusterQueue", "clusterqueue-vision")]
    cq_needs = {(urn[u].type, urn[u].name) for u in cq.dependencies if u in urn}
    assert {
        (RELEASE, "kueue"),
        (KUEUE + "ResourceFlavor", "resourceflavor-gpu"),
        (KUEUE + "Cohort", "cohort-platform"),
    } <= cq_needs
    priority = found[(KUEUE + "WorkloadPriorityClass", "workloadpriorityclass-igz-workload-low")]
    assert priority.inputs["value"] == 10000


def test_the_plan_has_a_teams_section_and_the_kueue_chart_proven():
    doc = plan_document(plan())
    teams = doc["teams"]
    assert [t["name"] for t in teams["teams"]] == ["vision", "nlp", "analytics"]
    vision = teams["teams"][0]
    assert vision["gpuHours"][0]["gpuHoursPerMonth"] == 3 * 730
    gpu = next(f for f in teams["flavors"] if f["name"] == "gpu")
    assert gpu["capacity"]["nvidia.com/gpu"] == "6" and gpu["nominalQuota"]["nvidia.com/gpu"] == "6"
    charts = {c["release"]: c for c in doc["kubernetes"]["charts"]["releases"]}
    assert charts["kueue"]["version"] == "0.19.2" and charts["kueue"]["namespace"] == "kueue-system"
    (manager,) = charts["kueue"]["workloads"]
    assert manager["images"] == ["registry.k8s.io/kueue/kueue:v0.19.2"]
    assert doc["kubernetes"]["charts"]["problems"] == []


def test_a_stack_without_teams_has_no_kueue():
    run = shipped_run("dev")
    assert not [r for r in run.resources if r.type.startswith(KUEUE) or (r.type == RELEASE and r.name == "kueue")]
