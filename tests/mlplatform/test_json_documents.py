"""The `--json` documents: a schema version, camelCase keys, no absolute path of this machine, and README
describes each."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from mlplatform.cli import main
from mlplatform.documents import SCHEMA_VERSION
from tests.conftest import ROOT, STACKS
from tests.mlplatform.conftest import EXAMPLES

CAMEL = re.compile(r"[a-z][a-zA-Z0-9]*")
# Keys whose values are data with names of their own (labels, tags, manifests, resource inputs, stack outputs,
# Helm values, Kubernetes resource names, node-group names as keys), not the documents' own naming.
DATA = {
    "labels",
    "autoscalerTags",
    "launchTemplate",
    "inputs",
    "exports",
    "kubernetes",
    "configuration",
    "storageClasses",
    "propertyDependencies",
    "cells",
    "allocatable",
    "scaleFromZero",  # resource names (nvidia.com/gpu, vpc.amazonaws.com/efa)
    "limits",
    "nodeClass",
    "disruption",
}


def snake_keys(value, path: str = "") -> list[str]:
    """Every key of ours, outside DATA, that is not camelCase."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not CAMEL.fullmatch(key):
                out.append(f"{path}/{key}")
            if key not in DATA:
                out += snake_keys(item, f"{path}/{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += snake_keys(item, f"{path}/{i}")
    return out


def documents(folder: Path) -> dict[str, dict]:
    """Every kind of document, from the shipped stacks and from a stack file outside the project."""
    copy = folder / "Pulumi.copy.yaml"
    copy.write_text((STACKS / "Pulumi.dev.yaml").read_text())
    policy = folder / "policy.json"
    policy.write_text(json.dumps({"eks-endpoint-private": "advisory"}))
    runs = {
        "plan": ["plan", "dev"],
        "plan outside": ["plan", "--config-file", str(copy)],
        "plan several": ["plan", "prod", "dev-karpenter"],
        "check": ["check", "dev"],
        "check outside": ["check", "--config-file", str(copy), "--policy-config", str(policy)],
        "check several with an error": ["check", "prod", "missing"],
        "place": ["place", "dev", "-f", str(EXAMPLES / "mlrun-jobs.yaml")],
        "place outside": ["place", "--config-file", str(copy), "-f", str(EXAMPLES / "rejected-by-limit-range.yaml")],
    }
    out = {}
    for name, argv in runs.items():
        text = io.StringIO()
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
            main([*argv, "--json"])
        out[name] = json.loads(text.getvalue())
    return out


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """Run once for the module (planning three stacks takes seconds), from the project's folder."""
    folder = tmp_path_factory.mktemp("elsewhere")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        return documents(folder), folder
    finally:
        os.chdir(here)


def test_every_document_carries_the_schema_version(docs):
    for name, doc in docs[0].items():
        assert doc["schemaVersion"] == SCHEMA_VERSION == "2", name
        for inner in doc.get("stacks", []):  # each stack's own document inside a multi-stack one
            assert inner.get("schemaVersion", SCHEMA_VERSION) == SCHEMA_VERSION


def test_no_document_holds_an_absolute_path_of_this_machine(docs):
    found, tmp = docs
    for name, doc in found.items():
        text = json.dumps(doc)
        home = [str(Path.home())] if len(Path.home().parts) > 2 else []  # /home/me, not / or /root
        for path in {str(ROOT), str(ROOT.resolve()), str(tmp), str(tmp.resolve()), *home}:
            assert path not in text, (name, path)
    assert found["plan"]["source"] == "stacks/Pulumi.dev.yaml"
    assert found["plan outside"]["source"] == "Pulumi.copy.yaml"  # outside the project: the file name
    assert found["check outside"]["policyConfig"] == "policy.json"
    assert found["check"]["policyConfig"] == "policies/config/dev.json"
    missing = next(s for s in found["check several with an error"]["stacks"] if s["stack"] == "missing")
    assert "no stack file stacks/Pulumi.missing.yaml" in missing["error"]


def test_every_key_of_ours_is_camel_case(docs):
    for name, doc in docs[0].items():
        assert snake_keys(doc) == [], name
    violation = docs[0]["check outside"]
    assert violation["violations"] == [] or {"resourceName", "resourceType"} <= set(violation["violations"][0])


def test_check_violations_are_camel_case(tmp_path, capsys):
    import yaml

    raw = yaml.safe_load((STACKS / "Pulumi.prod.yaml").read_text())
    raw["config"]["ml-platform-eks:protectResources"] = False
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert main(["check", "--config-file", str(path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["violations"] and snake_keys(doc) == []
    v = next(v for v in doc["violations"] if v["resourceName"])
    assert set(v) == {
        "policy",
        "level",
        "severity",
        "message",
        "urn",
        "resourceType",
        "resourceName",
        "description",
        "remediation",
    }


def readme_section(title: str) -> str:
    """The page of the docs that describes the JSON documents."""
    text = (ROOT / "docs" / "json.md").read_text()
    assert text.startswith(title)
    return text


def test_readme_describes_every_top_level_key(docs):
    found = docs[0]
    section = readme_section("# The JSON documents")
    for name in ("plan", "check", "place", "check several with an error"):
        for key in found[name]:
            assert f"`{key}`" in section, (name, key)
    for key in found["check"]["violations"][0] if found["check"]["violations"] else ():
        assert f"`{key}`" in section
    for key in ("resourceName", "resourceType", "pointer", "atDeploy"):
        assert f"`{key}`" in section
