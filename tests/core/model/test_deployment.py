"""Reaching the Kubernetes API: the endpoint's CIDRs, `kubernetesLayer`, and what each program's machine must reach."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, kubernetes_layer_of, parse
from mlplatform_core.model.deployment import (
    KUBERNETES_DIRECTORY,
    KUBERNETES_PROJECT,
    cluster_stack_reference,
    deployment,
    private_api_cidrs,
)
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config

P = "ml-platform-eks:"
PUBLIC = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.7/32"]}
SUBNETS = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]
EXISTING_VPC = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": SUBNETS}


def config(stack: str = "dev", **settings):
    raw = stack_config(stack)
    for key, value in settings.items():
        if value is None:
            raw.pop(P + key, None)
        else:
            raw[P + key] = value
    return parse(raw)


def refusal(stack: str = "dev", **settings) -> str:
    with pytest.raises(ConfigError) as info:
        config(stack, **settings)
    return str(info.value)


@pytest.mark.parametrize("cidr", ["203.0.113.0/24", "198.51.100.7/32", "192.0.2.0/28"])
def test_a_documentation_range_cannot_pretend_to_open_the_public_endpoint(cidr):
    text = refusal(endpoint={**PUBLIC, "publicAccessCidrs": [cidr]}, kubernetesLayer="inline")
    assert f"{P}endpoint.publicAccessCidrs:" in text and "documentation range" in text


@pytest.mark.parametrize("cidr", ["10.0.0.0/8", "192.168.1.0/24", "100.64.0.0/16", "127.0.0.1/32"])
def test_a_private_range_is_never_what_the_public_endpoint_sees(cidr):
    text = refusal(endpoint={**PUBLIC, "publicAccessCidrs": [cidr]})
    assert f"{P}endpoint.publicAccessCidrs:" in text and "private range" in text and "privateAccessCidrs" in text


def test_private_access_cidrs_are_private_ranges_and_need_private_access():
    text = refusal(endpoint={"privateAccess": True, "privateAccessCidrs": ["34.120.10.0/24"]})
    assert f"{P}endpoint.privateAccessCidrs:" in text and "not a private range" in text
    assert "documentation range" in refusal(endpoint={"privateAccess": True, "privateAccessCidrs": ["203.0.113.0/24"]})
    text = refusal(endpoint={**PUBLIC, "privateAccess": False, "privateAccessCidrs": ["10.9.0.0/16"]})
    assert f"{P}endpoint:" in text and "privateAccessCidrs is set but privateAccess is false" in text


def test_the_layer_follows_the_endpoint_unless_the_stack_chooses():
    assert kubernetes_layer_of(config(kubernetesLayer=None)) == "separate"  # dev: private only
    assert kubernetes_layer_of(config(endpoint=PUBLIC, kubernetesLayer=None)) == "inline"
    assert kubernetes_layer_of(config(endpoint=PUBLIC, kubernetesLayer="separate")) == "separate"
    assert "'inline' or 'separate'" in refusal(kubernetesLayer="both")


def test_inline_with_a_private_endpoint_in_a_vpc_the_stack_creates_is_refused():
    text = refusal(kubernetesLayer="inline")
    assert f"{P}kubernetesLayer:" in text and "'separate'" in text and "inside it" in text
    # Inside an existing VPC a runner can already sit there: allowed.
    assert kubernetes_layer_of(config(kubernetesLayer="inline", network=EXISTING_VPC)) == "inline"


def test_the_private_endpoint_opens_to_the_vpc_by_default():
    assert private_api_cidrs(config("prod")) == ["10.50.0.0/16"]
    assert private_api_cidrs(config(network={"availabilityZoneCount": 2})) == ["10.0.0.0/16"]
    assert private_api_cidrs(config(network=EXISTING_VPC)) is None  # looked up at deploy
    vpn = config(endpoint={"privateAccess": True, "privateAccessCidrs": ["10.40.0.0/16", "172.31.200.0/22"]})
    assert private_api_cidrs(vpn) == ["10.40.0.0/16", "172.31.200.0/22"]
    assert private_api_cidrs(config(endpoint={**PUBLIC, "privateAccess": False}, kubernetesLayer="inline")) == []


def _deployment(stack: str = "dev", **settings):
    cfg = config(stack, **settings)
    return deployment(cfg, build_layout(cfg, stack))


def test_separate_the_cluster_program_needs_aws_only_the_layer_needs_the_vpc():
    dep = _deployment("prod")
    assert dep.kubernetes_layer == "separate"
    cluster, layer = dep.programs
    assert (cluster.directory, cluster.kubernetes_api) == (".", False)
    assert not any("Kubernetes API" in r for r in cluster.reaches)
    assert "GitHub-hosted" in cluster.runs_from
    assert (layer.project, layer.directory, layer.kubernetes_api) == (KUBERNETES_PROJECT, KUBERNETES_DIRECTORY, True)
    assert any("private endpoint" in r and "443" in r for r in layer.reaches)
    assert any("kubernetes.github.io/autoscaler" in r for r in layer.reaches)
    assert "inside the VPC" in layer.runs_from and "10.50.0.0/16" in layer.runs_from
    assert "cluster-admin" in layer.identity


def test_inline_one_program_reaches_the_public_endpoint_from_its_cidrs():
    dep = _deployment(endpoint=PUBLIC, kubernetesLayer="inline")
    (program,) = dep.programs
    assert program.kubernetes_api and any("public endpoint" in r for r in program.reaches)
    assert "34.120.10.7/32" in program.runs_from
    doc = dep.to_dict()
    assert doc["kubernetesLayer"] == "inline" and doc["endpoint"]["publicAccessCidrs"] == ["34.120.10.7/32"]
    assert doc["programs"][0]["command"] == "pulumi up --stack <stack> --cwd ."


def test_the_layer_reads_the_cluster_stack_by_its_qualified_name():
    assert cluster_stack_reference("acme", "prod") == "acme/ml-platform-eks/prod"
