"""Claims in the proof: a pod's ResourceClaims matched against what each group's nodes publish under the NVIDIA
DRA driver, and nvidia.com/gpu refused where the device plugin does not run."""

from __future__ import annotations

from functools import cache

import pytest

from mlplatform_core.model.config import parse, read_stack_file
from mlplatform_core.model.layout import Layout, build_layout
from mlplatform_core.placement.admission import ClusterObjects
from mlplatform_core.placement.filters import PodPlacement, place, place_admitted
from mlplatform_core.placement.manifests import ManifestError, ManifestStream
from mlplatform_core.placement.pods import Pod
from mlplatform_core.placement.schema import KubernetesSchema
from mlplatform_core.placement.templates import NodeTemplate, node_templates
from tests.conftest import MANIFEST_EXAMPLES, ROOT

SHARED_GPUS = ROOT / "examples" / "stacks" / "Pulumi.shared-gpus.yaml"
TOLERATE_GPUS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/mig-1g.10gb", "operator": "Exists", "effect": "NoSchedule"},
]


def _on_dra(group: dict) -> dict:
    """A GPU group's settings with `gpuAllocation: dra`, as a user would write them: one warm node (the Cluster
    Autoscaler cannot grow a DRA group from zero), no time slicing and no MIG strategy (both refused with dra)."""
    group = {**group, "gpuAllocation": "dra", "minSize": max(1, group.get("minSize", 0))}
    if "desiredSize" in group:
        group["desiredSize"] = max(group["desiredSize"], group["minSize"])
    sharing = dict(group.pop("gpuSharing", None) or {})
    sharing.pop("timeSlicing", None)
    if "mig" in sharing:
        sharing["mig"] = {k: v for k, v in sharing["mig"].items() if k != "strategy"}
    return {**group, "gpuSharing": sharing} if sharing else group


def _capacity_block(group: dict) -> bool:
    """A Capacity Block group starts from zero nodes, so it keeps the device plugin (dra refuses it)."""
    return (group.get("capacityReservation") or {}).get("type") == "capacity-block"


@cache
def example_on(stack: str, allocation: str) -> tuple:
    """An example stack's (config, layout) with every GPU group on `allocation`, planned through the stack file."""
    config = read_stack_file(ROOT / "examples" / "stacks" / f"Pulumi.{stack}.yaml")
    if allocation == "dra":
        groups = dict(config.get("ml-platform-eks:nodeGroups") or {})
        if (groups.get("gpu") or {}).get("enabled"):
            groups["gpu"] = _on_dra(groups["gpu"])
        extra = [
            _on_dra(g) if g.get("gpu") and not _capacity_block(g) else g
            for g in config.get("ml-platform-eks:additionalNodeGroups") or []
        ]
        config = {**config, "ml-platform-eks:nodeGroups": groups, "ml-platform-eks:additionalNodeGroups": extra}
    cfg = parse(config)
    return cfg, build_layout(cfg, stack)


def shared_gpus(allocation: str) -> Layout:
    """The shared-GPU example stack (a g5.xlarge group `gpu`, a p5.4xlarge MIG 1g.10gb group `mig`) with every
    GPU group on `allocation` (on dra the `gpu` group gives whole GPUs: time slicing is refused there)."""
    return example_on("shared-gpus", allocation)[1]


@cache
def templates(allocation: str = "dra") -> tuple[NodeTemplate, ...]:
    return node_templates(shared_gpus(allocation))


def template_doc(name: str, *requests: dict, kind: str = "ResourceClaimTemplate", **extra) -> str:
    import yaml

    devices = {"requests": list(requests), **extra}
    spec = {"spec": {"devices": devices}} if kind == "ResourceClaimTemplate" else {"devices": devices}
    return yaml.safe_dump({"apiVersion": "resource.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "spec": spec})


def exactly(name: str, device_class: str, *selectors: str, **fields) -> dict:
    out = {"deviceClassName": device_class, **fields}
    if selectors:
        out["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"name": name, "exactly": out}


def pod_doc(*claims: tuple[str, str], name: str = "p", kind: str = "resourceClaimTemplateName", **spec) -> str:
    import yaml

    body = {
        "tolerations": TOLERATE_GPUS,
        "resourceClaims": [{"name": n, kind: ref} for n, ref in claims],
        "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": n} for n, _ in claims]}}],
        **spec,
    }
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body})


