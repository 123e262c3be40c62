"""The cluster program: read the stack's settings, build the layout, compose the components."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi

from mlplatform_core.model import provisioners
from mlplatform_core.model.access import access_grants
from mlplatform_core.model.config import StackConfig, kubernetes_layer_of
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.ml_settings.gpu_resources import gpu_resources
from mlplatform_core.model.ml_settings.mlrun import mlrun_env
from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.model.ml_settings.teams import team_settings
from mlplatform_core.model.provisioners import AUTO_MODE_PART, KARPENTER_PART, Part
from mlplatform_core.model.workloads import Workloads

from .components.access import ClusterAccess
from .components.automode import AutoModeInfrastructure, AutoModePools
from .components.cluster import Cluster
from .components.karpenter_provisioner import KarpenterInfrastructure, KarpenterPools
from .components.node_agent_addons import NodeAgentAddons
from .components.node_group import NodeGroup
from .components.platform import Platform
from .components.teams import TeamQueues
from .components.training_network import TrainingNetwork, single_zone_groups
from .stack_settings import stack_settings

KARPENTER = "karpenter"  # the KarpenterInfrastructure component's name
KARPENTER_TYPE = "mlplatform:karpenter:KarpenterInfrastructure"


@dataclass
class _Built:
    """What the cluster program made before the provisioner's components, which build on it."""

    cfg: StackConfig
    layout: Layout
    cluster: Cluster
    node_groups: dict[str, NodeGroup]
    identity_agent: list[pulumi.Resource]
    platform: Platform | None  # None: the Kubernetes layer is separate (kubernetes-layer/)
    training_exports: dict[str, Any]


def _training_network(cluster: Cluster, layout: Layout) -> TrainingNetwork | None:
    """Training groups: one subnet each, a placement group, EFA's security group (components/training_network.py)."""
    if not single_zone_groups(layout):
        return None
    return TrainingNetwork(
        "training",
        layout,
        vpc_id=cluster.vpc_id,
        subnet_ids=cluster.private_subnet_ids,
        subnet_zones=cluster.private_subnet_zones,
        cluster=cluster.eks,
        tags=cluster.tags,
    )


def _node_groups(cluster: Cluster, layout: Layout, network: TrainingNetwork | None) -> dict[str, NodeGroup]:
    return {
        spec.name: NodeGroup(
            spec,
            cluster_name=cluster.name,
            kubernetes_version=cluster.kubernetes_version,
            node_role_arn=cluster.node_role_arn,
            subnet_ids=cluster.private_subnet_ids,
            imds_hop_limit=layout.imds_hop_limit,
            tags=cluster.tags,
            eks_cluster_name=cluster.eks_cluster_name,  # waits for the control plane; never for other groups
            depends_on=cluster.node_role_policies,  # destroy detaches the node policies after the nodes are gone
            network=network.groups.get(spec.name) if network else None,
            autoscaler=layout.runs_cluster_autoscaler,  # kept groups of a migration: no autoscaler, no tags
        )
        for spec in layout.managed_groups
    }


def _karpenter(built: _Built, part: Part) -> None:
    """Karpenter provisions the part's pools: its controller runs on the initial node group. Its AWS side lives
    here; its charts and NodePools go with the Kubernetes layer (kubernetes-layer/ when separate), which reads the
    three outputs below. A stack moving to Auto Mode keeps it (its pools) for now."""
    cfg, layout, cluster = built.cfg, built.layout, built.cluster
    karpenter_layout = dataclasses.replace(layout, node_pools=part.pools)
    karpenter = KarpenterInfrastructure(
        KARPENTER,
        layout,
        cluster,
        region=cfg.region,
        subnet_ids_to_tag=[] if cfg.network.creates_vpc else cluster.private_subnet_ids,
        tags=cluster.tags,
    )
    if built.platform is not None:
        KarpenterPools(
            "karpenter-pools",
            karpenter_layout,
            built.platform.provider,
            node_role_name=karpenter.node_role_name,
            queue_name=karpenter.queue_name,
            controller_role_arn=karpenter.controller_role_arn,
            replicas=cfg.karpenter.replicas,
            depends_on=[*karpenter.ready, *built.identity_agent, *(g.node_group for g in built.node_groups.values())],
            tags=cluster.tags,
            image_registry=cfg.image_registry,
            training=built.training_exports,
        )
    pulumi.export("karpenterNodeRoleName", karpenter.node_role_name)
    pulumi.export("karpenterQueueName", karpenter.queue_name)
    pulumi.export("karpenterControllerRoleArn", karpenter.controller_role_arn)
    pulumi.export(part.pools_export, [p.k8s_name for p in part.pools])
    # Where single-zone pools launch: read by kubernetes-layer/ for their NodePools and EC2NodeClasses.
    pulumi.export("karpenterTraining", {p.name: built.training_exports[p.name] for p in part.pools if p.single_zone})


