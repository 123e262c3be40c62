"""`mlplatform diff` and `check --against` on the shipped prod stack (the issue's done-when cases)."""

from __future__ import annotations

import json
from functools import cache

import pytest
import yaml

from mlplatform.cli import main
from mlplatform.plan import build_plan
from mlplatform.reports.diff import diff_document
from mlplatform.reports.plan_document import plan_document
from tests.conftest import stack_config

P = "ml-platform-eks:"


def edited(tmp, name: str, edit) -> str:
    cfg = stack_config("prod")
    edit(cfg)
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}), encoding="utf-8")
    return str(path)


@cache
def _doc(path: str) -> dict:
    return json.loads(json.dumps(plan_document(build_plan("prod", path))))


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prod")

    def gpu(c):
        c[P + "nodeGroups"]["gpu"]["instanceTypes"] = ["g5.4xlarge"]

    def bigger(c):
        c[P + "nodeGroups"]["workload"]["maxSize"] = 30

    files = {
        "shipped": edited(tmp, "shipped", lambda c: None),
        "gpu": edited(tmp, "gpu", gpu),
        "maxSize": edited(tmp, "max", bigger),
        "1.34": edited(tmp, "v134", lambda c: c.__setitem__(P + "kubernetesVersion", "1.34")),
        "1.36": edited(tmp, "v136", lambda c: c.__setitem__(P + "kubernetesVersion", "1.36")),
    }
    return {k: _doc(v) for k, v in files.items()}, files


def test_gpu_instance_type_replaces_the_gpu_group(docs):
    d = diff_document(docs[0]["shipped"], docs[0]["gpu"])
    gpu = next(g for g in d["nodeGroups"] if g["name"] == "gpu")
    assert gpu["action"] == "replace" and gpu["fields"] == ["instanceTypes"] and gpu["forcedBy"] == ["instanceTypes"]
    assert gpu["order"] == "create-before-delete" and gpu["nodesAtMost"] == 8
    # the GPU job, and the job that takes a GPU node whole (the placement proof's usable-group profile)
    assert [w["workload"] for w in gpu["displaced"]] == ["gpu-training-job", "whole-node-gpu"]
    assert all(w["waits"] for w in gpu["displaced"])
    assert {g["name"]: g["action"] for g in d["nodeGroups"]} == {
        "initial": "same",
        "workload": "same",
        "gpu": "replace",
    }
    assert d["resources"][0]["name"] == "gpu" and d["resources"][0]["action"] == "replace"  # replacements first


def test_raising_max_size_updates_and_nothing_else(docs):
    d = diff_document(docs[0]["shipped"], docs[0]["maxSize"])
    assert [(r["name"], r["action"], r["fields"]) for r in d["resources"]] == [
        ("workload", "update", ["scalingConfig.maxSize"])
    ]
    assert [g["action"] for g in d["nodeGroups"]] == ["same", "update", "same"]


def test_one_minor_up_updates_the_cluster_and_rolls_every_group(docs):
    d = diff_document(docs[0]["shipped"], docs[0]["1.36"])
    cluster = next(r for r in d["resources"] if r["type"] == "aws:eks/cluster:Cluster")
    assert cluster["action"] == "update" and cluster["fields"] == ["version"]
    assert {g["name"]: g["action"] for g in d["nodeGroups"]} == {"initial": "roll", "workload": "roll", "gpu": "roll"}
    assert all(g["fields"] == ["version"] and g["batch"] == 1 for g in d["nodeGroups"])
    assert not [r for r in d["resources"] if r["action"] == "replace"]