def placed(*documents: str, allocation: str = "dra", schema: bool = False) -> list[PodPlacement]:
    text = "---\n".join(documents)
    stream = ManifestStream(text, KubernetesSchema.for_version("1.35") if schema else None)
    return [place_admitted(m.admit(ClusterObjects()), templates(allocation)) for m in stream]


def reasons(result: PodPlacement, group: str) -> str:
    return " | ".join(r.message for r in result.group(group).reasons)


MIG = "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"


# --- the example manifests ----------------------------------------------------------------------------------


def test_the_shipped_examples_land_where_their_way_is_served():
    """Done when (issue 32): a pod with a ResourceClaimTemplate for one MIG 1g.10gb device lands only on the MIG
    group; one for a whole GPU only on the whole-GPU group; the device-plugin Job only where the plugin runs."""
    text = (MANIFEST_EXAMPLES / "gpu-claims.yaml").read_text()
    dra = {r.pod.name: r.reachable for r in placed(text, schema=True)}
    assert dra == {"Job/train-whole-gpu": ("gpu",), "Job/notebook-mig-1g-10gb": ("mig",), "Job/train-device-plugin": ()}
    plugin = {r.pod.name: r.reachable for r in placed(text, allocation="devicePlugin", schema=True)}
    assert plugin == {"Job/train-whole-gpu": (), "Job/notebook-mig-1g-10gb": (), "Job/train-device-plugin": ("gpu",)}


def test_the_example_claims_pass_the_kubernetes_schema_of_the_default_minor():
    """kubernetes-validate knows resource.k8s.io/v1 for 1.35: a misspelt field in a template is refused."""
    text = (MANIFEST_EXAMPLES / "gpu-claims.yaml").read_text()
    assert len(placed(text, schema=True)) == 3
    broken = text.replace("deviceClassName: mig.nvidia.com", "deviceClass: mig.nvidia.com")
    with pytest.raises(ManifestError, match=r"ResourceClaimTemplate/one-mig-1g-10gb.*deviceClass: unknown field"):
        placed(broken, schema=True)


# --- why a pod does not land ------------------------------------------------------------------------------------


