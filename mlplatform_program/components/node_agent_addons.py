"""The EKS add-ons every node runs that the cluster program installs: the node monitoring agent (node repair)
and the Pod Identity agent (podIdentity).

AWS APIs only, so they come with the cluster: the Kubernetes layer's add-ons that get their AWS role through
Pod Identity find the agent in place, wherever that layer is deployed from. Versioned for the cluster's minor
like the other add-ons (EKS never upgrades an add-on by itself) and preserved: deleting the Pulumi resource
must not take the agents off a running cluster. Their DaemonSets need no node to become ACTIVE.
"""

from __future__ import annotations

from collections.abc import Mapping

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.addons import node_health, pod_identity
from mlplatform_core.model.layout import Layout


class NodeAgentAddons(pulumi.ComponentResource):
    addons: dict[str, aws.eks.Addon]

    def __init__(
        self,
        name: str,
        layout: Layout,
        cluster_name: pulumi.Input[str],
        kubernetes_version: str,
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("mlplatform:node_agents:NodeAgentAddons", name, None, opts)
        wanted = [node_health.NODE_MONITORING_ADDON] if layout.node_repair else []
        wanted += [pod_identity.AGENT_ADDON] if layout.pod_identity else []
        self.addons = {}
        for addon in wanted:
            version = aws.eks.get_addon_version_output(
                addon_name=addon,
                kubernetes_version=kubernetes_version,
                most_recent=True,
                opts=pulumi.InvokeOutputOptions(parent=self),
            )
            self.addons[addon] = aws.eks.Addon(
                f"{name}-{addon}",
                cluster_name=cluster_name,
                addon_name=addon,
                addon_version=version.version,
                resolve_conflicts_on_create="OVERWRITE",
                resolve_conflicts_on_update="OVERWRITE",
                preserve=True,
                tags=dict(tags or {}),
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.register_outputs({"addons": sorted(self.addons)})

    @property
    def pod_identity_agent(self) -> aws.eks.Addon | None:
        return self.addons.get(pod_identity.AGENT_ADDON)
