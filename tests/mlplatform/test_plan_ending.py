"""How the plan ends and what it marks: one summary line, broken placement invariants repeated at the end,
and the values that only exist after deploy shown as placeholders (and listed in --json)."""

from __future__ import annotations

import json

import pytest

from mlplatform.cli import main
from tests.conftest import STACKS


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def plan_both(capsys, *argv) -> tuple[dict, str]:
    code, out, err = run_cli(capsys, "plan", *argv, "--json")
    assert code == 0, err
    doc = json.loads(out)
    code, out, err = run_cli(capsys, "plan", *argv)
    assert code == 0, err
    return doc, out


def without_jobs_group(tmp_path):
    """dev without its on-demand jobs group: MLRun's jobs and Nuclio's functions reach no group."""
    text = (STACKS / "Pulumi.dev.yaml").read_text()
    text = text.replace("    jobs:\n", "    jobs:\n      enabled: false\n", 1)
    path = tmp_path / "Pulumi.nojobs.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("stack", ["dev", "dev-karpenter", "dev-automode"])
def test_the_plan_ends_with_one_summary_line(stack, capsys):
    doc, out = plan_both(capsys, stack)
    last = out.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"{stack}: {len(doc['nodeGroups'])} node group")
    assert f"{doc['resourceCount']} resources" in last
    assert "placement: invariants hold" in last
    assert "policy: not run" in last and f"`mlplatform check {stack}` runs it" in out  # plan does not run the pack
    assert len(last) <= 100  # whole in a 100-column log, for `| tail -1`
    if doc["nodePools"]:
        assert f", {len(doc['nodePools'])} NodePools" in last


def test_broken_placement_invariants_are_repeated_at_the_end(tmp_path, capsys):
    path = without_jobs_group(tmp_path)
    doc, out = plan_both(capsys, "--config-file", str(path))
    errors = doc["placement"]["errors"]
    assert errors and doc["placement"]["ok"] is False
    ending = out[out.index("Stack outputs:") :]  # after every table, not only beside the matrix
    assert f"{len(errors)} placement invariants broken:" in ending
    for e in errors:
        assert f"error {e['profile']}: {e['message']}" in ending
    assert ending.rstrip().splitlines()[-1].startswith(f"nojobs: 4 node groups, {doc['resourceCount']} resources")
    assert f"placement: {len(errors)} invariants BROKEN" in ending.rstrip().splitlines()[-1]


def test_broken_placement_keeps_the_plan_exit_code_and_shows_in_the_multi_stack_summary(tmp_path, capsys):
    path = without_jobs_group(tmp_path)
    code, out, _ = run_cli(capsys, "plan", "--config-file", str(path))
    assert code == 0  # as before: plan shows the verdict, `check` fails on it (a mandatory rule)
    code, out, _ = run_cli(capsys, "check", "--config-file", str(path), "--json")
    assert code == 1 and "placement-invariants" in {v["policy"] for v in json.loads(out)["violations"]}
    code, out, _ = run_cli(capsys, "plan", "dev", "prod")
    summary = out[out.index("mlplatform plan: 2 stacks") :]
    assert summary.count("placement: invariants hold") == 2


def test_values_made_up_offline_are_placeholders_in_the_plan(capsys):
    doc, out = plan_both(capsys, "dev")
    stand_ins = doc["exports"]["nodeGroups"]
    assert stand_ins["initial"].startswith("initial-") and len(stand_ins["initial"]) == len("initial-") + 7
    for physical in stand_ins.values():
        assert physical not in out  # never shown as if it were the real name
    outputs = out[out.index("Stack outputs:") :]
    assert "  nodeGroups:\n" + "".join(f"    {g}={g}-<suffix>\n" for g in stand_ins) in outputs  # wider than 100
    assert "autoscalerRoleArn: arn:aws:iam::<account-id>:role/platform-autoscaler-<suffix>" in outputs
    assert "clusterStack: <organization>/ml-platform-eks/dev" in outputs
    assert "123456789012" not in out and "known only once deployed" in outputs


def resolve(doc, pointer: str):
    """RFC 6901."""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


@pytest.mark.parametrize("stack", ["dev", "dev-karpenter"])
def test_plan_json_lists_the_placeholders_where_they_are(stack, capsys):
    code, out, _ = run_cli(capsys, "plan", stack, "--json")
    assert code == 0
    doc = json.loads(out)
    listed = {p["pointer"]: p for p in doc["placeholders"]}
    for p in doc["placeholders"]:
        assert resolve(doc, p["pointer"]) == p["value"] != p["atDeploy"]  # the recorded value is kept
        assert "<" in p["atDeploy"]
    for group, physical in doc["exports"]["nodeGroups"].items():
        assert listed[f"/exports/nodeGroups/{group}"]["atDeploy"] == f"{group}-<suffix>"
        assert listed[f"/exports/nodeGroups/{group}"]["value"] == physical
    assert listed["/exports/oidcProviderUrl"]["atDeploy"].endswith("/id/<oidc-id>")
    assert not any(p.startswith("/resources/") for p in listed)  # inputs repeat them; not listed
    assert doc["exports"]["clusterName"] == f"mlp-{stack}" and "/exports/clusterName" not in listed  # real
