"""MIG needs NFD, in the plan of the shared-GPUs example (tests/core/model/addons/test_gpu_operator_nfd.py: the
operator's labels alone)."""

from __future__ import annotations

import pytest
import yaml

from mlplatform.plan import build_plan
from mlplatform.reports.plan_document import plan_document
from mlplatform_core.model.addons import gpu_agents, nfd
from mlplatform_core.model.scheduling import GPU_PRESENT_LABEL
from tests.conftest import ROOT

SHARED = ROOT / "examples" / "stacks" / "Pulumi.shared-gpus.yaml"
RENDERED = ROOT / "tests" / "data" / "rendered" / "shared-gpus" / "gpu-operator.yaml"


@pytest.fixture(scope="module")
def shared():
    return build_plan(None, str(SHARED))


def test_the_mig_path_runs_nfd_whose_worker_config_publishes_a_label_the_operator_recognises(shared):
    values = gpu_agents.gpu_operator_values(shared.layout)
    assert values["nfd"] == {"enabled": True}
    assert "config" not in values["node-feature-discovery"]["worker"]  # the chart's PCI config stands
    # As helm renders the release (tests/data/rendered, scripts/generators/render_charts.py): the worker's pci source.
    docs = [d for d in yaml.safe_load_all(RENDERED.read_text()) if d]
    (conf,) = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("worker-conf")]
    pci = yaml.safe_load(conf["data"]["nfd-worker.conf"])["sources"]["pci"]
    assert {"0300", "0302"} & set(pci["deviceClassWhitelist"])  # NVIDIA GPUs are 3D (0302) or VGA (0300)
    published = nfd.published_pci_label(tuple(pci["deviceLabelFields"]))
    assert published == "feature.node.kubernetes.io/pci-10de.present"
    assert nfd.operator_recognises({published: "true"})


def test_every_gpu_node_of_the_stack_gets_the_nfd_worker_and_keeps_gpu_present(shared):
    """The placement proof, on the rendered worker: it lands on every GPU node (their taints tolerated) and on no
    other; a GPU node's labels as the operator then sees them keep gpu.present=true."""
    doc = plan_document(shared)
    (row,) = [r for r in doc["placement"]["matrix"]["rows"] if r["profile"] == nfd.WORKER]
    landed = {g for g, cell in row["cells"].items() if cell["schedulable"]}
    gpu = {name for name, _ in nfd.gpu_node_sources(shared.layout)}
    assert landed == gpu == {"gpu", "mig"}
    assert doc["placement"]["ok"] is True
    for _, g in nfd.gpu_node_sources(shared.layout):
        assert g.labels[GPU_PRESENT_LABEL] == "true"
        # Without NFD's label the operator would clear gpu.present (and the MIG manager never runs): the reason.
        assert not nfd.operator_recognises(dict(g.labels))
        assert nfd.operator_recognises({**g.labels, nfd.published_pci_label(): "true"})
    # The MIG manager is deployed by gpu.present=true, which now holds on the MIG group.
    placement = gpu_agents.mig_manager_placement(shared.layout)
    terms = placement["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {"key": GPU_PRESENT_LABEL, "operator": "In", "values": ["true"]} in terms[0]["matchExpressions"]


def test_nfd_follows_the_stacks_image_registry():
    layout = build_plan(None, str(SHARED)).layout
    values = gpu_agents.gpu_operator_values(layout, "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn")
    assert values["node-feature-discovery"]["image"] == {
        "repository": "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/nfd/node-feature-discovery"
    }