def test_check_against_gates(docs, tmp_path, capsys):
    base = tmp_path / "before.json"
    base.write_text(json.dumps(docs[0]["1.34"]))
    # Two minors up fails in every environment; one minor up passes with advisory rolls.
    assert main(["check", "--config-file", docs[1]["1.36"], "--stack", "prod", "--against", str(base), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert any(v["policy"] == "change-kubernetes-version" and v["level"] == "mandatory" for v in out["violations"])
    base.write_text(json.dumps(docs[0]["shipped"]))
    assert main(["check", "--config-file", docs[1]["1.36"], "--stack", "prod", "--against", str(base), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {v["policy"] for v in out["violations"] if v["policy"].startswith("change-")} == {"change-node-group-roll"}
    # The GPU group's replacement is a capacity gap in prod, unless the policy config allows it.
    assert main(["check", "--config-file", docs[1]["gpu"], "--stack", "prod", "--against", str(base)]) == 1
    capsys.readouterr()
    allow = tmp_path / "policy.json"
    allow.write_text(json.dumps({"change-capacity-gap": {"allowedGroups": ["gpu"]}}))
    args = ["check", "--config-file", docs[1]["gpu"], "--stack", "prod", "--against", str(base), "--json"]
    assert main([*args, "--policy-config", str(allow)]) == 0


def test_diff_command_outputs_and_bad_before(docs, tmp_path, capsys):
    base = tmp_path / "before.json"
    base.write_text(json.dumps(docs[0]["shipped"]))
    assert main(["diff", "--config-file", docs[1]["gpu"], "--stack", "prod", "--against", str(base), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["resources"][0]) >= {"name", "type", "action", "fields", "order"}
    assert (
        main(
            ["diff", "--config-file", docs[1]["gpu"], "--stack", "prod", "--against", str(base), "--format", "markdown"]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert text.startswith("### mlplatform diff: `prod`") and "| **replace** | `gpu` |" in text
    old = dict(docs[0]["shipped"], schemaVersion="1")
    base.write_text(json.dumps(old))
    assert main(["diff", "prod", "--against", str(base)]) == 2
    assert "schemaVersion \"1\", this toolkit reads '2'" in capsys.readouterr().err
    base.write_text("[]")
    assert main(["diff", "prod", "--against", str(base)]) == 2
    assert "not a plan document" in capsys.readouterr().err


def test_a_bad_before_or_change_setting_is_bad_input_said_as_such(docs, tmp_path, capsys):
    """--against problems read as `error: --against: ...` (not as a stack file's invalid configuration); a
    change rule's setting that is not the documented `allowedGroups` list is refused on every check (exit 2,
    never the internal error's 3), and nothing the user wrote is dropped."""
    base = tmp_path / "before.json"
    base.write_text(json.dumps(docs[0]["shipped"]))
    assert main(["diff", "dev", "--against", str(base)]) == 2
    # The path as typed (an error on the user's terminal), not shortened as documents show paths.
    assert capsys.readouterr().err == f"error: --against: {base} is the plan of stack 'prod', not 'dev'\n"
    config = tmp_path / "policy.json"
    for setting, words, against in [
        ({"change-capacity-gap": {"allowedGroups": "gpu"}}, 'got {"allowedGroups": "gpu"}', ["--against", str(base)]),
        ({"change-capacity-gap": {"allowedGroup": ["gpu"]}}, "unknown key 'allowedGroup'", []),
        ({"change-capacity-gap": "advisory"}, 'got "advisory"', ["--against", str(base)]),
        ({"change-node-group-roll": "disabled"}, "change-node-group-roll: the change rules' levels follow", []),
    ]:
        config.write_text(json.dumps(setting))
        args = ["check", "--config-file", docs[1]["gpu"], "--stack", "prod", "--policy-config", str(config)]
        assert main([*args, *against]) == 2, setting
        err = capsys.readouterr().err
        assert err.startswith("error: policy.json: ") and words in err, err


def test_before_of_another_project_is_refused_and_a_deleted_foundation_fails_the_gate(docs, tmp_path, capsys):
    """A BEFORE of the same stack name in another Pulumi project is another stack (every URN differs): bad
    input, not a diff that deletes and recreates everything. Within the project, a change that deletes the
    cluster (a logical name that changed) is at least as bad as replacing it: the prod gate fails."""
    import copy

    from mlplatform_core.change.rules import change_violations

    base = tmp_path / "before.json"
    other = copy.deepcopy(docs[0]["shipped"])
    other["deployment"]["programs"][0]["project"] = "someone-else"
    base.write_text(json.dumps(other))
    assert main(["diff", "--config-file", docs[1]["shipped"], "--stack", "prod", "--against", str(base)]) == 2
    err = capsys.readouterr().err
    assert "of project 'someone-else', but this is project 'ml-platform-eks'" in err

    before = copy.deepcopy(docs[0]["shipped"])
    for r in before["resources"]:
        if r["type"] == "aws:eks/cluster:Cluster":
            r["urn"] = r["urn"].replace(f"::{r['name']}", "::old-cluster")
            r["name"] = "old-cluster"
    after = docs[0]["shipped"]
    diff = diff_document(before, after)
    assert {(r["name"], r["action"]) for r in diff["resources"] if r["type"] == "aws:eks/cluster:Cluster"} >= {
        ("old-cluster", "delete")
    }
    found = [v for v in change_violations(diff, before, after) if v.rule == "change-foundation-replaced"]
    assert found and found[0].level == "mandatory" and "deletes the EKS cluster old-cluster" in found[0].message
