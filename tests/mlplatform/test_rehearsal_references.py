"""The mocks' stand-ins, resolved: what the rehearsal substitutes and in which order it creates (no moto)."""

from __future__ import annotations

import dataclasses

import pytest

from mlplatform.rehearsal.references import Tokens, creation_order, mock_id
from tests.runs import shipped_run


@pytest.fixture(scope="module")
def run():
    return shipped_run("dev-karpenter")


def test_every_resource_comes_after_those_whose_values_it_holds(run):
    tokens = Tokens(run.resources)
    order = creation_order(run.resources, tokens)
    position = {r.urn: i for i, r in enumerate(order)}
    assert len(order) == len([r for r in run.resources if r.custom])
    for r in order:
        for urn in tokens.referenced_by(r):
            assert position[urn] < position[r.urn], (r.name, urn)
    # The pulumi-eks children record no dependencies; their stand-ins still order them (subnets before the
    # cluster, the cluster before the OIDC provider that names its issuer).
    cluster = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    oidc = run.one("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "cluster-oidcProvider")
    subnet = next(r for r in run.resources if r.type == "aws:ec2/subnet:Subnet")
    assert position[subnet.urn] < position[cluster.urn] < position[oidc.urn]


def test_a_stand_in_is_replaced_by_the_real_value_and_an_unresolved_one_is_reported(run):
    tokens = Tokens(run.resources)
    vpc = run.one("aws:ec2/vpc:Vpc", "cluster-vpc")
    cluster = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    tokens.resolve(vpc, {"id": "vpc-0123456789abcdef0"})
    unresolved: list[str] = []
    assert tokens.substitute({"vpcId": mock_id(vpc)}, unresolved) == {"vpcId": "vpc-0123456789abcdef0"}
    assert not unresolved
    issuer = cluster.outputs["identities"][0]["oidcs"][0]["issuer"]
    condition = f"{issuer.removeprefix('https://')}:sub"
    assert tokens.substitute(condition, unresolved) == condition
    assert unresolved == ["aws:eks/cluster:Cluster cluster-eksCluster (identities.0.oidcs.0.issuer#host)"]
    # Once the cluster exists, the trust condition names the real issuer's host and path.
    tokens.resolve(cluster, {"identities.0.oidcs.0.issuer": "https://oidc.eks.us-east-1.amazonaws.com/id/REAL"})
    assert tokens.substitute(condition, []) == "oidc.eks.us-east-1.amazonaws.com/id/REAL:sub"


def test_a_cycle_is_an_error_not_a_guess(run):
    a, b = [r for r in run.resources if r.custom][:2]
    looped = [dataclasses.replace(a, dependencies=[b.urn]), dataclasses.replace(b, dependencies=[a.urn])]
    with pytest.raises(ValueError, match="cycle"):
        creation_order(looped, Tokens(looped))
