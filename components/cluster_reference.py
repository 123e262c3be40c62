"""The cluster as the Kubernetes layer sees it from its own stack: the cluster stack's outputs, by StackReference."""

from __future__ import annotations

from collections.abc import Iterable

import pulumi


def _group(names: dict, group: str, cluster_stack: str) -> str:
    if group not in names:
        raise ValueError(
            f"node group {group} is not in {cluster_stack}'s outputs yet; run `pulumi up` for the cluster "
            "stack (project root) before the Kubernetes layer"
        )
    return names[group]


class ClusterReference(pulumi.ComponentResource):
    """What components/platform.py needs of a cluster (its ClusterLike), read from the cluster stack's outputs."""

    name: str
    kubeconfig_json: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_provider_url: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        cluster_stack: str,
        cluster_name: str,
        node_groups: Iterable[str],
        opts: pulumi.ResourceOptions | None = None,
    ):
        """`cluster_stack` is the fully qualified stack name (org/project/stack); `cluster_name` the layout's."""
        super().__init__("mlplatform:cluster_reference:ClusterReference", name, None, opts)
        self.stack = pulumi.StackReference(cluster_stack, opts=pulumi.ResourceOptions(parent=self))
        # The cluster's name is stable and known from the shared stack settings; the rest is the cluster stack's.
        self.name = cluster_name
        self.kubeconfig_json = pulumi.Output.secret(self.stack.require_output("kubeconfig"))
        self.oidc_provider_arn = self.stack.require_output("oidcProviderArn")
        self.oidc_provider_url = self.stack.require_output("oidcProviderUrl")
        exported = self.stack.require_output("nodeGroups")
        self.node_group_names = {
            g: exported.apply(lambda names, g=g: _group(names, g, cluster_stack)) for g in node_groups
        }
        self.register_outputs({"clusterStack": cluster_stack})
