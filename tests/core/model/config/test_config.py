"""Invalid configuration is refused before anything is registered, with the key path, the value and what is valid."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config

P = "ml-platform-eks:"


def refuse(stack: str, **settings) -> str:
    """The error text for a shipped stack with `settings` replaced (None removes a key)."""
    raw = stack_config(stack)
    for key, value in settings.items():
        full = key if ":" in key else P + key
        if value is None:
            raw.pop(full, None)
        else:
            raw[full] = value
    with pytest.raises(ConfigError) as info:
        build_layout(parse(raw), stack)
    return str(info.value)


def groups(stack: str, **per_group) -> dict:
    """The stack's nodeGroups with per-group settings merged in."""
    node_groups = stack_config(stack)[P + "nodeGroups"]
    for name, settings in per_group.items():
        node_groups.setdefault(name, {}).update(settings)
    return node_groups


CASES = {
    "min greater than max": (
        "dev",
        {"nodeGroups": groups("dev", jupyter={"minSize": 6, "maxSize": 3})},
        [P + "nodeGroups.jupyter.minSize", "6 is greater than maxSize 3"],
    ),
    "desired outside range": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"desiredSize": 40})},
        [P + "nodeGroups.jobs.desiredSize", "[1, 10]"],
    ),
    "negative size": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"minSize": -1})},
        [P + "nodeGroups.jobs.minSize", "greater than or equal to 0", "-1"],
    ),
    "unknown environment": ("dev", {"environment": "staging"}, [P + "environment", "'dev' or 'prod'", "staging"]),
    "unknown top-level key": ("dev", {"nodeGroup": {}}, [P + "nodeGroup", "unknown setting", "nodeGroups"]),
    "unknown group setting (typo)": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"maxSzie": 3})},
        [P + "nodeGroups.jobs.maxSzie", "unknown setting", "maxSize"],
    ),
    "spot initial group": (
        "dev",
        {"nodeGroups": groups("dev", initial={"capacityType": "SPOT"})},
        [P + "nodeGroups.initial.capacityType", "ON_DEMAND"],
    ),
    "autoscaling initial group": (
        "dev",
        {"nodeGroups": groups("dev", initial={"maxSize": 4})},
        [P + "nodeGroups.initial.minSize", "static"],
    ),
    "prod initial below two": (
        "prod",
        {"nodeGroups": groups("prod", initial={"minSize": 1, "maxSize": 1, "desiredSize": 1})},
        [P + "nodeGroups.initial.maxSize", "at least 2"],
    ),
    "GPU group without GPU types": (
        "dev",
        {"nodeGroups": groups("dev", gpu={"instanceTypes": ["m5.xlarge"]})},
        [P + "nodeGroups.gpu.instanceTypes[0]", "m5.xlarge", "no NVIDIA GPU", "g5"],
    ),
    "GPU types in a non-GPU group": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"instanceTypes": ["g5.xlarge"]})},
        [P + "nodeGroups.jobs.instanceTypes[0]", "g5.xlarge", "gpu group"],
    ),
    "bad label key": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"labels": {"-team": "ml"}})},
        [P + "nodeGroups.jobs.labels", "-team", "alphanumeric"],
    ),
    "bad label value": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"labels": {"team": "x" * 64}})},
        [P + "nodeGroups.jobs.labels", "at most 63"],
    ),
    "bad taint effect": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"taints": [{"key": "dedicated", "effect": "NO_SCHEDULE"}]})},
        [P + "nodeGroups.jobs.taints[0].effect", "NO_SCHEDULE", "NoSchedule, PreferNoSchedule, NoExecute"],
    ),
    "duplicate group names": (
        "prod",
        {"additionalNodeGroups": [{"name": "gpu", "instanceTypes": ["g5.xlarge"], "gpu": True}]},
        [P + "additionalNodeGroups[0].name", "'gpu'", "unique"],
    ),
    "duplicate additional group names": (
        "prod",
        {
            "additionalNodeGroups": [
                {"name": "mem", "instanceTypes": ["r5.xlarge"]},
                {"name": "mem", "instanceTypes": ["r5.2xlarge"]},
            ]
        },
        [P + "additionalNodeGroups[1].name", "'mem'"],
    ),
    "malformed public CIDR": (
        "dev",
        {"endpoint": {"publicAccess": True, "publicAccessCidrs": ["10.0.0.300/24"]}},
        [P + "endpoint.publicAccessCidrs", "10.0.0.300/24", "CIDR"],
    ),
    "malformed VPC CIDR": (
        "dev",
        {"network": {"vpcCidr": "10.0.0.1/16"}},
        [P + "network.vpcCidr", "10.0.0.1/16", "host bits"],
    ),
    "more than 50 taints": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"taints": [{"key": f"t{i}"} for i in range(51)]})},
        [P + "nodeGroups.jobs.taints", "at most 50"],
    ),
    "jupyter group in prod": (
        "prod",
        {"nodeGroups": groups("prod", jupyter={"maxSize": 2})},
        [P + "nodeGroups.jupyter", "no development work", "initial, workload, gpu, spot"],
    ),
    "missing environment": ("dev", {"environment": None}, [P + "environment", "required"]),
    "missing region": ("dev", {"aws:region": None}, ["aws:region", "missing"]),
    "kubernetes version as a number": (
        "dev",
        {"kubernetesVersion": 1.3},
        [P + "kubernetesVersion", "quoted string", "1.3"],
    ),
    "unsupported kubernetes version": (
        "dev",
        {"kubernetesVersion": "1.12"},
        [P + "kubernetesVersion", "'1.12'", "1.33"],
    ),
    "bad region": ("dev", {"aws:region": "Oregon"}, ["aws:region", "'Oregon'", "us-west-2"]),
    "both private and public access off": (
        "dev",
        {"endpoint": {"privateAccess": False, "publicAccess": False}},
        [P + "endpoint", "enable at least one"],
    ),
    "existing VPC without subnets": (
        "dev",
        {"network": {"vpcId": "vpc-0123456789abcdef0"}},
        [P + "network", "privateSubnetIds"],
    ),
    "spot types of different sizes": (
        "dev",
        {"nodeGroups": groups("dev", spot={"instanceTypes": ["m5.xlarge", "m5.4xlarge"]})},
        [P + "nodeGroups.spot.instanceTypes", "one size"],
    ),
    "arm instance on an x86 AMI": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"instanceTypes": ["m6g.2xlarge"], "amiType": "AL2023_x86_64_STANDARD"})},
        [P + "nodeGroups.jobs.instanceTypes[0]", "arm64", "AL2023_x86_64_STANDARD"],
    ),
    "dedicated initial group": (
        "dev",
        {"nodeGroups": groups("dev", initial={"dedicated": True})},
        [P + "nodeGroups.initial.dedicated", "already reserved"],
    ),
    "reserved label": (
        "dev",
        {"nodeGroups": groups("dev", jobs={"labels": {"app.iguazio.com/lifecycle": "preemptible"}})},
        [P + "nodeGroups.jobs.labels.app.iguazio.com/lifecycle", "set by the toolkit"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_invalid_config_is_refused_with_key_path(name):
    stack, settings, expected = CASES[name]
    message = refuse(stack, **settings)
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in:\n{message}"


def test_every_problem_is_reported_at_once():
    message = refuse("dev", environment="qa", nodeGroups={"jobs": {"minSize": -2}})
    assert P + "environment" in message and P + "nodeGroups.jobs.minSize" in message


def test_shipped_stacks_are_valid():
    for stack in ("dev", "prod"):
        build_layout(parse(stack_config(stack)), stack)
