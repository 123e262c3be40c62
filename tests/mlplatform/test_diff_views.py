"""What `mlplatform diff` prints: Auto Mode's pools under Auto Mode's name (as `plan` titles them), and no empty
`order` for changes that have none (only a replacement is ordered)."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from mlplatform.cli import main
from tests.conftest import stack_config

P = "ml-platform-eks:"


@pytest.fixture(scope="module")
def automode(tmp_path_factory):
    """The dev-automode stack's plan, and the stack file with the jobs pool's maxSize raised (an update)."""
    tmp = tmp_path_factory.mktemp("automode")
    cfg = stack_config("dev-automode")
    cfg[P + "nodeGroups"]["jobs"]["maxSize"] = 12
    after = tmp / "Pulumi.dev-automode.yaml"
    after.write_text(yaml.safe_dump({"config": cfg}), encoding="utf-8")
    assert main(["plan", "--config-file", str(after), "--json"]) == 0
    return tmp, after


def _plan(capsys, *argv) -> dict:
    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _diff(capsys, after, before: dict, tmp, *fmt) -> str:
    path = tmp / "before.json"
    path.write_text(json.dumps(before), encoding="utf-8")
    assert main(["diff", "--config-file", str(after), "--against", str(path), *fmt]) == 0
    return capsys.readouterr().out


def test_auto_mode_pools_are_named_as_auto_mode_pools(automode, capsys):
    tmp, after = automode
    capsys.readouterr()
    before = _plan(capsys, "dev-automode")
    doc = json.loads(_diff(capsys, after, before, tmp, "--json"))
    assert {p["name"]: (p["provisioner"], p["action"]) for p in doc["nodePools"]}["jobs"] == ("autoMode", "update")
    assert {p["provisioner"] for p in doc["nodePools"]} == {"autoMode"}
    for fmt in ([], ["--format", "markdown"]):
        out = _diff(capsys, after, before, tmp, *fmt)
        assert "EKS Auto Mode NodePools" in out and "Karpenter" not in out, fmt


def test_a_change_without_a_replacement_prints_no_order(automode, capsys):
    tmp, after = automode
    capsys.readouterr()
    before = copy.deepcopy(_plan(capsys, "dev-automode"))
    # BEFORE without the jobs pool's NodePool: the update (its maxSize) now creates it, and nothing else.
    before["resources"] = [
        r for r in before["resources"] if not r["type"].endswith(":NodePool") or r["name"] != "nodepool-jobs"
    ]
    doc = json.loads(_diff(capsys, after, before, tmp, "--json"))
    assert [(r["name"], r["action"]) for r in doc["resources"]] == [("nodepool-jobs", "create")]
    for fmt in ([], ["--format", "markdown"]):
        out = _diff(capsys, after, before, tmp, *fmt)
        assert "order" not in out, (fmt, out)
