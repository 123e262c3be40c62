"""`mlplatform schema stack`: the JSON Schema of a stack file, shipped in the wheel, that every shipped stack
meets and a stack file with mistakes fails; `mlplatform init` points each stack file it writes at it."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
import yaml

from mlplatform.cli import main
from mlplatform_core.model.plan_document import PlanDocument, dump
from mlplatform_core.schemas import PLAN_SCHEMA_FILE, STACK_SCHEMA_FILE, plan_schema_text, shipped, stack_schema_text
from tests.conftest import ROOT, STACKS

EXAMPLE_STACKS = ROOT / "examples" / "stacks"
BROKEN = EXAMPLE_STACKS / "Pulumi.broken.yaml"  # the configuration reference's stack file with mistakes
SHIPPED_STACKS = sorted(STACKS.glob("Pulumi.*.yaml")) + sorted(
    p for p in EXAMPLE_STACKS.glob("Pulumi.*.yaml") if p != BROKEN
)


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(shipped(STACK_SCHEMA_FILE))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(validator, doc):
    return sorted((list(e.absolute_path), e.message) for e in validator.iter_errors(doc))


def test_the_shipped_schema_is_what_the_settings_model_produces():
    # Regenerate: mlplatform schema stack --out mlplatform_core/schemas/stack.schema.json
    assert shipped(STACK_SCHEMA_FILE) == stack_schema_text()


def test_schema_stack_prints_it_or_writes_it(tmp_path, capsys):
    assert main(["schema", "stack"]) == 0
    assert capsys.readouterr().out == stack_schema_text()
    out = tmp_path / "stack.schema.json"
    assert main(["schema", "stack", "--out", str(out)]) == 0
    assert out.read_text() == stack_schema_text()
    assert main(["schema", "stack", "--out", str(tmp_path / "missing" / "x.json")]) == 2
    assert "--out" in capsys.readouterr().err


@pytest.mark.parametrize("path", SHIPPED_STACKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_stack_meets_the_schema(validator, path):
    assert SHIPPED_STACKS and errors(validator, yaml.safe_load(path.read_text())) == []


def test_the_broken_example_fails_where_plan_says_it_is_wrong(validator):
    found = errors(validator, yaml.safe_load(BROKEN.read_text()))
    # YAML reads kubernetesVersion: 1.30 as the number 1.3 (plan says the same: quote it).
    assert (["config", "ml-platform-eks:kubernetesVersion"], "1.3 is not of type 'string'") in found


def stack(**settings):
    return {"config": {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev", **settings}}


def test_project_keys_are_strict_and_other_namespaces_belong_to_their_providers(validator):
    assert errors(validator, stack(**{"aws:profile": "ml", "kubernetes:context": "x", "pulumi:tags": {}})) == []
    # An ml-platform-eks key the model does not know, a key without a namespace: refused, as plan refuses them.
    assert errors(validator, stack(**{"ml-platform-eks:nodeGroup": {}}))
    assert errors(validator, stack(environment="dev"))
    # Nested settings are strict too: a misspelt group setting.
    assert errors(validator, stack(**{"ml-platform-eks:nodeGroups": {"gpu": {"maxSzie": 2}}}))
    assert errors(validator, {"config": {"ml-platform-eks:environment": "dev"}})  # aws:region is required
    assert errors(validator, {"config": {"aws:region": "us-west-2"}})  # environment is required
    assert errors(validator, {**stack(), "settings": {}})  # settings go under config:


def test_top_level_values_may_be_the_text_pulumi_config_set_writes(validator):
    # `pulumi config set ml-platform-eks:protectResources true` stores "true" (pulumi_format.py), as the model reads.
    assert errors(validator, stack(**{"ml-platform-eks:protectResources": "true"})) == []
    assert errors(validator, stack(**{"ml-platform-eks:imdsHopLimit": "2"})) == []
    assert errors(validator, stack(**{"ml-platform-eks:protectResources": "yes"}))
    # YAML null at the top level is refused (the engine would hand over the text "None").
    assert errors(validator, stack(**{"ml-platform-eks:clusterName": None}))


ALL_STACK_FILES = sorted(STACKS.glob("Pulumi.*.yaml")) + sorted(EXAMPLE_STACKS.glob("Pulumi.*.yaml"))
HINT = "# yaml-language-server: $schema="


@pytest.mark.parametrize("path", ALL_STACK_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_stack_file_points_editors_at_the_shipped_schema(path):
    """As `init` writes it: the first line names the schema by a path relative to the stack file's folder (how
    yaml-language-server resolves it), here the file the wheel ships, so a checkout completes as you type."""
    from mlplatform_core.model.config import read_stack_file

    first, rest = path.read_text(encoding="utf-8").split("\n", 1)
    assert first.startswith(HINT), f"{path.name}: first line {first!r}"
    target = (path.parent / first.removeprefix(HINT)).resolve()
    assert target == (ROOT / "mlplatform_core" / "schemas" / STACK_SCHEMA_FILE).resolve() and target.is_file()
    # A comment to YAML: what Pulumi and the toolkit read is the file without it.
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == yaml.safe_load(rest)
    if path != BROKEN:
        assert read_stack_file(path) == yaml.safe_load(rest)["config"]


def test_init_writes_the_schema_and_points_each_stack_file_at_it(tmp_path, capsys, validator):
    assert main(["init", str(tmp_path / "p")]) == 0, capsys.readouterr().err
    project = tmp_path / "p"
    for env in ("dev", "prod"):
        path = project / "stacks" / f"Pulumi.{env}.yaml"
        first = path.read_text().splitlines()[0]
        prefix = "# yaml-language-server: $schema="
        assert first.startswith(prefix)
        # yaml-language-server resolves the path from the stack file's folder.
        schema_file = (path.parent / first.removeprefix(prefix)).resolve()
        assert schema_file == (project / "schemas" / STACK_SCHEMA_FILE).resolve()
        assert schema_file.read_text() == stack_schema_text()
        assert errors(validator, yaml.safe_load(path.read_text())) == []


def test_schema_plan_describes_the_plan_document_diff_reads(capsys, tmp_path):
    from mlplatform.plan import build_plan
    from mlplatform.reports.plan_document import plan_document
    from mlplatform_core.model.plan_document import PlanDocument

    assert main(["schema", "plan"]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads(json.dumps(plan_document(build_plan("dev-karpenter"))))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc)) == []
    typed = PlanDocument.read(doc)
    assert typed.kubernetes_version == doc["kubernetesVersion"]
    assert [g.name for g in typed.node_groups] == [g["name"] for g in doc["nodeGroups"]]
    assert [p.name for p in typed.node_pools] == [p["name"] for p in doc["nodePools"]] != []
    assert len(typed.placement.profiles) == len(doc["placement"]["profiles"]) > 0
    # A part of the wrong type is refused by the schema and, as BEFORE of diff, is bad input naming where.
    broken = {**doc, "nodeGroups": [{"name": "jobs", "maxSize": "many"}]}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))
    before = tmp_path / "before.json"
    before.write_text(json.dumps(broken))
    assert main(["diff", "--config-file", str(STACKS / "Pulumi.dev-karpenter.yaml"), "--against", str(before)]) == 2
    assert "nodeGroups.0.maxSize" in capsys.readouterr().err


# --- the plan document's schema, shipped as plan.schema.json -------------------------------------------------


@cache
def shipped_plan_json(path: Path) -> dict:
    """`mlplatform plan --json` of a shipped stack or example, as a reader parses it."""
    from mlplatform.plan import build_plan
    from mlplatform.reports.plan_document import plan_document

    stack = None if path.parent == EXAMPLE_STACKS else path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    plan = build_plan(stack, None if stack else str(path))
    return json.loads(json.dumps(plan_document(plan), default=str))


def deep_paths(validator, doc) -> list[list]:
    """Where each error is, with the errors inside an anyOf (an optional section) too."""
    found, todo = [], list(validator.iter_errors(doc))
    while todo:
        e = todo.pop()
        found.append(list(e.absolute_path))
        todo.extend(e.context or [])
    return found


@pytest.fixture(scope="module")
def plan_validator():
    schema = json.loads(shipped(PLAN_SCHEMA_FILE))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_shipped_plan_schema_is_what_the_plan_document_model_produces():
    # Regenerate: make generate (scripts/generators/generate_schemas.py), or mlplatform schema plan --out <this file>
    assert shipped(PLAN_SCHEMA_FILE) == plan_schema_text()
    assert main(["schema", "plan"]) == 0


@pytest.mark.parametrize("path", SHIPPED_STACKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_plan_meets_the_shipped_plan_schema_and_reads_back_as_written(plan_validator, path):
    doc = shipped_plan_json(path)
    assert errors(plan_validator, doc) == []
    # The model the plan is written from reads it back to the same JSON: no key dropped, added or reordered.
    typed = PlanDocument.read(doc)
    assert json.dumps(dump(typed), default=str) == json.dumps(doc)
    assert [g.name for g in typed.node_groups] == [g["name"] for g in doc["nodeGroups"]]


def test_the_plan_schema_types_every_section_and_keeps_open_what_providers_own(plan_validator):
    doc = shipped_plan_json(STACKS / "Pulumi.dev-automode.yaml")
    assert doc["deployment"]["autoMode"]["compute"] is True  # a section written only where it applies
    for where, bad in (
        (["cost", "totals", "ceiling", "usdPerMonth"], "a lot"),
        (["placement", "gpuCapacity", "quotas", 0, "used"], "three"),
        (["deployment", "autoMode", "compute"], "yes"),
        (["kubernetesSupport", "phase"], 1),
    ):
        broken = copy.deepcopy(doc)
        part = broken
        for key in where[:-1]:
            part = part[key]
        part[where[-1]] = bad
        assert where in deep_paths(plan_validator, broken), where
    # Resource inputs and Kubernetes objects are each provider's own: any shape passes.
    open_parts = copy.deepcopy(doc)
    open_parts["resources"][0]["inputs"] = {"anything": [1, {"x": None}]}
    open_parts["kubernetes"]["objects"].append({"apiVersion": "v1", "kind": "Whatever", "spec": 3})
    assert errors(plan_validator, open_parts) == []


def test_a_document_of_another_release_keeps_the_keys_this_one_does_not_know():
    doc = shipped_plan_json(STACKS / "Pulumi.dev-automode.yaml")
    newer = {**doc, "gpuQuotas": [{"family": "G", "vcpus": 64}], "cost": {**doc["cost"], "discounts": []}}
    assert dump(PlanDocument.read(newer)) == json.loads(json.dumps(newer))
    older = {k: v for k, v in doc.items() if k not in ("placeholders", "deploymentOrder", "storage", "cost")}
    assert PlanDocument.read(older).kubernetes_version == doc["kubernetesVersion"]
