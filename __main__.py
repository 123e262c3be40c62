"""Pulumi program: read the stack's configuration, build the layout, compose the components."""

import pulumi

from components.cluster import Cluster
from components.node_group import NodeGroup
from components.platform import Platform
from mlplatform_core.model.config import ConfigError
from mlplatform_core.model.ml_settings.mlrun import mlrun_env
from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.model.validation import validate_stack


def _stack_config() -> dict:
    # The engine hands config over as PULUMI_CONFIG or through set_all_config; read both.
    return {**pulumi.runtime.get_config_env(), **pulumi.runtime.config.CONFIG.get()}


try:
    valid = validate_stack(_stack_config(), pulumi.get_stack(), source=f"stack {pulumi.get_stack()}")
    cfg, layout, workloads = valid.config, valid.layout, valid.workloads
except ConfigError as err:
    raise pulumi.RunError(str(err)) from None

cluster = Cluster("cluster", cfg, layout)
node_groups = {
    spec.name: NodeGroup(
        spec,
        cluster_name=cluster.name,
        kubernetes_version=cluster.kubernetes_version,
        node_role_arn=cluster.node_role_arn,
        subnet_ids=cluster.private_subnet_ids,
        imds_hop_limit=layout.imds_hop_limit,
        tags=cluster.tags,
        opts=pulumi.ResourceOptions(depends_on=[cluster.eks]),
    )
    for spec in layout.groups
}

# The workload layer: priority classes, namespaces with job defaults, autoscaler, GPU plugin, CoreDNS.
platform = Platform(
    "platform",
    cluster,
    layout,
    workloads,
    region=cfg.region,
    kubernetes_version=cfg.kubernetes_version,
    node_group_names={name: group.node_group_name for name, group in node_groups.items()},
    depends_on=[group.node_group for group in node_groups.values()],
    tags=cluster.tags,
)

pulumi.export("clusterName", cluster.name)
pulumi.export("kubeconfig", cluster.kubeconfig_json)
pulumi.export("nodeGroups", {name: group.node_group_name for name, group in node_groups.items()})
pulumi.export("mlrunEnv", mlrun_env(layout, workloads))
pulumi.export("polyaxonEnvironments", polyaxon_environments(layout))
