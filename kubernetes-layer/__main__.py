"""Pulumi program of the Kubernetes layer (kubernetesLayer: separate), run from inside the cluster's VPC.

It reads the same stack settings as the cluster program (Pulumi.yaml: stackConfigDir ../stacks) and
the cluster stack's outputs (kubeconfig, OIDC provider, node groups) through a StackReference, then
builds the Platform component the cluster program builds itself with kubernetesLayer: inline.
"""

import sys
from pathlib import Path

# Pulumi's Python host puts only this folder on sys.path; the components are the project's, one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pulumi

from components.cluster_reference import ClusterReference
from components.karpenter import KarpenterPools
from components.platform import Platform
from mlplatform_core.model.addons.karpenter import uses_karpenter
from mlplatform_core.model.cluster import resource_tags
from mlplatform_core.model.config import ConfigError, kubernetes_layer_of
from mlplatform_core.model.deployment import cluster_stack_reference
from mlplatform_core.model.validation import validate_stack

try:
    valid = validate_stack(
        pulumi.runtime.get_config_env(),  # all of PULUMI_CONFIG, as the language host hands it over
        pulumi.get_stack(),
        source=f"stack {pulumi.get_stack()}",
    )
    cfg, layout, workloads = valid.config, valid.layout, valid.workloads
except ConfigError as err:
    raise pulumi.RunError(str(err)) from None
if kubernetes_layer_of(cfg) != "separate":
    raise pulumi.RunError(
        f"stack {pulumi.get_stack()} deploys its Kubernetes layer with the cluster (kubernetesLayer: inline); "
        "run `pulumi up` in the project root only, or set kubernetesLayer: separate"
    )

cluster_stack = cluster_stack_reference(pulumi.get_organization(), pulumi.get_stack())
cluster = ClusterReference("cluster", cluster_stack, layout.cluster_name, [g.name for g in layout.managed_groups])
platform = Platform(
    "platform",
    cluster,
    layout,
    workloads,
    region=cfg.region,
    kubernetes_version=cfg.kubernetes_version,
    node_group_names=cluster.node_group_names,
    tags=resource_tags(cfg, layout),
)

if uses_karpenter(layout):
    # The cluster stack made Karpenter's role, queue and access entry; the charts and NodePools are ours.
    KarpenterPools(
        "karpenter-pools",
        layout,
        platform.provider,
        node_role_name=cluster.output("karpenterNodeRoleName"),
        queue_name=cluster.output("karpenterQueueName"),
        controller_role_arn=cluster.output("karpenterControllerRoleArn"),
        replicas=cfg.karpenter.replicas,
        tags=resource_tags(cfg, layout),
    )

pulumi.export("clusterStack", cluster_stack)
if platform.autoscaler_role_arn is not None:  # Karpenter stacks run no Cluster Autoscaler
    pulumi.export("autoscalerRoleArn", platform.autoscaler_role_arn)