def test_nvidia_gpu_on_a_dra_group_is_told_to_ask_through_a_claim():
    spec = {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}
    result = place(Pod.from_spec(spec), templates("dra"))
    assert result.reachable == ()
    why = reasons(result, "gpu")
    assert "the NVIDIA device plugin does not run on the nodes of gpu (gpuAllocation: dra)" in why
    assert "ResourceClaim (deviceClassName gpu.nvidia.com or mig.nvidia.com)" in why
    assert result.group("gpu").short == "no device plugin (dra)"
    mixed = {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/mig-1g.10gb": 1}}}]}
    assert "device plugin does not run on the nodes of mig" in reasons(place(Pod.from_spec(mixed), templates()), "mig")


def test_a_claim_on_a_device_plugin_group_is_told_the_driver_does_not_run_there():
    [result] = placed(
        template_doc("t", exactly("gpu", "gpu.nvidia.com")), pod_doc(("gpu", "t")), allocation="devicePlugin"
    )
    assert result.reachable == ()
    assert (
        "cannot allocate all claims: the NVIDIA DRA driver does not run on the nodes of gpu (gpuAllocation: "
        "devicePlugin), so they publish no devices for ResourceClaimTemplate/t; on this group request "
        "nvidia.com/gpu in resources.limits"
    ) in reasons(result, "gpu")
    assert "request nvidia.com/mig-1g.10gb in resources.limits" in reasons(result, "mig")
    assert "have no GPUs: no DRA driver publishes devices there" in reasons(result, "jobs")


def test_device_count_per_node_is_counted_across_every_claim_of_the_pod():
    """A p5.4xlarge's H100 splits into 7 1g.10gb devices: 3 + 4 fit one node, 4 + 4 do not; a g5.xlarge has one GPU."""
    three = template_doc("three", exactly("m", "mig.nvidia.com", MIG, count=3))
    four = template_doc("four", exactly("m", "mig.nvidia.com", MIG, count=4))
    [ok] = placed(three, four, pod_doc(("a", "three"), ("b", "four")))
    assert ok.reachable == ("mig",)
    [too_many] = placed(four, pod_doc(("a", "four"), ("b", "four")))
    assert too_many.reachable == ()
    assert "a node publishes 7 mig 1g.10gb, 7 of them match, 3 not taken by the pod's other requests" in reasons(
        too_many, "mig"
    )
    [two_gpus] = placed(template_doc("two", exactly("g", "gpu.nvidia.com", count=2)), pod_doc(("g", "two")))
    assert "asks 2 device(s) of class gpu.nvidia.com; a node publishes 1 gpu, 1 of them match" in reasons(
        two_gpus, "gpu"
    )


def test_allocation_mode_all_takes_every_matching_device_of_the_node():
    all_mig = template_doc("all", exactly("m", "mig.nvidia.com", allocationMode="All"))
    [alone] = placed(all_mig, pod_doc(("a", "all")))
    assert alone.reachable == ("mig",)
    one = template_doc("one", exactly("m", "mig.nvidia.com"))
    [shared] = placed(all_mig, one, pod_doc(("o", "one"), ("a", "all")))
    assert "allocationMode All, but some matching devices are taken by other requests" in reasons(shared, "mig")


def test_first_available_takes_the_first_subrequest_a_node_can_satisfy():
    request = {
        "name": "gpu",
        "firstAvailable": [
            {"name": "two", "deviceClassName": "gpu.nvidia.com", "count": 2},
            {"name": "mig", "deviceClassName": "mig.nvidia.com"},
        ],
    }
    [result] = placed(template_doc("either", request), pod_doc(("g", "either")))
    assert result.reachable == ("mig",)  # a g5.xlarge has one GPU, not two
    assert "requests[0].firstAvailable[0]: asks 2 device(s)" in reasons(result, "gpu")


def test_selectors_with_quantities_decide_on_the_memory_range_or_say_they_cannot():
    big = "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    [result] = placed(template_doc("big", exactly("g", "gpu.nvidia.com", big)), pod_doc(("g", "big")))
    assert result.reachable == ()  # an A10G has 24 GB
    # 22 GiB: within the range the g5's A10G reports (the EC2 catalog's 22888 MiB, give or take 5%)
    edge = "device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('22Gi'))"
    [unsure] = placed(template_doc("edge", exactly("g", "gpu.nvidia.com", edge)), pod_doc(("g", "edge")))
    assert unsure.reachable == ("gpu",)
    assert any("depends on the memory NVML reports" in n and "assumed to match" in n for n in unsure.group("gpu").notes)


def test_an_attribute_known_only_on_the_node_is_assumed_with_a_note():
    product = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A10G'"
    [result] = placed(template_doc("a10g", exactly("g", "gpu.nvidia.com", product)), pod_doc(("g", "a10g")))
    assert result.reachable == ("gpu",)
    assert any(
        "gpu.nvidia.com/productName, which the driver reads from the GPU" in n for n in result.group("gpu").notes
    )


def test_a_selector_the_evaluator_cannot_handle_never_passes():
    odd = "device.attributes['gpu.nvidia.com'].profile.lowerAscii() == '1g.10gb'"
    [result] = placed(template_doc("odd", exactly("m", "mig.nvidia.com", odd)), pod_doc(("m", "odd")))
    assert result.reachable == ()
    assert "cannot be evaluated here (cel-python lacks the function 'lowerAscii'" in reasons(result, "mig")


def test_a_cel_runtime_error_fails_the_allocation_as_the_scheduler_does():
    typo = "device.attributes['gpu.nvidia.com'].profiles == '1g.10gb'"
    [result] = placed(template_doc("typo", exactly("m", "mig.nvidia.com", typo)), pod_doc(("m", "typo")))
    assert result.reachable == ()
    assert "CEL runtime error: no such member in mapping: 'profiles'" in reasons(result, "mig")


def test_an_unknown_device_class_names_the_ones_the_driver_creates():
    [result] = placed(template_doc("t", exactly("g", "gpus.nvidia.com")), pod_doc(("g", "t")))
    assert result.reachable == ()
    assert (
        "DeviceClass 'gpus.nvidia.com' does not exist (the NVIDIA DRA driver's chart creates gpu.nvidia.com, "
        "mig.nvidia.com)"
    ) in reasons(result, "gpu")
    mine = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: small-mig}\nspec:\n  selectors:\n"
        "    - cel: {expression: \"device.attributes['gpu.nvidia.com'].type == 'mig'\"}\n"
    )
    [own] = placed(mine, template_doc("t", exactly("g", "small-mig")), pod_doc(("g", "t")))
    assert own.reachable == ("mig",)


