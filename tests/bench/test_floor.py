"""bench/floor.py: the SDK floor replays every invoke and registration of a real run through the public SDK
alone (its own mocks), and imports nothing of this project (engine, settings model, layout, components)."""

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
ours = ("pydantic", "rich", "mlplatform")
print(sorted(m for m in sys.modules if m.startswith(ours)))
print("pulumi.runtime.mocks" in sys.modules)
"""


def test_the_floor_replays_the_run_through_the_public_sdk_alone(tmp_path):
    recording = tmp_path / "dev.json"
    subprocess.run([sys.executable, str(FLOOR), "record", "--stack", "dev", str(recording)], cwd=ROOT, check=True)
    doc = json.loads(recording.read_text())
    resources = [r for program in doc["programs"] for r in program["resources"]]
    assert len(doc["programs"]) == 2  # dev deploys the cluster program, then kubernetes-layer/
    assert len(resources) > 80 and any(m.startswith("pulumi_aws.ec2") for m in doc["modules"])
    assert {r["type"] for r in resources} >= {"eks:index:Cluster", "aws:eks/nodeGroup:NodeGroup"}
    assert {r["type"] for r in doc["programs"][1]["resources"]} >= {"kubernetes:helm.sh/v3:Release"}
    assert any(p["invokes"] for p in doc["programs"])  # the invokes the program made, replayed too
    # The floor refuses (exit != 0) to finish if its registrations differ from the recording or a module is missing.
    script = REPLAY_AND_LIST_MODULES.format(floor=str(FLOOR))
    proc = subprocess.run(
        [sys.executable, "-c", script, str(recording)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-2:] == ["[]", "True"]
