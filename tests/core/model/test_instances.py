"""The instance catalog: real EC2 types known with their upstream facts, typos refused with a did-you-mean."""

from __future__ import annotations

import pytest

from mlplatform_core.model import instances
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.placement.invariants import stack_report
from tests.conftest import stack_config


@pytest.mark.parametrize("name", ["c6a.4xlarge", "r6i.8xlarge", "m8i.2xlarge", "g6e.xlarge", "p5.48xlarge"])
def test_current_types_are_known_with_their_specs(name):
    t = instances.lookup(name)
    assert t is not None and t.known and t.vcpu > 0 and t.memory_mib > 0 and t.max_pods > 0


def test_gpu_facts_come_from_the_data():
    p5 = instances.lookup("p5.48xlarge")
    assert (p5.gpus, p5.gpu_maker, p5.gpu_name, p5.vcpu) == (8, "NVIDIA", "h100", 192)
    g5g = instances.lookup("g5g.xlarge")  # NVIDIA on arm64, not "no GPU"
    assert (g5g.arch, g5g.nvidia_gpu, g5g.gpus) == ("arm64", True, 1)
    amd = instances.lookup("g4ad.xlarge")
    assert amd.accelerated and not amd.nvidia_gpu
    inferentia = instances.lookup("inf2.xlarge")
    assert inferentia.accelerated and inferentia.gpus == 0 and "inferentia" in inferentia.accelerator
    fractional = instances.lookup("g6f.large")  # a fraction of an L4: accelerated, but no nvidia.com/gpu to request
    assert fractional.accelerated and not fractional.nvidia_gpu
    assert not instances.lookup("m5.xlarge").accelerated


def test_max_pods_and_allocatable_follow_the_eks_ami():
    m5 = instances.lookup("m5.xlarge")  # 4 ENIs x (15 IPs - 1) + 2
    assert m5.max_pods == 58
    assert m5.allocatable_memory_mib == 16384 - (255 + 11 * 58) - 100
    assert m5.allocatable_cpu_millis == 4000 - (60 + 10 + 10)


def test_types_known_only_by_network_limits_are_not_guessed():
    t = instances.lookup("trn2.3xlarge")
    assert t is not None and not t.known and t.allocatable_cpu_millis is None and not t.nvidia_gpu
    assert t.maybe_accelerated  # never taken for a CPU type


@pytest.mark.parametrize(
    "name,count,model,memory_mib",
    [
        ("p2.xlarge", 1, "k80", 12288),
        ("p2.16xlarge", 16, "k80", 12288),
        ("g3s.xlarge", 1, "m60", 8192),
        ("g3.4xlarge", 1, "m60", 8192),
        ("p3.2xlarge", 1, "v100", 16384),
        ("p3.16xlarge", 8, "v100", 16384),
        ("p3dn.24xlarge", 8, "v100", 32768),
        ("g5.xlarge", 1, "a10g", 22888),
    ],
)
def test_gpu_facts_of_every_generation_xen_included(name, count, model, memory_mib):
    t = instances.lookup(name)
    assert t is not None and t.known and t.gpu_maker == "NVIDIA"
    assert (t.gpus, t.gpu_name, t.gpu_memory_mib) == (count, model, memory_mib)


def test_every_gpu_type_has_count_model_and_memory():
    gpu_types = [t for t in instances.catalog().values() if t.gpu_maker]
    assert len(gpu_types) > 70
    assert [t.name for t in gpu_types if not (t.gpu_name and t.gpu_memory_mib)] == []


def test_the_catalog_records_its_upstream_sources():
    source = instances.catalog_source()
    repos = {s["repo"] for s in source["source"]}
    assert {"aws/karpenter-provider-aws", "awslabs/amazon-eks-ami"} <= repos
    assert all(len(s["commit"]) == 40 and s["date"] for s in source["source"])


def layout_error(**node_groups) -> str:
    raw = stack_config("dev")
    raw["ml-platform-eks:nodeGroups"].update(node_groups)
    with pytest.raises(ConfigError) as exc:
        build_layout(parse(raw), "dev")
    return str(exc.value)


def test_a_typo_is_a_config_error_with_a_did_you_mean():
    message = layout_error(jobs={"instanceTypes": ["m5.2xlarg"], "minSize": 1, "maxSize": 10})
    assert "nodeGroups.jobs.instanceTypes[0]" in message
    assert "'m5.2xlarg' is not an EC2 instance type" in message and "did you mean m5.2xlarge" in message


def test_a_gpu_group_needs_gpus_a_pod_can_request():
    message = layout_error(gpu={"enabled": True, "instanceTypes": ["g6f.large"]})
    assert "nodeGroups.gpu.instanceTypes[0]" in message and "fraction" in message and "g5.xlarge" in message


def test_arm64_gpu_types_get_the_arm64_nvidia_ami():
    raw = stack_config("dev")
    raw["ml-platform-eks:nodeGroups"]["gpu"] = {"enabled": True, "instanceTypes": ["g5g.2xlarge"]}
    layout = build_layout(parse(raw), "dev")
    assert layout.group("gpu").ami_type == "AL2023_ARM_64_NVIDIA"


def test_real_types_outside_the_old_table_keep_the_placement_invariants():
    """c6a.4xlarge, r6i.8xlarge and g6e were unknown to the old hand-written table: a false violation."""
    raw = stack_config("dev")
    raw["ml-platform-eks:nodeGroups"]["jobs"]["instanceTypes"] = ["c6a.4xlarge"]
    raw["ml-platform-eks:nodeGroups"]["gpu"]["instanceTypes"] = ["g6e.xlarge"]
    raw["ml-platform-eks:additionalNodeGroups"] = [{"name": "memory", "instanceTypes": ["r6i.8xlarge"]}]
    cfg = parse(raw)
    report = stack_report(cfg, build_layout(cfg, "dev"))
    assert report.ok, report.errors
    assert not report.notes or all("network limits" not in n for n in report.notes)


def test_an_older_gpu_generation_is_not_taken_for_a_cpu_type():
    assert "has an accelerator (NVIDIA)" in layout_error(jobs={"instanceTypes": ["p3.2xlarge"]})
    assert "has an accelerator (NVIDIA)" in layout_error(jobs={"instanceTypes": ["g3s.xlarge"]})


def test_a_type_whose_gpu_facts_are_unknown_is_never_taken_for_a_cpu_type():
    message = layout_error(jobs={"instanceTypes": ["trn2.3xlarge"]})
    assert "whether it has a GPU or another accelerator is unknown" in message
    assert "Karpenter instance-type document" in message  # the source that lacks it
