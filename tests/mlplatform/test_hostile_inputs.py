"""Large and hostile stack files: handled, or refused with exit 2 and a short message, never a crash or a hang.

Time is not asserted here (bench/run measures it); each case is bounded by construction: the file
size limit is checked before reading, YAML alias expansion and nesting are capped before anything
walks the document, and error lists are cut to one screen.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mlplatform.check import run_checks
from mlplatform.cli import main
from mlplatform.plan import build_plan
from mlplatform.reports.plan_document import plan_document
from mlplatform_core.model.config.stack_file import MAX_CONFIG_BYTES

P = "ml-platform-eks:"
BASE = {"aws:region": "us-west-2", P + "environment": "dev"}


def write(tmp_path: Path, config: dict, name: str = "Pulumi.hostile.yaml") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"config": config}, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    return str(path)


def refused(capsys, *argv: str) -> str:
    """stderr of a command that must refuse its input cleanly."""
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert len(captured.err.splitlines()) <= 25, captured.err
    return captured.err


def groups(n: int, **extra) -> list[dict]:
    return [
        {
            "name": f"pool-{i:04d}",
            "instanceTypes": ["m5.xlarge", "m5a.xlarge"],
            "minSize": 0,
            "maxSize": 3,
            "labels": {"example.com/team": f"team-{i % 9}"},
            **extra,
        }
        for i in range(n)
    ]


def test_hundreds_of_node_groups_plan_and_check(tmp_path):
    # 205 managed node groups: an account with the EKS quota raised (quotas:) may have them. (bench/run times
    # 500 and more; this holds what they build.)
    path = write(
        tmp_path, {**BASE, P + "additionalNodeGroups": groups(200), P + "quotas": {"managedNodeGroupsPerCluster": 600}}
    )
    plan = build_plan(None, path)
    doc = plan_document(plan)
    names = [g["name"] for g in doc["nodeGroups"]]
    assert names[-200:] == [f"pool-{i:04d}" for i in range(200)]
    last = doc["nodeGroups"][-1]
    assert last["labels"]["example.com/team"] == f"team-{199 % 9}"
    assert last["autoscalerTags"]["k8s.io/cluster-autoscaler/node-template/label/example.com/team"] == f"team-{199 % 9}"
    violations = run_checks(plan)
    assert not [v for v in violations if v.mandatory], [v.message for v in violations if v.mandatory][:5]


def test_more_node_groups_than_the_model_allows_are_refused(tmp_path, capsys):
    path = write(tmp_path, {**BASE, P + "additionalNodeGroups": groups(1001)})
    err = refused(capsys, "plan", "--config-file", path)
    assert P + "additionalNodeGroups:" in err and "1000" in err


def test_every_group_broken_still_fits_one_screen(tmp_path, capsys):
    raised = {P + "quotas": {"managedNodeGroupsPerCluster": 400}}
    path = write(tmp_path, {**BASE, P + "additionalNodeGroups": groups(300, minSize=5, maxSize=2), **raised})
    err = refused(capsys, "check", "--config-file", path)
    assert P + "additionalNodeGroups[0].minSize:" in err
    assert "... and 280 more" in err


def test_values_at_the_kubernetes_limits_are_kept_exactly(tmp_path):
    value, name = "v" * 63, "k" * 63
    config = {
        **BASE,
        P + "nodeGroups": {
            "jobs": {
                "labels": {"example.com/team": value, name: "x"},
                "taints": [{"key": "example.com/dedicated", "value": value, "effect": "NoSchedule"}],
            }
        },
    }
    doc = plan_document(build_plan(None, write(tmp_path, config)))
    jobs = next(g for g in doc["nodeGroups"] if g["name"] == "jobs")
    assert jobs["labels"]["example.com/team"] == value and jobs["labels"][name] == "x"
    assert {"key": "example.com/dedicated", "value": value, "effect": "NoSchedule"} in jobs["taints"]
    assert (
        jobs["autoscalerTags"]["k8s.io/cluster-autoscaler/node-template/taint/example.com/dedicated"]
        == f"{value}:NoSchedule"
    )


@pytest.mark.parametrize(
    "field, value, key",
    [
        ("label value", {P + "nodeGroups": {"jobs": {"labels": {"team": "v" * 64}}}}, P + "nodeGroups.jobs.labels"),
        (
            "taint value",
            {P + "nodeGroups": {"jobs": {"taints": [{"key": "a", "value": "v" * 64}]}}},
            P + "nodeGroups.jobs.taints[0].value",
        ),
        ("label name part", {P + "nodeGroups": {"jobs": {"labels": {"k" * 64: "x"}}}}, P + "nodeGroups.jobs.labels"),
        (
            "group name",
            {P + "additionalNodeGroups": [{"name": "g" * 41, "instanceTypes": ["m5.xlarge"]}]},
            P + "additionalNodeGroups[0].name",
        ),
        ("namespace name", {P + "workloads": {"namespaces": {"n" * 64: {}}}}, P + "workloads.namespaces"),
        ("cluster name", {P + "clusterName": "c" * 101}, P + "clusterName"),
    ],
)
def test_one_past_the_limit_is_refused(tmp_path, capsys, field, value, key):
    err = refused(capsys, "plan", "--config-file", write(tmp_path, {**BASE, **value}))
    assert f"{key}:" in err, field


UNICODE = "gpu-über-模型-\u200b-😀"


@pytest.mark.parametrize(
    "where, config",
    [
        ("group name", {P + "additionalNodeGroups": [{"name": UNICODE, "instanceTypes": ["m5.xlarge"]}]}),
        (
            "group role",
            {P + "additionalNodeGroups": [{"name": "big", "role": UNICODE, "instanceTypes": ["m5.xlarge"]}]},
        ),
        ("label key", {P + "nodeGroups": {"jobs": {"labels": {UNICODE: "x"}}}}),
        ("label value", {P + "nodeGroups": {"jobs": {"labels": {"team": UNICODE}}}}),
        ("taint key", {P + "nodeGroups": {"jobs": {"taints": [{"key": UNICODE, "effect": "NoSchedule"}]}}}),
        ("instance type", {P + "nodeGroups": {"jobs": {"instanceTypes": ["m5.\u0445large"]}}}),
        ("namespace", {P + "workloads": {"namespaces": {UNICODE: {}}}}),
        ("quota", {P + "workloads": {"namespaces": {"team-a": {"quota": {"requests.cpu": "４"}}}}}),
        ("cluster name", {P + "clusterName": UNICODE}),
        ("region", {"aws:region": "us-wést-2"}),
        ("setting name", {P + "nödeGroups": {}}),
    ],
)
def test_unicode_in_kubernetes_and_aws_names_is_refused_by_key(tmp_path, capsys, where, config):
    for command in ("plan", "check"):
        err = refused(capsys, command, "--config-file", write(tmp_path, {**BASE, **config}))
        assert "ml-platform-eks:" in err or "aws:region" in err, where


def test_unicode_where_aws_allows_it_plans(tmp_path, capsys):
    """AWS tag values may hold any UTF-8 letters; they reach the resources unchanged."""
    path = write(tmp_path, {**BASE, P + "tags": {"owner": "Équipe données 模型"}})
    assert main(["plan", "--config-file", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    vpc = next(r for r in doc["resources"] if r["type"] == "aws:ec2/vpc:Vpc")
    assert vpc["inputs"]["tags"]["owner"] == "Équipe données 模型"


def test_a_10_mb_stack_file_is_refused_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "Pulumi.huge.yaml"
    with path.open("w", encoding="utf-8") as f:
        f.write("config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n")
        line = "# " + "x" * 1021 + "\n"
        for _ in range(10 * 1024):
            f.write(line)
    assert path.stat().st_size > 10 * 10**6
    for command in ("plan", "check"):
        err = refused(capsys, command, "--config-file", str(path))
        # named as the documents name files: outside the project and the working directory, by file name
        assert f"{path.name}: is " in err and str(path) not in err and f"{MAX_CONFIG_BYTES:,}" in err


def test_a_stack_file_just_under_the_limit_plans(tmp_path, capsys):
    path = tmp_path / "Pulumi.big.yaml"
    header = "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n"
    line = "# a long comment line in a generated stack file\n"
    padding = (line * (MAX_CONFIG_BYTES // len(line) + 1))[: MAX_CONFIG_BYTES - len(header) - 1000]
    path.write_text(header + padding, encoding="utf-8")
    assert MAX_CONFIG_BYTES - 2000 < path.stat().st_size <= MAX_CONFIG_BYTES
    assert main(["plan", "--config-file", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodeGroups"]


def test_a_directory_is_not_a_stack_file(tmp_path, capsys):
    err = refused(capsys, "plan", "--config-file", str(tmp_path))
    assert "cannot read the stack file" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_an_endless_device_is_read_only_up_to_the_limit(capsys):
    err = refused(capsys, "check", "--config-file", "/dev/zero")
    assert f"{MAX_CONFIG_BYTES:,}" in err


def test_a_huge_string_value_is_shown_shortened(tmp_path, capsys):
    err = refused(capsys, "plan", "--config-file", write(tmp_path, {**BASE, P + "environment": "x" * 100_000}))
    assert P + "environment:" in err and len(err) < 1000


def test_yaml_alias_expansion_is_bounded(tmp_path, capsys):
    """9 nested levels of 10 aliases: 10^9 values if expanded. Refused from the shared structure alone."""
    lines = [
        "config:",
        "  aws:region: us-west-2",
        "  ml-platform-eks:environment: dev",
        '  other:x0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    lines += [f"  other:x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    path = tmp_path / "Pulumi.bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = refused(capsys, "plan", "--config-file", str(path))
    assert "aliases" in err


def test_modest_yaml_aliases_still_work(tmp_path, capsys):
    """Anchors that share node-group settings are ordinary YAML and stay usable."""
    path = tmp_path / "Pulumi.anchors.yaml"
    path.write_text(
        "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n"
        "  ml-platform-eks:additionalNodeGroups:\n"
        "    - &pool {name: pool-a, instanceTypes: [r5.xlarge], maxSize: 4, labels: {example.com/team: a}}\n"
        "    - {<<: *pool, name: pool-b}\n",
        encoding="utf-8",
    )
    assert main(["plan", "--config-file", str(path), "--json"]) == 0
    names = [g["name"] for g in json.loads(capsys.readouterr().out)["nodeGroups"]]
    assert names[-2:] == ["pool-a", "pool-b"]


@pytest.mark.parametrize(
    "value",
    [
        "{a: 2001-01-01}",
        "!!set {a, b}",
        "{2001-01-01: a, 1: b, null: c}",
        "!!binary aGVsbG8=",
        "[.nan, .inf, -.inf]",
        "[{a: !!set {x}}]",
    ],
)
def test_yaml_types_json_lacks_in_other_namespaces_plan(tmp_path, capsys, value):
    """Settings of other providers (aws:, kubernetes:, ...) are passed through; YAML dates, sets and
    binary in them reach the program as strings and lists, as JSON config can carry them."""
    path = tmp_path / "Pulumi.yamltypes.yaml"
    path.write_text(
        f"config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n  kubernetes:setting: {value}\n",
        encoding="utf-8",
    )
    code = main(["plan", "--config-file", str(path), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["nodeGroups"]


@pytest.mark.parametrize("content", [None, "[" * 100_000 + "]" * 100_000, "{" * 10, '{"a": 1e999999}'])
def test_a_hostile_policy_config_is_refused_by_check(tmp_path, capsys, content):
    """`check --policy-config`: an endless device, deep nesting or broken JSON exit 2 without a traceback."""
    if content is None:
        if not os.path.exists("/dev/zero"):
            pytest.skip("needs /dev/zero")
        path = "/dev/zero"
    else:
        path = str(tmp_path / "policy.json")
        Path(path).write_text(content, encoding="utf-8")
    code = main(["check", "dev", "--policy-config", path])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert "Traceback" not in captured.err
    assert len(captured.err.splitlines()) <= 25


@pytest.mark.parametrize("stack", ["dev.eu-west", "v1.2"])
def test_a_stack_name_eks_cannot_use_needs_a_cluster_name(tmp_path, capsys, stack):
    """The default cluster name is mlp-<stack>; where EKS would refuse it, plan says to set clusterName."""
    path = write(tmp_path, BASE, name=f"Pulumi.{stack}.yaml")
    err = refused(capsys, "plan", "--config-file", path)
    assert P + "clusterName:" in err and "set clusterName" in err
    fixed = write(tmp_path, {**BASE, P + "clusterName": "mlp-dev-eu"}, name=f"Pulumi.{stack}.yaml")
    assert main(["plan", "--config-file", fixed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clusterName"] == "mlp-dev-eu"


@pytest.mark.parametrize("stack", ["dév", "team a"])
def test_a_file_name_pulumi_cannot_use_as_a_stack_name_needs_stack(tmp_path, capsys, stack):
    """Pulumi refuses such a stack name (tokens.ParseStackName); the file name cannot give it, --stack can."""
    path = write(tmp_path, BASE, name=f"Pulumi.{stack}.yaml")
    err = refused(capsys, "plan", "--config-file", path)
    assert f"the stack name {stack!r} is not a Pulumi stack name" in err and "pass --stack NAME" in err
    assert main(["plan", "--config-file", path, "--stack", "dev-eu", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clusterName"] == "mlp-dev-eu"
