"""The offline engine names resources as the Pulumi engine does (pkg/resource/deploy/deployment.go generateURN)."""

from __future__ import annotations

import pytest

from mlplatform.engine.urn import make_urn, qualified_type

STACK_URN = "urn:pulumi:dev::ml-platform-eks::pulumi:pulumi:Stack::ml-platform-eks-dev"


def test_make_urn_joins_the_parent_type_chain_and_skips_the_root_stack():
    top = make_urn("dev", "ml-platform-eks", STACK_URN, "mlplatform:cluster:Cluster", "cluster")
    assert top == "urn:pulumi:dev::ml-platform-eks::mlplatform:cluster:Cluster::cluster"
    assert make_urn("dev", "ml-platform-eks", None, "pulumi:providers:aws", "default") == (
        "urn:pulumi:dev::ml-platform-eks::pulumi:providers:aws::default"
    )
    vpc = make_urn("dev", "ml-platform-eks", top, "mlplatform:network:Vpc", "cluster-vpc")
    subnet = make_urn("dev", "ml-platform-eks", vpc, "aws:ec2/subnet:Subnet", "cluster-vpc-private-0")
    assert qualified_type(subnet) == "mlplatform:cluster:Cluster$mlplatform:network:Vpc$aws:ec2/subnet:Subnet"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_every_recorded_urn_is_the_engines(stack, request):
    run = request.getfixturevalue(f"{stack}_run")
    assert len({r.urn for r in run.resources}) == len(run.resources)
    for r in run.resources:
        # Each program of the stack (the cluster, and the Kubernetes layer when separate) is its own project.
        assert r.project in ("ml-platform-eks", "ml-platform-eks-kubernetes")
        assert not r.urn.startswith(f"urn:pulumi:{stack}::{r.project}::pulumi:pulumi:Stack$"), r.urn
        parent_type = qualified_type(r.parent) if r.parent else "pulumi:pulumi:Stack"
        expected = r.type if parent_type == "pulumi:pulumi:Stack" else f"{parent_type}${r.type}"
        assert r.urn == f"urn:pulumi:{stack}::{r.project}::{expected}::{r.name}"
    vpc = run.one("aws:ec2/vpc:Vpc", "cluster-vpc")
    assert vpc.urn == (
        f"urn:pulumi:{stack}::ml-platform-eks::mlplatform:cluster:Cluster$mlplatform:network:Vpc$aws:ec2/vpc:Vpc"
        "::cluster-vpc"
    )
