"""The cluster program: read the stack's settings, build the layout, compose the components."""

from __future__ import annotations

import dataclasses

import pulumi

from mlplatform_core.model.access import access_grants
from mlplatform_core.model.addons.karpenter_controller import uses_karpenter
from mlplatform_core.model.addons.run_by_aws import on_auto_mode
from mlplatform_core.model.config import kubernetes_layer_of
from mlplatform_core.model.ml_settings.gpu_resources import gpu_resources
from mlplatform_core.model.ml_settings.mlrun import mlrun_env
from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.model.ml_settings.teams import team_settings

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


def cluster_program() -> None:
    """The cluster stack: what `pulumi up` in the project root builds."""
    valid = stack_settings()
    cfg, layout, workloads = valid.config, valid.layout, valid.workloads

    cluster = Cluster("cluster", cfg, layout)
    # Training groups: one subnet each, a placement group, EFA's security group (components/training_network.py).
    network = None
    if single_zone_groups(layout):
        network = TrainingNetwork(
            "training",
            layout,
            vpc_id=cluster.vpc_id,
            subnet_ids=cluster.private_subnet_ids,
            subnet_zones=cluster.private_subnet_zones,
            cluster=cluster.eks,
            tags=cluster.tags,
        )
    node_groups = {
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
    # The node monitoring agent (node repair) and the Pod Identity agent: EKS add-ons on every node.
    agents = NodeAgentAddons(
        "node-agents", layout, cluster.eks_cluster_name, cluster.kubernetes_version, tags=cluster.tags
    )
    identity_agent = [agents.pod_identity_agent] if agents.pod_identity_agent else []
    ClusterAccess("access", cluster.name, access_grants(cfg), depends_on=[cluster.eks], tags=cluster.tags)

    # The workload layer: priority classes, namespaces with job defaults, autoscaler, GPU plugin, CoreDNS,
    # storage. With kubernetesLayer `separate` the project's kubernetes-layer/ deploys it from inside the VPC.
    inline = kubernetes_layer_of(cfg) == "inline"
    if inline:
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

    # Karpenter provisions every group but the initial one: its controller runs on the initial node group.
    # Its AWS side lives here; its charts and NodePools go with the Kubernetes layer (kubernetes-layer/ when
    # separate), which reads the three outputs below. A stack moving to Auto Mode keeps it (its pools) for now.
    training_exports = network.exports() if network else {}
    karpenter_urn = f"urn:pulumi:{pulumi.get_stack()}::{pulumi.get_project()}::{KARPENTER_TYPE}::{KARPENTER}"
    if uses_karpenter(layout) or layout.retained_pools:
        karpenter_layout = dataclasses.replace(layout, node_pools=layout.retained_pools or layout.node_pools)
        karpenter = KarpenterInfrastructure(
            KARPENTER,
            layout,
            cluster,
            region=cfg.region,
            subnet_ids_to_tag=[] if cfg.network.creates_vpc else cluster.private_subnet_ids,
            tags=cluster.tags,
        )
        if inline:
            KarpenterPools(
                "karpenter-pools",
                karpenter_layout,
                platform.provider,
                node_role_name=karpenter.node_role_name,
                queue_name=karpenter.queue_name,
                controller_role_arn=karpenter.controller_role_arn,
                replicas=cfg.karpenter.replicas,
                depends_on=[*karpenter.ready, *identity_agent, *(g.node_group for g in node_groups.values())],
                tags=cluster.tags,
                image_registry=cfg.image_registry,
                training=training_exports,
            )
        pulumi.export("karpenterNodeRoleName", karpenter.node_role_name)
        pulumi.export("karpenterQueueName", karpenter.queue_name)
        pulumi.export("karpenterControllerRoleArn", karpenter.controller_role_arn)
        kept = karpenter_layout.node_pools
        pulumi.export("nodePools" if uses_karpenter(layout) else "karpenterNodePools", [p.k8s_name for p in kept])
        # Where single-zone pools launch: read by kubernetes-layer/ for their NodePools and EC2NodeClasses.
        pulumi.export("karpenterTraining", {p.name: training_exports[p.name] for p in kept if p.single_zone})

    # EKS Auto Mode runs the nodes of every pool (and of the built-in system pool): the cluster turned it on
    # and made the node role; the NodePools and NodeClasses go with the Kubernetes layer, which reads
    # autoModeNodeRoleName when it is separate.
    if on_auto_mode(layout):
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
        if inline:
            AutoModePools(
                "auto-mode-pools",
                layout,
                platform.provider,
                node_role_name=cluster.auto_mode_node_role_name,
                kms_key=cfg.auto_mode.ephemeral_storage_kms_key,
                depends_on=[cluster.eks, *auto_mode.ready],
                tags=cluster.tags,
                training=training_exports,
            )
        pulumi.export("autoModeNodeRoleName", cluster.auto_mode_node_role_name)
        # Where single-zone pools launch (zone, EFA security group): read by kubernetes-layer/ for its NodePools.
        pulumi.export(
            "autoModeTraining", {p.name: training_exports[p.name] for p in layout.node_pools if p.single_zone}
        )
        pulumi.export("nodePools", [pool.k8s_name for pool in layout.node_pools])

    pulumi.export("clusterName", cluster.name)
    pulumi.export("kubeconfig", cluster.kubeconfig_json)
    pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)  # read by kubernetes-layer/ (StackReference)
    pulumi.export("oidcProviderUrl", cluster.oidc_provider_url)
    pulumi.export("nodeGroups", {name: group.node_group_name for name, group in node_groups.items()})
    pulumi.export("mlrunEnv", mlrun_env(layout, workloads))
    pulumi.export("polyaxonEnvironments", polyaxon_environments(layout))
    if valid.teams is not None:  # per team: the queue and cost labels its jobs carry, where each tool puts them
        pulumi.export("teamSettings", team_settings(valid.teams, workloads))
    # What pods request on each GPU group (time-sliced or MIG devices, EFA): for MLRun's with_limits(gpu_type=)
    # and a Polyaxon run's container limits, next to the group's environment above.
    pulumi.export("gpuResources", gpu_resources(layout))
