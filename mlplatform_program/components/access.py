"""Who may use the cluster: one EKS access entry per IAM principal, with its access-policy associations.

`access_entry` is the reusable piece for any principal (a person's role, a CI role, a node role with
entry_type EC2_LINUX); `ClusterAccess` creates one per grant of the stack's `access` setting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.access import STANDARD, AccessGrant, PolicyAssociation


def access_entry(
    name: str,
    cluster_name: pulumi.Input[str],
    principal_arn: pulumi.Input[str],
    associations: Sequence[PolicyAssociation] = (),
    entry_type: str = STANDARD,
    tags: Mapping[str, str] | None = None,
    opts: pulumi.ResourceOptions | None = None,
) -> aws.eks.AccessEntry:
    """An access entry and its policy associations; `opts` (parent, depends_on) applies to all of them."""
    entry = aws.eks.AccessEntry(
        name,
        cluster_name=cluster_name,
        principal_arn=principal_arn,
        type=entry_type,
        tags=dict(tags or {}),
        opts=opts,
    )
    for assoc in associations:
        suffix = assoc.policy.removeprefix("AmazonEKS").removesuffix("Policy").lower()
        aws.eks.AccessPolicyAssociation(
            f"{name}-{suffix}",
            cluster_name=cluster_name,
            # From the entry, so the association waits for it (EKS refuses policies of a principal without one).
            principal_arn=entry.principal_arn,
            policy_arn=assoc.policy_arn,
            access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(
                type=assoc.scope, namespaces=list(assoc.namespaces) or None
            ),
            opts=opts,
        )
    return entry


class ClusterAccess(pulumi.ComponentResource):
    """The access entries of the stack's `access` setting (the cluster's creator is admin already)."""

    def __init__(
        self,
        name: str,
        cluster_name: pulumi.Input[str],
        grants: Sequence[AccessGrant],
        depends_on: Sequence[pulumi.Resource] = (),
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ):
        """`depends_on` (the cluster) applies to every entry: a component's own depends_on is not inherited."""
        super().__init__("mlplatform:access:ClusterAccess", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, depends_on=list(depends_on))
        self.entries = {
            g.principal_arn: access_entry(
                g.name, cluster_name, g.principal_arn, g.associations, g.entry_type, tags=tags, opts=child
            )
            for g in grants
        }
        self.register_outputs({"principals": list(self.entries)})