# --- resolving the claims -----------------------------------------------------------------------------------------


def test_a_template_later_in_the_manifest_is_found_and_a_missing_one_is_said():
    [later] = placed(pod_doc(("m", "one")), template_doc("one", exactly("m", "mig.nvidia.com")))
    assert later.reachable == ("mig",)
    [missing] = placed(pod_doc(("m", "nowhere")), template_doc("one", exactly("m", "mig.nvidia.com")))
    assert missing.reachable == ()
    assert "ResourceClaimTemplate 'nowhere' is not in the manifest" in reasons(missing, "mig")


def test_a_resource_claim_of_another_namespace_is_not_the_pods():
    import yaml

    claim = yaml.safe_load(template_doc("shared", exactly("m", "mig.nvidia.com"), kind="ResourceClaim"))
    claim["metadata"]["namespace"] = "team-a"
    [result] = placed(yaml.safe_dump(claim), pod_doc(("m", "shared"), kind="resourceClaimName"))
    assert "ResourceClaim 'shared' is elsewhere in the manifest (not in namespace default)" in reasons(result, "mig")
    claim["metadata"]["namespace"] = "default"
    [found] = placed(yaml.safe_dump(claim), pod_doc(("m", "shared"), kind="resourceClaimName"))
    assert found.reachable == ("mig",)


def test_claim_references_the_api_server_refuses_reject_the_pod():
    spec = {
        "resourceClaims": [{"name": "a", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}],
        "containers": [{"name": "c", "resources": {"claims": [{"name": "b"}]}}],
    }
    pod = Pod.from_spec(spec)
    assert (
        "spec.resourceClaims[0]: must specify exactly one of resourceClaimName, resourceClaimTemplateName"
        in pod.invalid
    )
    assert (
        "spec.containers[0].resources.claims[0].name: 'b' is not one of the pod's resourceClaims (none)" in pod.invalid
    )
    assert place(pod, templates()).rejected


def test_a_pod_with_claims_placed_without_its_manifest_lands_nowhere_and_says_why():
    spec = {"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}], "containers": [{"name": "c"}]}
    result = place(Pod.from_spec(spec), templates())
    assert result.reachable == ()
    assert "is not known (place was given no manifest holding it)" in reasons(result, "gpu")


def test_dra_groups_show_what_their_nodes_publish_in_the_plan():
    by_name = {t.group: t.to_dict() for t in templates()}
    assert by_name["mig"]["gpuAllocation"] == "dra"
    assert by_name["mig"]["devices"] == {"driver": "gpu.nvidia.com", "perNode": {"mig 1g.10gb": 7}}
    assert by_name["mig"]["allocatable"]["nvidia.com/gpu"] == 0
    assert "gpuAllocation" not in by_name["jobs"]
    assert "devices" not in {t.group: t.to_dict() for t in templates("devicePlugin")}["mig"]


# --- the placement matrix -------------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["shared-gpus", "training"])
def test_dra_stacks_keep_every_placement_promise_with_claim_based_gpu_jobs(stack):
    from mlplatform_core.placement.invariants import stack_report

    cfg, layout = example_on(stack, "dra")
    assert all(g.gpu_allocation == "dra" for g in layout.groups if g.gpu and g.name != "train-block")
    report = stack_report(cfg, layout)
    assert report.ok, [str(e) for e in report.errors]
    reach = {p.name: result.reachable for p, result in report.placements}
    if stack == "shared-gpus":
        assert "gpu-training-job" not in reach  # nvidia.com/gpu is served nowhere
        assert reach["gpu-claim-job"] == ("gpu",)
        assert reach["gpu-claim-job-mig-1g.10gb"] == ("mig",)
        assert reach["whole-node-mig"] == ("mig",)
    else:
        # The Capacity Block group keeps the device plugin (dra refuses it): one stack, both ways, never both on
        # one group.
        assert reach["efa-training-job"] == reach["gpu-claim-job"] == ("train",)
        assert reach["gpu-training-job"] == ("train-block",)
        assert reach["nvidia-dra-driver-gpu-kubelet-plugin"] == ("train",)
        assert reach["nvidia-device-plugin"] == ("train-block",)
        whole = next(p for p, _ in report.placements if p.name == "whole-node-train")
        assert whole.claims is not None and whole.claims.requests[0][1].mode == "All"
