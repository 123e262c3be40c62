"""gpuAllocation: dra through the real program (offline engine): the NVIDIA DRA driver's release, namespace and
LimitRange on the training example's `train` group, the device plugin's release kept for the Capacity Block group."""

from __future__ import annotations

import yaml

from mlplatform.plan import build_plan
from tests.conftest import ROOT

RELEASE = "kubernetes:helm.sh/v3:Release"


def test_the_training_example_with_dra_creates_the_driver_release_and_keeps_the_plugin_off_its_nodes(tmp_path):
    doc = yaml.safe_load((ROOT / "examples" / "stacks" / "Pulumi.training.yaml").read_text())
    train = doc["config"]["ml-platform-eks:additionalNodeGroups"][0]
    train.update(gpuAllocation="dra", minSize=1)
    stack = tmp_path / "Pulumi.training.yaml"
    stack.write_text(yaml.safe_dump(doc, sort_keys=False))
    p = build_plan(None, str(stack))
    releases = {r.inputs["name"]: r for r in p.run.resources if r.type == RELEASE}
    dra = releases["nvidia-dra-driver-gpu"]
    assert dra.inputs["namespace"] == "nvidia-dra-driver-gpu" and dra.inputs["version"] == "25.12.0"
    assert dra.inputs["repositoryOpts"]["repo"] == "https://helm.ngc.nvidia.com/nvidia"
    expressions = dra.inputs["values"]["kubeletPlugin"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"]
    assert {"key": "mlplatform.io/node-group", "operator": "In", "values": ["train"]} in expressions
    limits = [r for r in p.run.resources if r.type == "kubernetes:core/v1:LimitRange"]
    assert any(r.inputs["metadata"]["namespace"] == "nvidia-dra-driver-gpu" for r in limits)
    # The device plugin stays for the Capacity Block group only: its selector label is off the dra group.
    groups = {r.name: r for r in p.run.resources if r.type == "aws:eks/nodeGroup:NodeGroup"}
    assert "mlplatform.io/nvidia-device-plugin" not in groups["train"].inputs["labels"]
    assert groups["train-block"].inputs["labels"]["mlplatform.io/nvidia-device-plugin"] == "true"
    assert "nvidia-device-plugin" in releases
