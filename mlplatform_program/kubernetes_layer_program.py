"""The Kubernetes-layer program (kubernetesLayer: separate), run from inside the cluster's VPC.

It reads the same stack settings as the cluster program (the project's kubernetes-layer/Pulumi.yaml:
stackConfigDir ../stacks) and the cluster stack's outputs (kubeconfig, OIDC provider, node groups)
through a StackReference, then builds the Platform component the cluster program builds itself with
kubernetesLayer: inline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pulumi

from mlplatform_core.model import provisioners
from mlplatform_core.model.cluster import resource_tags
from mlplatform_core.model.config import PROJECT, StackConfig, kubernetes_layer_of
from mlplatform_core.model.deployment import cluster_stack_reference
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.provisioners import AUTO_MODE_PART, KARPENTER_PART, Part

from .components.automode import AutoModePools
from .components.cluster_reference import ClusterReference
from .components.karpenter_provisioner import KarpenterPools
from .components.platform import Platform
from .components.teams import TeamQueues
from .stack_settings import stack_settings


@dataclass
class _Built:
    """What the layer made before the provisioner's components, which build on it."""

    cfg: StackConfig
    layout: Layout
    cluster: ClusterReference
    platform: Platform
    tags: Mapping[str, str]


def _karpenter(built: _Built, part: Part) -> None:
    """The cluster stack made Karpenter's role, queue and access entry; the charts and NodePools are ours
    (while a stack moves to Auto Mode: the pools it keeps)."""
    if not part.pools:
        return
    cfg, cluster = built.cfg, built.cluster
    KarpenterPools(
        "karpenter-pools",
        dataclasses.replace(built.layout, node_pools=part.pools),
        built.platform.provider,
        node_role_name=cluster.output("karpenterNodeRoleName"),
        queue_name=cluster.output("karpenterQueueName"),
        controller_role_arn=cluster.output("karpenterControllerRoleArn"),
        replicas=cfg.karpenter.replicas,
        tags=built.tags,
        image_registry=cfg.image_registry,
        training=cluster.output("karpenterTraining") if any(p.single_zone for p in part.pools) else None,
    )


def _auto_mode(built: _Built, part: Part) -> None:
    """The cluster stack turned Auto Mode on and made the node role (and its access entry, if EKS does not)."""
    cluster = built.cluster
    AutoModePools(
        "auto-mode-pools",
        built.layout,
        built.platform.provider,
        node_role_name=cluster.output("autoModeNodeRoleName"),
        kms_key=built.cfg.auto_mode.ephemeral_storage_kms_key,
        tags=built.tags,
        training=cluster.output("autoModeTraining") if any(p.single_zone for p in part.pools) else None,
    )


# The components of each kind a provisioner declares (model/provisioners Part.kind), by name.
PARTS: dict[str, Callable[[_Built, Part], None]] = {KARPENTER_PART: _karpenter, AUTO_MODE_PART: _auto_mode}


def kubernetes_layer_program(cluster_project: str = PROJECT) -> None:
    """The Kubernetes-layer stack: what `pulumi up` in kubernetes-layer/ builds.

    `cluster_project` is the Pulumi project of the cluster program (the `name` in the Pulumi.yaml one
    folder up): the layer reads that project's stack of the same name, <organization>/<project>/<stack>.
    """
    valid = stack_settings()
    cfg, layout, workloads = valid.config, valid.layout, valid.workloads
    if kubernetes_layer_of(cfg) != "separate":
        raise pulumi.RunError(
            f"stack {pulumi.get_stack()} deploys its Kubernetes layer with the cluster (kubernetesLayer: inline); "
            "run `pulumi up` in the project root only, or set kubernetesLayer: separate"
        )
    tags = resource_tags(cfg, layout)
    cluster_stack = cluster_stack_reference(pulumi.get_organization(), pulumi.get_stack(), cluster_project)
    cluster = ClusterReference("cluster", cluster_stack, layout.cluster_name, [g.name for g in layout.managed_groups])
    platform = Platform(
        "platform",
        cluster,
        layout,
        workloads,
        region=cfg.region,
        kubernetes_version=cfg.kubernetes_version,
        node_group_names=cluster.node_group_names,
        tags=tags,
        image_registry=cfg.image_registry,
    )
    if valid.teams is not None:  # Kueue and the teams' queues, after the namespaces and core nodes
        TeamQueues(
            "teams", layout, valid.teams, platform.provider, cfg.image_registry, [*platform.objects, platform.storage]
        )

    # The provisioner's own components (Karpenter's charts and pools, Auto Mode's pools), in its order.
    built = _Built(cfg, layout, cluster, platform, tags)
    for part in provisioners.of(layout).parts(layout):
        PARTS[part.kind](built, part)

    pulumi.export("clusterStack", cluster_stack)
    if platform.autoscaler_role_arn is not None:  # Karpenter and Auto Mode stacks run no Cluster Autoscaler
        pulumi.export("autoscalerRoleArn", platform.autoscaler_role_arn)
