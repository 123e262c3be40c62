"""The cluster as the Kubernetes layer sees it from its own stack: the cluster stack's outputs, by StackReference."""

from __future__ import annotations

from collections.abc import Iterable

import pulumi

# What the cluster program exports as a secret (__main__.py). One secret export makes the StackReference's
# `outputs` secret as a whole (pulumi sdk/python runtime/rpc.py, deserialize_property pushes secretness up).
SECRET_EXPORTS = frozenset({"kubeconfig"})


def _export(outputs: dict, key: str, cluster_stack: str):
    if key not in outputs:
        raise KeyError(
            f"{cluster_stack} has no output {key!r}; run `pulumi up` for the cluster stack (project root) "
            "with this version of the project before the Kubernetes layer"
        )
    return outputs[key]


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
    eks_cluster_name: str
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
        self._cluster_stack = cluster_stack
        self.stack = pulumi.StackReference(cluster_stack, opts=pulumi.ResourceOptions(parent=self))
        # The cluster's name is stable and known from the shared stack settings; the rest is the cluster stack's.
        self.name = cluster_name
        self.eks_cluster_name = cluster_name  # the cluster exists already: nothing here waits for it
        self.kubeconfig_json = self.output("kubeconfig")
        self.oidc_provider_arn = self.output("oidcProviderArn")
        self.oidc_provider_url = self.output("oidcProviderUrl")
        # One Output for all groups: one per group, each over the whole mapping, grows with the square of them.
        wanted = list(node_groups)
        self.node_group_names: pulumi.Output[dict[str, str]] = self.output("nodeGroups").apply(
            lambda names: {g: _group(names, g, cluster_stack) for g in wanted}
        )
        self.register_outputs({"clusterStack": cluster_stack})

    def output(self, key: str) -> pulumi.Output:
        """One of the cluster stack's outputs, secret only if the cluster program exports it as one.

        Not StackReference.require_output: it unwraps every output of the stack, deeply, on each call
        (pulumi sdk/python stack_reference.py: Output.all(..., self.outputs)), which at hundreds of node
        groups costs seconds; an apply on `outputs` reads one key.
        """
        value = self.stack.outputs.apply(lambda outputs: _export(outputs, key, self._cluster_stack))
        return pulumi.Output.secret(value) if key in SECRET_EXPORTS else pulumi.Output.unsecret(value)
