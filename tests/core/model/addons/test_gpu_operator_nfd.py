"""MIG needs NFD: the GPU operator recognises GPU nodes only by NFD's PCI labels (its pinned source, extracted into
data/gpu_operator_labels.json by scripts/generators/generate_gpu_operator_labels.py), and clears
`nvidia.com/gpu.present` on a node that has the label without them (controllers/nodelabeling_controller.go
labelGPUNodes)."""

from __future__ import annotations

import json

import pytest

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model.addons import nfd
from mlplatform_core.model.scheduling import GPU_PRESENT_LABEL
from tests.conftest import ROOT
from tests.scripts.test_generators import load


def test_the_extract_is_of_the_operator_version_the_toolkit_pins():
    """Bumping the GPU operator fails here until the labels are extracted again from the new release's source."""
    labels = nfd.operator_labels()
    table = json.loads((ROOT / "mlplatform_core" / "data" / "addon_versions.json").read_text())["minors"]
    pinned = {row[versions.GPU_OPERATOR]["chart"] for row in table.values() if versions.GPU_OPERATOR in row}
    assert pinned == {labels["version"]}
    (source,) = labels["source"]
    assert (source["repo"], source["path"]) == ("NVIDIA/gpu-operator", "controllers/state_manager.go")
    assert labels["commonGPULabel"] == {GPU_PRESENT_LABEL: "true"}
    assert "feature.node.kubernetes.io/pci-10de.present" in labels["gpuNodeLabels"]


def test_the_generator_reads_the_state_managers_labels():
    gen = load("generate_gpu_operator_labels")
    source = """
const (
	commonGPULabelKey                   = "nvidia.com/gpu.present"
	commonGPULabelValue                 = "true"
	nfdLabelPrefix                      = "feature.node.kubernetes.io/"
)
var gpuNodeLabels = map[string]string{
	"feature.node.kubernetes.io/pci-10de.present":      "true",
	"feature.node.kubernetes.io/pci-0302_10de.present": "true",
}
"""
    found = gen.parse(source)
    assert found["gpuNodeLabels"] == {
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "feature.node.kubernetes.io/pci-0302_10de.present": "true",
    }
    assert found["nfdLabelPrefix"] == "feature.node.kubernetes.io/"
    with pytest.raises(SystemExit, match="gpuNodeLabels"):
        gen.parse(source.replace("gpuNodeLabels", "otherLabels"))
