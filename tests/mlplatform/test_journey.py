"""A new team's journey (issue 30, "Done when"), in a project `mlplatform init acme-ml` writes: add a p5.48xlarge
EFA training group on a Capacity Block (the docs' own snippet, its `endDate` unquoted as docs/gpu.md writes it),
plan, check, diff and `check --against` the plan from before the edit (the CI change gate), then migrate to
Karpenter and on to EKS Auto Mode step by step as docs/karpenter.md and docs/automode.md say, each step gated by
`check --against` the previous step's plan. No step may exit 2 (the docs' input refused) or 3 (a bug).

What other branches own is left to their tests: what `init` writes for CI (requirements, workflow), and whether a
namespace's LimitRange lets a container use the p5 group."""

from __future__ import annotations

import datetime
import json
import re

import yaml

from mlplatform.cli import main
from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import read_stack_file
from mlplatform_policies import cost as pack_cost
from tests.mlplatform.migrations import DOCS, edit, edits, steps
from tests.mlplatform.test_documented_migrations import AUTO_MODE, FROM_KARPENTER, KARPENTER

# A day the docs' Capacity Block (endDate 2027-01-15) has not ended and Kubernetes 1.35 is in standard support.
DAY = datetime.date(2026, 12, 1)


def training_group() -> str:
    """docs/gpu.md's Capacity Block group, as written there, with `efa: true` (docs/gpu.md, multi-node training)."""
    section = (DOCS / "gpu.md").read_text(encoding="utf-8").split("## Capacity reservations", 1)[1]
    snippet = re.search(r"```yaml\n(.*?)```", section, re.S)[1]
    assert "endDate: 2027-01-15 " in snippet and "instanceTypes: [p5.48xlarge]" in snippet
    return snippet.replace("      gpu: true\n", "      gpu: true\n      efa: true\n", 1)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code not in (2, 3), (argv, err)
    return code, out, err


def test_init_p5_efa_capacity_block_then_karpenter_then_auto_mode(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)
    monkeypatch.setattr(pack_cost, "today", lambda: DAY)
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "init", "acme-ml")[0] == 0
    monkeypatch.chdir(tmp_path / "acme-ml")
    stack = tmp_path / "acme-ml" / "stacks" / "Pulumi.dev.yaml"

    before = tmp_path / "before.json"  # what CI saves from the base branch
    code, out, _ = run(capsys, "plan", "dev", "--json")
    before.write_text(out, encoding="utf-8")

    stack.write_text(
        stack.read_text(encoding="utf-8") + "  ml-platform-eks:additionalNodeGroups:\n" + training_group(),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "plan", "dev")
    assert code == 0 and "train-block" in out and "2027-01-15" in out
    assert run(capsys, "check", "dev")[0] == 0
    code, out, _ = run(capsys, "diff", "dev", "--against", str(before), "--json")
    groups = {g["name"]: g["action"] for g in json.loads(out)["nodeGroups"]}
    assert groups.pop("train-block") == "create" and set(groups.values()) == {"same"}
    # The gate on a stack with an EFA group (the efa device plugin's chart is v0.5.30): it used to exit 3.
    code, out, _ = run(capsys, "check", "dev", "--against", str(before), "--json")
    assert code == 0 and json.loads(out)["passed"]

    # Node groups -> Karpenter -> Auto Mode, each documented edit gated against the step before.
    documented = [e for doc in (KARPENTER, FROM_KARPENTER) for step in steps(*doc) for e in edits(step)]
    documented.append(edits(steps(*AUTO_MODE)[-1])[0])  # "... as in the node-group migration": its last step
    assert len(documented) == 6
    cfg = read_stack_file(stack)
    for n, sentence in enumerate(documented):
        previous = tmp_path / f"step-{n}.json"
        previous.write_text(run(capsys, "plan", "dev", "--json")[1], encoding="utf-8")
        cfg = edit(cfg, sentence)
        stack.write_text(yaml.safe_dump({"config": cfg}, sort_keys=False), encoding="utf-8")
        code, out, _ = run(capsys, "check", "dev", "--against", str(previous), "--json")
        assert code == 0, (sentence, [v["message"] for v in json.loads(out)["violations"]])
        if n == 2:  # Auto Mode's pools added next to Karpenter's: each under its own name
            code, out, _ = run(capsys, "diff", "dev", "--against", str(previous))
            assert "Karpenter NodePools" in out and "EKS Auto Mode NodePools" in out

    code, out, _ = run(capsys, "plan", "dev", "--json")
    doc = json.loads(out)
    assert doc["provisioner"] == "autoMode" and [g["name"] for g in doc["nodeGroups"]] == []
    assert "train-block-auto" in {p["name"] for p in doc["nodePools"]}
