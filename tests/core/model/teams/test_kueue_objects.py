"""The teams' Kueue objects against the CRDs of the pinned Kueue chart (as helm rendered it: the fixture
tests/data/rendered/teams/kueue.yaml, scripts/generators/render_charts.py): OpenAPI schemas and CEL rules."""

from __future__ import annotations

import copy
from functools import cache

import jsonschema
import pytest
import yaml

from mlplatform_core.model import addon_versions
from mlplatform_core.model.addons.kueue import configuration
from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.teams import manifests
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT
from tests.core.crd_rules import evaluate, openapi_jsonschema

from .conftest import valid, with_teams

RENDERED = ROOT / "tests" / "data" / "rendered" / "teams" / "kueue.yaml"
INDEX = ROOT / "tests" / "data" / "rendered" / "index.json"


@cache
def rendered() -> tuple[dict, ...]:
    """The fixture's objects (libyaml's parser: 1.7 MB, mostly CRDs)."""
    return tuple(d for d in yaml.load_all(RENDERED.read_text(), Loader=yaml.CSafeLoader) if d)


@cache
def crds() -> dict[str, dict]:
    """kind -> the storage version's schema, of every CRD the pinned chart renders."""
    out = {}
    for doc in rendered():
        if doc and doc["kind"] == "CustomResourceDefinition":
            version = next(v for v in doc["spec"]["versions"] if v["storage"])
            out[doc["spec"]["names"]["kind"]] = {"apiVersion": f"{doc['spec']['group']}/{version['name']}", **version}
    return out


def errors(obj: dict) -> list[str]:
    crd = crds()[obj["kind"]]
    assert obj["apiVersion"] == crd["apiVersion"]
    schema = crd["schema"]["openAPIV3Schema"]
    found = [
        f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
        for e in jsonschema.Draft7Validator(openapi_jsonschema(schema)).iter_errors(obj)
    ]
    broken, _ = evaluate(schema, obj)
    return found + broken


def objects(raw: dict) -> list[dict]:
    return manifests(valid(raw).teams)


STACKS = {
    "dev": lambda: with_teams("dev"),
    "karpenter": lambda: with_teams("dev-karpenter"),
    "auto mode": lambda: with_teams("dev-automode"),
}


def test_the_rendering_is_the_pinned_chart():
    import json

    index = json.loads(INDEX.read_text())["stacks"]["teams"]["kueue"]
    assert index["version"] == addon_versions.pinned(addon_versions.KUEUE, "1.35")["chart"]
    assert set(crds()) >= {"ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass"}


@pytest.mark.parametrize("stack", STACKS.values(), ids=STACKS.keys())
def test_the_objects_validate_against_the_crds(stack):
    objs = objects(stack())
    assert objs
    for obj in objs:
        assert errors(obj) == [], (obj["kind"], obj["metadata"]["name"])


def test_the_example_validates_and_cel_rules_run():
    teams = validate_stack(read_stack_file(ROOT / "examples/stacks/Pulumi.teams.yaml"), "teams").teams
    ran = 0
    for obj in manifests(teams):
        crd = crds()[obj["kind"]]
        broken, evaluated = evaluate(crd["schema"]["openAPIV3Schema"], obj)
        assert broken == []
        ran += evaluated
    assert ran >= 5  # the ClusterQueue's and ResourceFlavor's rules were evaluated, not skipped


def test_the_validator_catches_what_the_api_server_would_refuse():
    queue = next(o for o in objects(with_teams()) if o["kind"] == "ClusterQueue")
    broken = copy.deepcopy(queue)
    broken["spec"]["resourceGroups"][0]["flavors"][0]["resources"].pop()  # fewer resources than covered (CEL)
    assert any("coveredResources" in e or "flavors" in e for e in errors(broken))
    broken = copy.deepcopy(queue)
    broken["spec"]["preemption"]["withinClusterQueue"] = "Sometimes"  # not in the enum
    assert errors(broken)
    flavor = next(o for o in objects(with_teams()) if o["kind"] == "ResourceFlavor" and "tolerations" in o["spec"])
    broken = copy.deepcopy(flavor)
    broken["spec"]["tolerations"][0]["effect"] = "Never"
    assert errors(broken)


def test_kueue_runs_the_teams_configuration():
    teams = valid(with_teams()).teams
    conf = configuration(teams)
    assert conf["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert "fairSharing" in conf  # v1beta2: the section's presence turns fair sharing on
    assert {"batch/job", "pod", "kubeflow.org/pytorchjob", "ray.io/rayjob", "jobset.x-k8s.io/jobset"} <= set(
        conf["integrations"]["frameworks"]
    )
    config_map = next(
        d for d in rendered() if d["kind"] == "ConfigMap" and "controller_manager_config.yaml" in d.get("data", {})
    )
    shipped = yaml.safe_load(config_map["data"]["controller_manager_config.yaml"])
    assert shipped["integrations"] == conf["integrations"] and shipped["fairSharing"] == conf["fairSharing"]


def test_the_kueue_manager_runs_on_the_core_nodes_hardened_with_requests():
    (manager,) = [d for d in rendered() if d["kind"] == "Deployment"]
    pod = manager["spec"]["template"]["spec"]
    assert pod["nodeSelector"]["mlplatform.io/node-role"] == "initial"
    assert {"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert manager["spec"]["replicas"] == 2
    (container,) = [c for c in pod["containers"] if c["name"] == "manager"]
    assert (
        container["image"]
        == "registry.k8s.io/kueue/kueue:v" + addon_versions.pinned(addon_versions.KUEUE, "1.35")["chart"]
    )
    resources = container["resources"]
    assert resources["requests"]["memory"] == resources["limits"]["memory"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["securityContext"]["runAsNonRoot"] is True
