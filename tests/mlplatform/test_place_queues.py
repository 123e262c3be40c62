"""`mlplatform place` on a stack with teams: the PyTorchJob of a team namespace names its queue, flavor and the
group it lands on, in the console and in --json."""

from __future__ import annotations

import json

from tests.conftest import ROOT
from tests.mlplatform.conftest import run_place

STACK = ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"
MANIFEST = ROOT / "examples" / "manifests" / "team-pytorchjob.yaml"


def test_place_names_queue_flavor_and_landing_group(capsys):
    code, out, err = run_place(capsys, "--config-file", str(STACK), "-f", str(MANIFEST), "--json")
    assert code == 0, err
    pods = json.loads(out)["pods"]
    queue = pods[0]["queue"]
    assert (queue["localQueue"], queue["clusterQueue"], queue["flavors"], queue["admitted"]) == (
        "vision",
        "vision",
        ["gpu"],
        True,
    )
    assert all(p["ranking"] == ["gpu"] for p in pods)
    code, out, err = run_place(capsys, "--config-file", str(STACK), "-f", str(MANIFEST))
    assert code == 0, err
    assert "LocalQueue vision/vision -> ClusterQueue vision" in out
    assert "flavor gpu" in out and "lands on: gpu" in out


def test_a_stack_without_teams_answers_no_queue(capsys):
    code, out, err = run_place(capsys, "dev", "-f", str(ROOT / "examples" / "manifests" / "pytorchjob.yaml"), "--json")
    assert code == 0, err
    assert all(p["queue"] is None for p in json.loads(out)["pods"])
