"""What the emulator (moto) does not do, by resource type: never skipped silently.

`NOT_IMPLEMENTED`: resource types whose create operation moto's server does not route (it answers 404);
their requests are built from the inputs as for any other type and validated by botocore, not sent.
`EKS_SIDE`: what AWS does on its own side when a resource is created and moto does not, which the rehearsal
plays so that the stack's resources that refer to it are replayed too. The rehearse tier asserts each entry
against the running moto (tests/rehearse/test_gaps.py), so the list cannot go stale when moto grows, and
docs/rehearsal.md shows `table()` (scripts/docs/generate_rehearsal_docs.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gap:
    service: str
    operation: str
    reason: str


NOT_IMPLEMENTED: dict[str, Gap] = {
    "aws:ec2/placementGroup:PlacementGroup": Gap(
        "ec2", "CreatePlacementGroup", "moto's EC2 has no placement groups (NotImplementedError)"
    ),
    "aws:eks/addon:Addon": Gap("eks", "CreateAddon", "moto's EKS has clusters, node groups and Fargate profiles only"),
    "aws:eks/accessEntry:AccessEntry": Gap(
        "eks", "CreateAccessEntry", "moto's EKS has no access entries (API authentication mode)"
    ),
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": Gap(
        "eks", "AssociateAccessPolicy", "moto's EKS has no access entries, so no access policies"
    ),
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": Gap(
        "eks", "CreatePodIdentityAssociation", "moto's EKS has no Pod Identity"
    ),
}
VALIDATED_ONLY = (
    "request built from the inputs and validated by botocore, not sent; for EKS, the cluster and the account's "
    "roles it names checked to exist (as EKS does)"
)
SHAPE_ONLY_OPERATIONS = frozenset((g.service, g.operation) for g in NOT_IMPLEMENTED.values())

# What EKS creates itself and moto's EKS does not; the rehearsal creates it as EKS would (eks.py).
EKS_SIDE: dict[str, str] = {
    "aws:eks/cluster:Cluster": (
        "EKS creates the cluster security group (vpcConfig.clusterSecurityGroupId); moto's cluster has none, so "
        "the rehearsal creates it (CreateSecurityGroup) for the tags the stack puts on it"
    ),
    "aws:eks/nodeGroup:NodeGroup": (
        "EKS creates the node group's Auto Scaling group; moto names one (resources.autoScalingGroups) but creates "
        "none, so the rehearsal creates it (CreateAutoScalingGroup, desired 0, the group's launch template) for "
        "the Cluster Autoscaler's node-template tags"
    ),
}

# Resources that are not AWS API calls: Kubernetes objects and Helm releases (the cluster's API server), the
# providers themselves. Components (not custom) register no cloud resource at all.
NOT_AWS_PREFIXES = ("kubernetes:", "pulumi:providers:")


def table() -> str:
    """The Markdown table docs/rehearsal.md shows (generated, and asserted by the tests)."""
    rows = ["| Resource type | Operation | What moto lacks | The rehearsal |", "| --- | --- | --- | --- |"]
    for type_, gap in sorted(NOT_IMPLEMENTED.items()):
        rows.append(f"| `{type_}` | `{gap.operation}` | {gap.reason} | {VALIDATED_ONLY} |")
    for type_, what in sorted(EKS_SIDE.items()):
        rows.append(f"| `{type_}` | (EKS's side) | {what} | created as EKS would |")
    return "\n".join(rows) + "\n"
