"""`mlplatform place` with ResourceClaimTemplates: the shipped claims example on the shared-GPU example stack."""

from __future__ import annotations

import json

from mlplatform_core.model.config import parse, read_stack_file
from mlplatform_core.model.layout import build_layout
from tests.conftest import ROOT
from tests.mlplatform.conftest import EXAMPLES, run_place, verdicts

STACK = ROOT / "examples" / "stacks" / "Pulumi.shared-gpus.yaml"


def test_each_gpu_job_of_the_claims_example_lands_only_where_its_way_is_served(capsys):
    code, out, err = run_place(capsys, "--config-file", str(STACK), "-f", str(EXAMPLES / "gpu-claims.yaml"), "--json")
    assert code == 0, err
    v = verdicts(json.loads(out))
    reach = {pod: {g for g, r in groups.items() if r["schedulable"]} for pod, groups in v.items()}
    allocation = {g.name: g.gpu_allocation for g in build_layout(parse(read_stack_file(STACK)), "shared-gpus").groups}
    way = {"dra": ("Job/train-whole-gpu", "Job/notebook-mig-1g-10gb"), "devicePlugin": ("Job/train-device-plugin",)}
    assert reach["Job/notebook-mig-1g-10gb"] == ({"mig"} if allocation["mig"] == "dra" else set())
    assert reach["Job/train-whole-gpu"] == ({"gpu"} if allocation["gpu"] == "dra" else set())
    assert reach["Job/train-device-plugin"] == ({"gpu"} if allocation["gpu"] == "devicePlugin" else set())
    for group in ("gpu", "mig"):
        for pod in way["devicePlugin" if allocation[group] == "dra" else "dra"]:
            why = " ".join(v[pod][group]["reasons"])
            assert f"does not run on the nodes of {group} (gpuAllocation: {allocation[group]})" in why, why
