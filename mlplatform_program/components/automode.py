"""EKS Auto Mode's parts of the stack, in two pieces that follow the stack's two layers.

- AutoModeInfrastructure (the cluster program: AWS APIs only): the discovery tags its NodeClasses select
  subnets and the cluster security group by, and the node role's access entry when EKS does not make it
  (no built-in pool: model/automode/cluster.py). The node role itself and Auto Mode's switch are the
  cluster's (components/cluster.py): computeConfig names the role.
- AutoModePools (wherever the Kubernetes layer runs): one NodeClass and one NodePool per pool.

No chart, controller role or interruption queue: AWS runs Auto Mode's Karpenter. Deleting a NodePool
makes Auto Mode drain and terminate its nodes; the NodeClass goes after its pool, the node role after
both (they name it), so the dependencies are also the destroy order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from mlplatform_core.model.automode import cluster as auto_mode
from mlplatform_core.model.automode import manifests as node_classes
from mlplatform_core.model.automode import tag_policy
from mlplatform_core.model.config import StackConfig
from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.scheduling import ENVIRONMENT_LABEL
from mlplatform_core.model.workloads import MANAGED_LABELS

from .access import access_entry
from .discovery import discovery_tags
from .pool_resources import pool_resources, training_lookup


class AutoModeInfrastructure(pulumi.ComponentResource):
    """Discovery tags and, without built-in pools, the node role's EC2 access entry."""

    ready: list[pulumi.Resource]  # what the NodeClasses need in place first

    def __init__(
        self,
        name: str,
        cfg: StackConfig,
        layout: Layout,
        eks_cluster: pulumi.Resource,
        node_role_arn: pulumi.Input[str],
        subnet_ids_to_tag: Sequence[pulumi.Input[str]] = (),
        karpenter: tuple[str, str] | None = None,
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
        cluster_role_arn: pulumi.Input[str] | None = None,
    ):
        """`cluster_role_arn`: the cluster's IAM role, which gets the permission to tag with the NodeClasses' tags
        (model/automode/tag_policy.py). `subnet_ids_to_tag`: the private subnets this stack does not create (a
        created VPC tags its own).
        `karpenter` (component URN, name): Karpenter's component, whose discovery tags these take over once the
        stack keeps Karpenter no more; while it does (layout.retained_pools), Karpenter's tags serve both."""
        super().__init__("mlplatform:automode:AutoModeInfrastructure", name, None, opts)
        self.ready = []
        if not layout.retained_pools:
            self.ready = discovery_tags(
                name, layout.cluster_name, eks_cluster, subnet_ids_to_tag, self, moved_from=karpenter
            )
        if not auto_mode.eks_creates_node_access_entry(cfg):
            self.ready.append(
                access_entry(
                    f"{name}-node",
                    layout.cluster_name,
                    node_role_arn,
                    [auto_mode.node_access_association(cfg.region)],
                    auto_mode.ACCESS_ENTRY_TYPE,
                    tags=tags,
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[eks_cluster]),
                )
            )
        if layout.node_pools and cluster_role_arn is not None:
            # Without it Auto Mode cannot launch a NodeClass's nodes with their tags: the NodeClasses wait for it.
            policy = tag_policy.custom_tags_policy(tag_policy.node_class_tag_keys(tags or {}))
            self.ready.append(
                aws.iam.RolePolicy(
                    f"{name}-custom-tags",
                    role=pulumi.Output.from_input(cluster_role_arn).apply(lambda arn: arn.rsplit("/", 1)[-1]),
                    policy=json.dumps(policy),
                    opts=pulumi.ResourceOptions(parent=self),
                )
            )
        self.register_outputs({})


class AutoModePools(pulumi.ComponentResource):
    """The layout's NodePools on Auto Mode, each with its NodeClass (eks.amazonaws.com/v1)."""

    def __init__(
        self,
        name: str,
        layout: Layout,
        provider: k8s.Provider,
        node_role_name: pulumi.Input[str],
        kms_key: str | None = None,
        depends_on: Sequence[pulumi.Resource] = (),
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
        training: pulumi.Input[Mapping[str, Mapping[str, str]]] | None = None,
    ):
        """`depends_on`: in the same program, the AutoModeInfrastructure's `ready` resources and the cluster (the
        NodeClass and NodePool APIs exist once Auto Mode is on); in kubernetes-layer/ the cluster stack holds them.
        `training`: per single-zone pool its zone, placement group and EFA security group (the cluster program's
        TrainingNetwork, or its `autoModeTraining` output)."""
        super().__init__("mlplatform:automode:AutoModePools", name, None, opts)
        tags = dict(tags or {})
        # The environment label tells the policy pack which environment's rules apply, as on Karpenter's objects.
        meta_labels = {**MANAGED_LABELS, ENVIRONMENT_LABEL: layout.environment}
        on_cluster = pulumi.ResourceOptions(parent=self, provider=provider)
        of = training_lookup(training)

        self.node_pools: dict[str, k8s.apiextensions.CustomResource] = {}
        for pool in layout.node_pools:
            self.node_pools[pool.name] = pool_resources(
                pool,
                "nodeclass",
                node_classes.node_class_spec(
                    pool,
                    node_role_name,
                    layout.cluster_name,
                    tags,
                    kms_key,
                    efa_security_group=of(pool.name, "efaSecurityGroup") if pool.efa else None,
                    placement_group=of(pool.name, "placementGroup") if pool.placement_group else None,
                ),
                meta_labels,
                on_cluster,
                class_depends_on=list(depends_on),
                pool_spec=manifests.node_pool_spec(pool, zone=of(pool.name, "zone") if pool.single_zone else None),
            )
        self.register_outputs({"nodePools": [p.name for p in layout.node_pools]})
