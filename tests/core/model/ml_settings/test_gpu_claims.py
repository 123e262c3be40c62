"""The claim-based `gpuResources` entry of DRA groups: the ResourceClaimTemplate and pod fields users write, and
what MLRun and Polyaxon cannot do."""

from __future__ import annotations

import dataclasses

from mlplatform_core.model.config import parse, read_stack_file
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.ml_settings.gpu_resources import gpu_resources
from mlplatform_core.placement.admission import ClusterObjects
from mlplatform_core.placement.filters import place_admitted
from mlplatform_core.placement.manifests import ManifestStream
from mlplatform_core.placement.schema import KubernetesSchema
from mlplatform_core.placement.templates import node_templates
from tests.conftest import ROOT


def shared_gpus(allocation: str):
    layout = build_layout(parse(read_stack_file(ROOT / "examples/stacks/Pulumi.shared-gpus.yaml")), "shared-gpus")
    groups = tuple(dataclasses.replace(g, gpu_allocation=allocation) if g.gpu else g for g in layout.groups)
    return dataclasses.replace(layout, groups=groups)


def test_a_dra_group_exports_its_claim_template_and_the_pod_fields_that_use_it():
    out = gpu_resources(shared_gpus("dra"))
    mig = out["mig"]
    assert (mig["allocation"], mig["deviceClass"], mig["perNode"], mig["migProfile"]) == (
        "dra",
        "mig.nvidia.com",
        7,
        "1g.10gb",
    )
    assert mig["resourceClaimTemplate"]["metadata"]["name"] == "mig-gpu"
    assert mig["resourceClaimTemplate"]["spec"]["spec"]["devices"]["requests"] == [
        {
            "name": "gpu",
            "exactly": {
                "deviceClassName": "mig.nvidia.com",
                "selectors": [{"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}}],
            },
        }
    ]
    assert mig["podSpec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimTemplateName": "mig-gpu"}]
    assert mig["podSpec"]["tolerations"] == [
        {"key": "nvidia.com/mig-1g.10gb", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    assert "MLRun functions cannot use a ResourceClaim" in mig["mlrun"]
    assert "no resourceClaims" in mig["polyaxon"]
    assert "resource" not in mig  # no extended resource to request there
    assert out["gpu"]["deviceClass"] == "gpu.nvidia.com" and out["gpu"]["perNode"] == 1


def test_device_plugin_groups_keep_their_entry():
    assert gpu_resources(shared_gpus("devicePlugin"))["mig"] == {
        "resource": "nvidia.com/mig-1g.10gb",
        "perNode": 7,
        "sharing": "mig-mixed",
        "migProfile": "1g.10gb",
        "mlrun": "fn.with_limits(gpus=1, gpu_type='nvidia.com/mig-1g.10gb')",
    }


def test_a_pod_written_from_the_export_lands_on_its_group_only():
    import yaml

    layout = shared_gpus("dra")
    templates = node_templates(layout)
    for name, entry in gpu_resources(layout).items():
        pod_spec = dict(entry["podSpec"])
        pod_spec["containers"] = [{"name": "c", "image": "x", **pod_spec["containers"][0]}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": pod_spec}
        text = yaml.safe_dump_all([entry["resourceClaimTemplate"], pod])
        [m] = ManifestStream(text, KubernetesSchema.for_version("1.35"))  # kubectl apply would take both
        assert place_admitted(m.admit(ClusterObjects()), templates).reachable == (name,)
