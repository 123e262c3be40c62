"""What DRA groups' nodes publish under the NVIDIA DRA driver, and CEL selectors evaluated against it with
cel-python, as Kubernetes' allocator evaluates them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mlplatform_core.model import instances
from mlplatform_core.model.layout.spec import NodeGroupSpec, Sharing
from mlplatform_core.model.nvidia_dra import DEVICE_CLASSES, DRIVER, published
from mlplatform_core.placement import cel
from mlplatform_core.placement.dra_devices import (
    MIG_NODE_ATTRIBUTES,
    MIG_NODE_CAPACITIES,
    NODE_ATTRIBUTES,
    STANDARD_NODE_ATTRIBUTES,
    node_devices,
)

MIG_1G = Sharing("mig", 7, "mixed", "1g.10gb")


def group(allocation: str = "dra", sharing: Sharing | None = None) -> NodeGroupSpec:
    return SimpleNamespace(gpu_allocation=allocation, sharing=sharing)  # type: ignore[return-value]


def devices(instance_type: str, allocation: str = "dra", sharing: Sharing | None = None):
    return node_devices(group(allocation, sharing), instances.lookup(instance_type))


def test_the_driver_publishes_whole_gpus_or_the_mig_devices_of_the_group_profile():
    whole = devices("p5.48xlarge")
    assert [d.name for d in whole] == [f"gpu-{i}" for i in range(8)]
    assert {d.attributes["type"] for d in whole} == {"gpu"}
    mig = devices("p5.48xlarge", sharing=MIG_1G)
    assert len(mig) == 56 and {(d.attributes["type"], d.attributes["profile"]) for d in mig} == {("mig", "1g.10gb")}
    assert devices("p5.4xlarge", sharing=MIG_1G)[0].memory == (9_000_000_000, 10 * 2**30)


def test_no_device_is_published_where_the_driver_does_not_run():
    assert devices("p5.48xlarge", allocation="devicePlugin") == ()
    assert devices("m5.xlarge") == ()


def test_the_attribute_names_are_the_drivers_at_its_release_tag():
    """Pinned from NVIDIA/k8s-dra-driver-gpu v25.12.0 (the generated data/nvidia_dra_devices.json):
    cmd/gpu-kubelet-plugin/partitions.go PartDevAttributes (a GPU) and deviceinfo.go MigDeviceInfo.GetDevice (a
    MIG device), and the chart's deviceclass-{gpu,mig}.yaml. A driver bump that renames, adds or drops one fails
    here until the model (what is known before a node runs) is checked against it."""
    assert NODE_ATTRIBUTES | {"type"} == {
        "type",
        "uuid",
        "productName",
        "brand",
        "architecture",
        "cudaComputeCapability",
        "driverVersion",
        "cudaDriverVersion",
    }
    assert MIG_NODE_ATTRIBUTES | {"type", "profile"} == NODE_ATTRIBUTES | {"type", "profile", "parentUUID"}
    assert {"pciBusID"} == STANDARD_NODE_ATTRIBUTES  # resource.kubernetes.io/pciBusID
    assert MIG_NODE_CAPACITIES | {"memory"} == {
        "memory",
        "multiprocessors",
        "copyEngines",
        "decoders",
        "encoders",
        "jpegEngines",
        "ofaEngines",
    }
    assert DRIVER == "gpu.nvidia.com"
    assert {"type"} <= published("gpu")["attributes"] and {"type", "profile"} <= published("mig")["attributes"]
    assert dict(DEVICE_CLASSES) == {
        "gpu.nvidia.com": ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",),
        "mig.nvidia.com": ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",),
    }


A = "device.attributes['gpu.nvidia.com']"
MEMORY = "device.capacity['gpu.nvidia.com'].memory"


@pytest.mark.parametrize(
    "expression, on_gpu, on_mig",
    [
        (DEVICE_CLASSES["gpu.nvidia.com"][0], cel.MATCH, cel.NO_MATCH),
        (DEVICE_CLASSES["mig.nvidia.com"][0], cel.NO_MATCH, cel.MATCH),
        (f"{A}.profile == '1g.10gb'", cel.ERROR, cel.MATCH),  # a GPU has no profile: a runtime error
        (f"{A}.type == 'mig' && {A}.profile == '1g.10gb'", cel.NO_MATCH, cel.MATCH),
        (f"{A}.productName == 'NVIDIA H100 80GB HBM3'", cel.UNKNOWN, cel.UNKNOWN),
        (f"{A}.type == 'gpu' && {A}.productName == 'x'", cel.UNKNOWN, cel.NO_MATCH),  # decided without it
        (f"'productName' in {A}", cel.MATCH, cel.MATCH),
        (f"has({A}.productName)", cel.UNKNOWN, cel.UNKNOWN),
        (f"{A}.driverVersion.isGreaterThan(semver('550.0.0'))", cel.UNKNOWN, cel.UNKNOWN),
        (f"{MEMORY}.compareTo(quantity('40Gi')) >= 0", cel.MATCH, cel.NO_MATCH),
        (f"{MEMORY}.isGreaterThan(quantity('80Gi'))", cel.UNKNOWN, cel.NO_MATCH),  # 80 GB, give or take
        (f"{MEMORY}.isLessThan(quantity('12Gi'))", cel.NO_MATCH, cel.MATCH),
        ("semver('1.2.3').isGreaterThan(semver('1.10.0'))", cel.NO_MATCH, cel.NO_MATCH),
        ("quantity('1500m').compareTo(quantity('1.5')) == 0", cel.MATCH, cel.MATCH),
        ("device.attributes['resource.kubernetes.io'].pciBusID == 'x'", cel.UNKNOWN, cel.UNKNOWN),
        ("device.attributes['example.com'].x == 1", cel.ERROR, cel.ERROR),
        (f"{A}.profile.lowerAscii() == 'x'", cel.UNSUPPORTED, cel.UNSUPPORTED),
        (f"{A}.profile ==", cel.UNSUPPORTED, cel.UNSUPPORTED),
        ("device.driver", cel.ERROR, cel.ERROR),  # not a bool
        (f"{A}.index == 0", cel.ERROR, cel.ERROR),  # published up to v25.3.2 (deviceinfo.go), no longer
    ],
)
def test_selectors_are_evaluated_by_cel_python_with_kubernetes_helpers(expression, on_gpu, on_mig):
    gpu, mig = devices("p5.48xlarge")[0], devices("p5.48xlarge", sharing=MIG_1G)[0]
    assert (cel.evaluate(expression, gpu).outcome, cel.evaluate(expression, mig).outcome) == (on_gpu, on_mig)


def test_only_decided_and_assumed_verdicts_select_a_device():
    gpu = devices("p5.48xlarge")[0]
    assert cel.evaluate(f"{A}.productName == 'x'", gpu).matches  # assumed, with the attribute named
    assert "gpu.nvidia.com/productName" in cel.evaluate(f"{A}.productName == 'x'", gpu).detail
    assert not cel.evaluate(f"{A}.profile.lowerAscii() == 'x'", gpu).matches
    assert not cel.evaluate(f"{A}.nosuch == 'x'", gpu).matches
