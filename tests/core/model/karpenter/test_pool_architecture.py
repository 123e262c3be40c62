"""A Karpenter pool chosen by family takes its architecture from its own families, not the group's default types."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, read_stack_file
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

P = "ml-platform-eks:"


def karpenter_stack(group: str, settings: dict, pool: dict) -> dict:
    raw = read_stack_file(ROOT / "stacks" / "Pulumi.dev-karpenter.yaml")
    raw[P + "nodeGroups"][group] = settings
    raw[P + "karpenter"]["nodePools"][group] = pool
    return raw


@pytest.mark.parametrize("ami,family", [("AL2023_ARM_64_STANDARD", "AL2023"), ("BOTTLEROCKET_ARM_64", "Bottlerocket")])
def test_an_arm64_pool_by_family_with_an_explicit_arm64_ami(ami, family):
    raw = karpenter_stack("jobs", {"amiType": ami, "maxSize": 10}, {"instanceFamilies": ["m7g", "c7g"]})
    raw[P + "karpenter"]["amiVersion"] = "latest"  # AL2023 and Bottlerocket pools: no one release names both
    pool = next(p for p in validate_stack(raw, "dev-karpenter").layout.node_pools if p.name == "jobs")
    assert pool.arch == "arm64" and pool.ami_family == family
    assert pool.instance_types and all(t.split(".")[0] in ("m7g", "c7g") for t in pool.instance_types)


def test_an_arm64_gpu_pool_by_family():
    raw = karpenter_stack("gpu", {"enabled": True, "amiType": "AL2023_ARM_64_NVIDIA", "maxSize": 2}, {})
    raw[P + "karpenter"]["nodePools"]["gpu"] = {"instanceFamilies": ["g5g"]}
    pool = next(p for p in validate_stack(raw, "dev-karpenter").layout.node_pools if p.name == "gpu")
    assert pool.arch == "arm64"


def test_families_of_the_other_architecture_are_refused_at_the_families():
    raw = karpenter_stack("jobs", {"amiType": "BOTTLEROCKET_ARM_64"}, {"instanceFamilies": ["m5"]})
    with pytest.raises(ConfigError) as info:
        validate_stack(raw, "dev-karpenter")
    paths = [p.path for p in info.value.problems]
    assert paths == [P + "karpenter.nodePools.jobs.instanceFamilies"], paths
    assert "not arm64" in str(info.value)