def _auto_mode(built: _Built, part: Part) -> None:
    """EKS Auto Mode runs the nodes of every pool (and of the built-in system pool): the cluster turned it on and
    made the node role; the NodePools and NodeClasses go with the Kubernetes layer, which reads
    autoModeNodeRoleName when it is separate."""
    cfg, layout, cluster = built.cfg, built.layout, built.cluster
    karpenter_urn = f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{KARPENTER_TYPE}::{KARPENTER}"
    auto_mode = AutoModeInfrastructure(
        "auto-mode",
        cfg,
        layout,
        cluster.eks,
        node_role_arn=cluster.auto_mode_node_role_arn,
        subnet_ids_to_tag=[] if cfg.network.creates_vpc else cluster.private_subnet_ids,
        karpenter=(karpenter_urn, KARPENTER),
        tags=cluster.tags,
        cluster_role_arn=cluster.eks.eks_cluster.role_arn,
    )
    if built.platform is not None:
        AutoModePools(
            "auto-mode-pools",
            layout,
            built.platform.provider,
            node_role_name=cluster.auto_mode_node_role_name,
            kms_key=cfg.auto_mode.ephemeral_storage_kms_key,
            depends_on=[cluster.eks, *auto_mode.ready],
            tags=cluster.tags,
            training=built.training_exports,
        )
    pulumi.export("autoModeNodeRoleName", cluster.auto_mode_node_role_name)
    # Where single-zone pools launch (zone, EFA security group): read by kubernetes-layer/ for its NodePools.
    pulumi.export("autoModeTraining", {p.name: built.training_exports[p.name] for p in part.pools if p.single_zone})
    pulumi.export(part.pools_export, [pool.k8s_name for pool in part.pools])


# The components of each kind a provisioner declares (model/provisioners Part.kind), by name: a new kind is one
# function here.
PARTS: dict[str, Callable[[_Built, Part], None]] = {KARPENTER_PART: _karpenter, AUTO_MODE_PART: _auto_mode}


def _exports(built: _Built, workloads: Workloads, teams: Any) -> None:
    cluster, layout = built.cluster, built.layout
    pulumi.export("clusterName", cluster.name)
    pulumi.export("kubeconfig", cluster.kubeconfig_json)
    pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)  # read by kubernetes-layer/ (StackReference)
    pulumi.export("oidcProviderUrl", cluster.oidc_provider_url)
    pulumi.export("nodeGroups", {name: group.node_group_name for name, group in built.node_groups.items()})
    pulumi.export("mlrunEnv", mlrun_env(layout, workloads))
    pulumi.export("polyaxonEnvironments", polyaxon_environments(layout))
    if teams is not None:  # per team: the queue and cost labels its jobs carry, where each tool puts them
        pulumi.export("teamSettings", team_settings(teams, workloads))
    # What pods request on each GPU group (time-sliced or MIG devices, EFA): for MLRun's with_limits(gpu_type=)
    # and a Polyaxon run's container limits, next to the group's environment above.
    pulumi.export("gpuResources", gpu_resources(layout))


def cluster_program() -> None:
    """The cluster stack: what `pulumi up` in the project root builds."""
    valid = stack_settings()
    cfg, layout, workloads = valid.config, valid.layout, valid.workloads

    cluster = Cluster("cluster", cfg, layout)
    network = _training_network(cluster, layout)
    node_groups = _node_groups(cluster, layout, network)
    # The node monitoring agent (node repair) and the Pod Identity agent: EKS add-ons on every node.
    agents = NodeAgentAddons(
        "node-agents", layout, cluster.eks_cluster_name, cluster.kubernetes_version, tags=cluster.tags
    )
    identity_agent = [agents.pod_identity_agent] if agents.pod_identity_agent else []
    ClusterAccess("access", cluster.name, access_grants(cfg), depends_on=[cluster.eks], tags=cluster.tags)

    # The workload layer: priority classes, namespaces with job defaults, autoscaler, GPU plugin, CoreDNS,
    # storage. With kubernetesLayer `separate` the project's kubernetes-layer/ deploys it from inside the VPC.
    platform = None
    if kubernetes_layer_of(cfg) == "inline":
        platform = Platform(
            "platform",
            cluster,
            layout,
            workloads,
            region=cfg.region,
            kubernetes_version=cfg.kubernetes_version,
            node_group_names={name: group.node_group_name for name, group in node_groups.items()},
            node_groups={name: group.node_group for name, group in node_groups.items()},  # each add-on its hosts
            tags=cluster.tags,
            image_registry=cfg.image_registry,
            identity_agent=identity_agent,
        )
        if valid.teams is not None:  # Kueue and the teams' queues, after the namespaces and core nodes
            TeamQueues(
                "teams",
                layout,
                valid.teams,
                platform.provider,
                cfg.image_registry,
                [*platform.objects, platform.storage],
            )
    training = network.exports() if network else {}
    built = _Built(cfg, layout, cluster, node_groups, identity_agent, platform, training)
    # The provisioner's own components (Karpenter, Auto Mode; none for node groups), in its order.
    for part in provisioners.of(layout).parts(layout):
        PARTS[part.kind](built, part)
    _exports(built, workloads, valid.teams)
