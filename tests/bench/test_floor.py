"""bench/floor.py: the SDK floor replays every registration of a real run through the same engine and mocks,
and imports no program logic (settings model, layout, placement, components)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

FLOOR = ROOT / "bench" / "floor.py"
REPLAY_AND_LIST_MODULES = """
import runpy, sys
sys.argv = ["floor.py", "replay", sys.argv[1]]
try:
    runpy.run_path({floor!r}, run_name="__main__")
except SystemExit as exit:
    assert not exit.code, exit.code
logic = ("pydantic", "mlplatform_program", "rich", "mlplatform_core.model.config", "mlplatform_core.model.layout",
         "mlplatform_core.placement")
print(sorted(m for m in sys.modules if m.startswith(logic)))
print("mlplatform.engine.mocks" in sys.modules)
"""


def test_the_floor_replays_the_run_with_the_same_imports_and_engine_and_no_program_logic(tmp_path):
    recording = tmp_path / "dev.json"
    subprocess.run([sys.executable, str(FLOOR), "record", "--stack", "dev", str(recording)], cwd=ROOT, check=True)
    doc = json.loads(recording.read_text())
    resources = [r for program in doc["programs"] for r in program["resources"]]
    assert len(doc["programs"]) == 2  # dev deploys the cluster program, then kubernetes-layer/
    assert len(resources) > 80 and any(m.startswith("pulumi_aws.ec2") for m in doc["modules"])
    assert {r["type"] for r in resources} >= {"eks:index:Cluster", "aws:eks/nodeGroup:NodeGroup"}
    assert {r["type"] for r in doc["programs"][1]["resources"]} >= {"kubernetes:helm.sh/v3:Release"}
    # The floor refuses (exit != 0) to finish if its registrations differ from the recording or a module is missing.
    script = REPLAY_AND_LIST_MODULES.format(floor=str(FLOOR))
    proc = subprocess.run(
        [sys.executable, "-c", script, str(recording)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-2:] == ["[]", "True"]
