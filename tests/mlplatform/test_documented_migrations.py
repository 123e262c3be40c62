"""Every step of every documented migration passes `check` on its own stack: node groups -> Karpenter
(docs/karpenter.md), node groups -> Auto Mode and Karpenter -> Auto Mode (docs/automode.md), keep flags on and
off, and the documented roll-backs. Each step's stack is the shipped dev (and prod) stack edited as the docs'
own sentences say (tests/mlplatform/migrations.py), so the walk fails when the docs drift."""

from __future__ import annotations

import json

import pytest
import yaml

from mlplatform.cli import main
from tests.conftest import stack_config
from tests.mlplatform.migrations import P, edit, edits, rollback, steps

KARPENTER = ("karpenter.md", "Migrating a stack from node groups to Karpenter without downtime")
AUTO_MODE = ("automode.md", "Migrating a stack from node groups to Auto Mode without downtime")
FROM_KARPENTER = ("automode.md", "Migrating a stack from Karpenter to Auto Mode without downtime")


def walk(cfg: dict, doc: str, heading: str) -> list[tuple[str, dict]]:
    """(label, config) of each state the migration's steps leave the stack in."""
    out = []
    for n, step in enumerate(steps(doc, heading), 1):
        for i, sentence in enumerate(edits(step)):
            cfg = edit(cfg, sentence)
            out.append((f"{heading.split(' without')[0].removeprefix('Migrating a stack from ')} {n}.{i + 1}", cfg))
    return out


def _section(cfg: dict, name: str) -> dict:
    return cfg.get(P + name) or {}


def _back(cfg: dict) -> dict:
    """A roll-back's config, `provisioner: nodeGroups` read as the default it is."""
    return {k: v for k, v in cfg.items() if (k, v) != (P + "provisioner", "nodeGroups")}


def _pools_sized(cfg: dict) -> list[str]:
    return [g for g, s in cfg[P + "nodeGroups"].items() if g != "initial" and ({"minSize", "desiredSize"} & set(s))]


def documented_states(stack: str) -> list[tuple[str, dict]]:
    """Every state of every documented migration from the shipped stack, with what each must hold (so a walk
    that edits nothing fails here, not silently)."""
    start = stack_config(stack)
    to_karpenter = walk(start, *KARPENTER)
    assert [label for label, _ in to_karpenter] == ["node groups to Karpenter 1.1", "node groups to Karpenter 3.1"]
    (_, k1), (_, k3) = to_karpenter
    assert k1[P + "provisioner"] == "karpenter" and _section(k1, "karpenter") == {"keepNodeGroups": True}
    assert k1[P + "nodeGroups"] == start[P + "nodeGroups"]  # step 1 keeps every group's settings
    assert "keepNodeGroups" not in _section(k3, "karpenter") and not _pools_sized(k3)
    assert k3[P + "nodeGroups"]["initial"] == start[P + "nodeGroups"]["initial"]
    assert _back(edit(k1, rollback(*KARPENTER))) == start  # the roll-back is the stack we started from

    to_auto_mode = walk(start, *AUTO_MODE)
    (_, a1), (_, a4) = to_auto_mode
    assert a1[P + "provisioner"] == "autoMode" and _section(a1, "autoMode") == {"keepNodeGroups": True}
    assert a1[P + "nodeGroups"] == start[P + "nodeGroups"]
    assert P + "autoMode" not in a4 and "initial" not in a4[P + "nodeGroups"] and not _pools_sized(a4)
    assert _back(edit(a1, rollback(*AUTO_MODE))) == start

    onwards = walk(k3, *FROM_KARPENTER)
    (_, b1), (_, b3), (_, b4) = onwards
    assert _section(b1, "autoMode") == {
        "keepKarpenter": True,
        "nodePoolSuffix": "-auto",
        "initialGroup": "managedNodeGroup",
    }
    assert _section(b1, "karpenter") == _section(k3, "karpenter") and b1[P + "provisioner"] == "autoMode"
    assert P + "karpenter" not in b3 and _section(b3, "autoMode") == {
        "nodePoolSuffix": "-auto",
        "initialGroup": "managedNodeGroup",
    }
    assert _section(b4, "autoMode") == {"nodePoolSuffix": "-auto", "initialGroup": "systemPool", "keepNodeGroups": True}
    # "... with keepNodeGroups, as in the node-group migration": its last step hands the initial group over.
    b5 = edit(b4, edits(steps(*AUTO_MODE)[-1])[0])
    assert "keepNodeGroups" not in _section(b5, "autoMode") and "initial" not in b5[P + "nodeGroups"]
    return [*to_karpenter, *to_auto_mode, *onwards, ("Karpenter to Auto Mode 3.2, then node groups to Auto Mode 4", b5)]


STATES = [(stack, label, cfg) for stack in ("dev", "prod") for label, cfg in documented_states(stack)]


@pytest.mark.parametrize(("stack", "label", "cfg"), STATES, ids=[f"{s}: {label}" for s, label, _ in STATES])
def test_each_documented_step_passes_check(stack, label, cfg, tmp_path, capsys):
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}, sort_keys=False), encoding="utf-8")
    code = main(["check", "--config-file", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, (label, err, [v["message"] for v in json.loads(out)["violations"] if v["level"] == "mandatory"])
    assert json.loads(out)["passed"]
