"""`check --against` (the CI change gate) on every shipped stack and example: against its own plan, and against the
plan of its previous Kubernetes minor. Exit 3 is a bug anywhere; a stack with a chart whose version is not a
Kubernetes minor (efa-device-plugin v0.5.30, a MIG manager's v26...) must compare like any other."""

from __future__ import annotations

import json

import pytest
import yaml

from mlplatform.cli import main
from mlplatform_core.model.eks_versions import today, version_error
from mlplatform_core.model.resource_types import NODE_GROUP
from tests.conftest import ROOT

P = "ml-platform-eks:"
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
# broken.yaml is the example of refused configuration (exit 2 by design: tests/mlplatform/test_invalid_configs.py).
EXAMPLES = sorted(p for p in (ROOT / "examples" / "stacks").glob("Pulumi.*.yaml") if p.name != "Pulumi.broken.yaml")


def _name(path) -> str:
    return path.name.removeprefix("Pulumi.").removesuffix(".yaml")


def _args(path) -> list[str]:
    """A shipped stack by its name (the project's file and policy config), an example by its file."""
    return (
        [_name(path)] if path.parent.name == "stacks" and path.parent.parent == ROOT else ["--config-file", str(path)]
    )


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _previous_minor(path, tmp_path) -> tuple[str, str] | None:
    """The stack's file at its previous Kubernetes minor (named as the stack), or None when EKS no longer
    creates clusters on that minor."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    major, minor = str(raw["config"][P + "kubernetesVersion"]).split(".")
    previous = f"{major}.{int(minor) - 1}"
    if version_error(previous, today()) is not None:
        return None
    raw["config"][P + "kubernetesVersion"] = previous
    tmp_path.mkdir()
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return previous, str(out)


@pytest.mark.parametrize("path", STACKS + EXAMPLES, ids=_name)
def test_check_against_its_own_plan_and_its_previous_minor(path, tmp_path, capsys):
    code, out, err = _run(capsys, ["plan", *_args(path), "--json"])
    assert code == 0, err
    before = tmp_path / "before.json"
    before.write_text(out, encoding="utf-8")

    # Against itself: nothing changes, so the change rules add nothing; the verdict is the pack's.
    code, out, err = _run(capsys, ["check", *_args(path), "--against", str(before), "--json"])
    doc = json.loads(out)
    assert code == (1 if doc["mandatory"] else 0), err
    assert not [v for v in doc["violations"] if v["policy"].startswith("change-")], doc["violations"]
    pack = sorted((v["policy"], v["resourceName"]) for v in doc["violations"])

    # Against the plan of the previous minor: a one-minor upgrade, which EKS allows (no version violation).
    previous = _previous_minor(path, tmp_path / "previous")
    if previous is None:
        pytest.skip(f"EKS no longer creates clusters on the minor before {_name(path)}'s")
    minor, file = previous
    older = tmp_path / "older.json"
    code, out, err = _run(capsys, ["plan", "--config-file", file, "--stack", _name(path), "--json"])
    assert code == 0, err
    assert json.loads(out)["kubernetesVersion"] == minor
    older.write_text(out, encoding="utf-8")
    code, out, err = _run(capsys, ["check", *_args(path), "--against", str(older), "--json"])
    doc = json.loads(out)
    assert code == (1 if doc["mandatory"] else 0), err
    changes = [v for v in doc["violations"] if v["policy"].startswith("change-")]
    assert sorted((v["policy"], v["resourceName"]) for v in doc["violations"] if v not in changes) == pack
    # The upgrade is one minor (no version violation); every node group rolls to the new minor, advisory.
    assert {v["policy"] for v in changes} <= {"change-node-group-roll"}, changes
    groups = [r["name"] for r in json.loads(before.read_text())["resources"] if r["type"] == NODE_GROUP]
    assert sorted(v["resourceName"] for v in changes if v["resourceType"] == NODE_GROUP) == sorted(groups)
