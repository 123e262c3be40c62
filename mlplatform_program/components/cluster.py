"""The EKS control plane: pulumi_eks.Cluster with the security baseline, its KMS key, network and node role."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks

from mlplatform_core.model import hardening
from mlplatform_core.model.addons.karpenter_controller import discovery_tags
from mlplatform_core.model.addons.run_by_aws import aws_runs_nodes, needs_node_addons
from mlplatform_core.model.automode import cluster as auto_mode
from mlplatform_core.model.cluster import (
    CONTROL_PLANE_LOG_TYPES,
    node_managed_policies,
    resource_tags,
)
from mlplatform_core.model.config import StackConfig
from mlplatform_core.model.deployment import private_api_cidrs
from mlplatform_core.model.layout import Layout

from .network import Vpc
from .node_roles import node_role


class Cluster(pulumi.ComponentResource):
    """Control plane, secrets-encryption key, node IAM role and (unless the stack brings one) the VPC."""

    name: str
    eks_cluster_name: pulumi.Output[str]
    kubeconfig_json: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_provider_url: pulumi.Output[str]
    node_role_arn: pulumi.Output[str]
    private_subnet_ids: list

    def __init__(self, name: str, cfg: StackConfig, layout: Layout, opts: pulumi.ResourceOptions | None = None):
        super().__init__("mlplatform:cluster:Cluster", name, None, opts)
        tags = resource_tags(cfg, layout)
        # Prod control plane, key and network are protected: deleting them destroys every workload.
        keep = pulumi.ResourceOptions(parent=self, protect=cfg.protected)
        child = pulumi.ResourceOptions(parent=self)

        vpc, vpc_id, subnet_ids, subnet_zones = self._network(name, cfg, layout, tags, keep)
        key = aws.kms.Key(
            f"{name}-secrets",
            description=f"Envelope encryption of Kubernetes secrets in {layout.cluster_name}",
            enable_key_rotation=True,
            deletion_window_in_days=30 if cfg.environment == "prod" else 7,
            tags=tags,
            opts=keep,
        )
        # The managed node groups' role (none when Auto Mode runs every node).
        self.node_role_arn: pulumi.Output[str] | None = None
        self.node_role_policies: list[pulumi.Resource] = []
        if layout.managed_groups:
            # Node groups depend on the policies (not only on the role), so that `pulumi destroy` keeps them
            # until the nodes are gone: EKS drains and deletes nodes with the node role's rights.
            role, self.node_role_policies = node_role(f"{name}-node", node_managed_policies(cfg.region), tags, child)
            self.node_role_arn = role.arn
        auto_mode_options = self._auto_mode(name, cfg, layout, tags, child)
        self.eks = self._control_plane(name, cfg, layout, (vpc_id, subnet_ids), key, tags, auto_mode_options, keep)
        if cfg.endpoint.private_access:
            self._private_api_rule(name, cfg, vpc_id, child)
        key_policy = self._key_policy(name, cfg, layout, key, with_flow_logs=vpc is not None)
        if vpc is not None:
            vpc.flow_logs(key.arn, key_policy)
        self.name = layout.cluster_name
        # The same name as an Output of the aws.eks.Cluster inside the component (pulumi_eks `eks_cluster`):
        # a resource that takes it waits for the control plane, and the state records the dependency.
        self.eks_cluster_name = self.eks.eks_cluster.name
        self.kubernetes_version = cfg.kubernetes_version
        self.kubeconfig_json = pulumi.Output.secret(self.eks.kubeconfig_json)
        self.oidc_provider_arn = self.eks.oidc_provider_arn
        self.oidc_provider_url = self.eks.oidc_provider_url
        self.private_subnet_ids = subnet_ids
        self.private_subnet_zones = subnet_zones
        self.vpc_id = vpc_id
        self.tags = tags
        self.register_outputs({"clusterName": self.name, "kubeconfig": self.kubeconfig_json})

    def _network(
        self, name: str, cfg: StackConfig, layout: Layout, tags: dict[str, str], keep: pulumi.ResourceOptions
    ) -> tuple[Vpc | None, object, list, list]:
        """The stack's VPC (unless it brings one), the VPC id, the private subnets and their zones."""
        net = cfg.network
        if net.creates_vpc:
            vpc = Vpc(
                f"{name}-vpc",
                net,
                cfg.environment,
                layout.cluster_name,
                tags,
                opts=keep,
                private_subnet_tags=discovery_tags(layout),
                region=cfg.region,
            )
            return vpc, vpc.vpc_id, vpc.private_subnet_ids, vpc.private_subnet_zones
        subnet_ids = list(net.private_subnet_ids or [])
        # The zones of subnets the stack does not create are looked up (single-zone groups pick by zone).
        subnet_zones = (
            [
                aws.ec2.get_subnet_output(id=s, opts=pulumi.InvokeOutputOptions(parent=self)).availability_zone
                for s in subnet_ids
            ]
            if any(g.single_zone for g in layout.groups)
            else []
        )
        return None, net.vpc_id, subnet_ids, subnet_zones

    def _control_plane(
        self,
        name: str,
        cfg: StackConfig,
        layout: Layout,
        subnets: tuple[object, list],
        key: aws.kms.Key,
        tags: dict[str, str],
        auto_mode_options: dict,
        keep: pulumi.ResourceOptions,
    ) -> eks.Cluster:
        """pulumi_eks.Cluster with the security baseline; `subnets`: the VPC id and its private subnets."""
        vpc_id, subnet_ids = subnets
        ep = cfg.endpoint
        return eks.Cluster(
            name,
            name=layout.cluster_name,
            version=cfg.kubernetes_version,
            vpc_id=vpc_id,
            private_subnet_ids=subnet_ids,
            skip_default_node_group=True,
            authentication_mode=eks.AuthenticationMode.API,
            create_oidc_provider=True,
            enabled_cluster_log_types=CONTROL_PLANE_LOG_TYPES,
            encryption_config_key_arn=key.arn,
            endpoint_private_access=ep.private_access,
            endpoint_public_access=ep.public_access,
            public_access_cidrs=ep.public_access_cidrs or None,
            deletion_protection=cfg.protected,
            # Never EKS's silent default (EXTENDED): the stack's choice, STANDARD in dev unless set.
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type=cfg.support_type),
            # The workload layer adopts CoreDNS as an EKS add-on pinned to the initial group; one owner only.
            coredns_addon_options=eks.CoreDnsAddonOptionsArgs(enabled=False),
            tags=tags,
            **auto_mode_options,
            opts=pulumi.ResourceOptions.merge(keep, pulumi.ResourceOptions(depends_on=self.auto_mode_node_policies)),
        )

    def _private_api_rule(self, name: str, cfg: StackConfig, vpc_id: object, child: pulumi.ResourceOptions) -> None:
        """The private endpoint answers only sources the cluster's security groups allow (nodes already are)."""
        api_cidrs = private_api_cidrs(cfg)
        if api_cidrs is None:  # an existing VPC: its own CIDR
            api_cidrs = [aws.ec2.get_vpc_output(id=vpc_id, opts=pulumi.InvokeOutputOptions(parent=self)).cidr_block]
        aws.ec2.SecurityGroupRule(
            f"{name}-api-private",
            type="ingress",
            description="Kubernetes API from inside the VPC (endpoint.privateAccessCidrs)",
            protocol="tcp",
            from_port=443,
            to_port=443,
            cidr_blocks=api_cidrs,
            security_group_id=self.eks.cluster_security_group_id,
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _key_policy(
        self, name: str, cfg: StackConfig, layout: Layout, key: aws.kms.Key, with_flow_logs: bool
    ) -> aws.kms.KeyPolicy:
        """The key's explicit policy, once the cluster's role exists: the account administers the key, only the
        cluster role uses it (model/hardening.py). Replaces the default policy (the account may do kms:*)."""
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        # With the stack's VPC, CloudWatch Logs may also use it for the flow-log group (CKV_AWS_158).
        logs_prefix = hardening.flow_log_group_prefix(layout.cluster_name) if with_flow_logs else None
        return aws.kms.KeyPolicy(
            f"{name}-secrets",
            key_id=key.id,
            policy=pulumi.Output.all(account, self.eks.eks_cluster.role_arn).apply(
                lambda a: json.dumps(hardening.secrets_key_policy(cfg.region, a[0], a[1], logs_prefix))
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _auto_mode(
        self, name: str, cfg: StackConfig, layout: Layout, tags: dict[str, str], child: pulumi.ResourceOptions
    ) -> dict:
        """pulumi_eks.Cluster's Auto Mode inputs, and the role of Auto Mode's nodes (model/automode/cluster.py).

        The role is the stack's own rather than pulumi-eks's (createNodeRole: false): EKS takes it as the
        cluster's nodeRoleArn only together with built-in pools, and the NodeClasses name it either way.
        pulumi-eks leaves out its own security groups with Auto Mode unless told otherwise; they stay, so a
        stack moving to Auto Mode keeps its cluster's vpcConfig as it is.
        """
        self.auto_mode_node_role_name: pulumi.Output[str] | None = None
        self.auto_mode_node_role_arn: pulumi.Output[str] | None = None
        self.auto_mode_node_policies: list[pulumi.Resource] = []
        if not aws_runs_nodes(layout):
            return {}
        role, self.auto_mode_node_policies = node_role(
            f"{name}-auto-node",
            auto_mode.node_role_policy_arns(cfg.region),
            tags,
            child,
            description=f"Nodes EKS Auto Mode launches in {layout.cluster_name}",
        )
        self.auto_mode_node_role_name = role.name
        self.auto_mode_node_role_arn = role.arn
        pools = auto_mode.builtin_node_pools(cfg)
        compute = aws.eks.ClusterComputeConfigArgs(node_pools=pools, node_role_arn=role.arn if pools else None)
        options: dict = {
            "auto_mode": eks.AutoModeOptionsArgs(enabled=True, create_node_role=False, compute_config=compute),
            "skip_default_security_groups": False,
        }
        if needs_node_addons(layout):  # managed node groups stay: their nodes need pod and service networking
            options["use_default_vpc_cni"] = False
            options["kube_proxy_addon_options"] = eks.KubeProxyAddonOptionsArgs(enabled=True)
        return options
