"""Karpenter, in two parts that follow the stack's two layers.

- KarpenterInfrastructure (the cluster program: AWS APIs only): the node role and its access entry, the
  interruption queue with its EventBridge rules, the controller's IAM role, the discovery tags.
- KarpenterPools (wherever the Kubernetes layer runs: the cluster program with kubernetesLayer inline,
  kubernetes-layer/ with separate): the charts and one NodePool + EC2NodeClass per pool.

A thin shell over the pure core: mlplatform_core.model.karpenter gives the pools and their manifests,
mlplatform_core.model.addons.karpenter_controller the chart pins, values, IAM documents and queue rules.

Dependencies are also the destroy order: NodePools and EC2NodeClasses go first (Karpenter drains and
terminates their nodes through its finalizers), then the controller, then its IAM and queue; the other
way round the instances would be orphaned. Split over two stacks, the Kubernetes layer's stack is
destroyed before the cluster's (docs/deploying.md: destroying).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from mlplatform_core.model.addons import karpenter_controller as addon
from mlplatform_core.model.addons import releases
from mlplatform_core.model.cluster import node_managed_policies
from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.scheduling import ENVIRONMENT_LABEL
from mlplatform_core.model.workloads import MANAGED_LABELS

from . import node_roles
from .discovery import discovery_tags
from .pool_resources import pool_resources, training_lookup
from .service_roles import service_role


class ClusterLike(Protocol):
    name: str
    eks: pulumi.Resource
    eks_cluster_name: pulumi.Input[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_provider_url: pulumi.Output[str]


def _kebab(name: str) -> str:
    """NodeLifecycle -> node-lifecycle, EKSIntegration -> eks-integration (resource names)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name).lower()


class KarpenterInfrastructure(pulumi.ComponentResource):
    """What Karpenter needs in AWS: node role and access entry, interruption queue, controller IAM, discovery."""

    node_role_name: pulumi.Output[str]
    queue_name: pulumi.Output[str]
    controller_role_arn: pulumi.Output[str]
    ready: list[pulumi.Resource]  # what the controller and the node classes need in place first

    def __init__(
        self,
        name: str,
        layout: Layout,
        cluster: ClusterLike,
        region: str,
        subnet_ids_to_tag: Sequence[pulumi.Input[str]] = (),
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ):
        """`subnet_ids_to_tag`: the private subnets this stack does not create (a created VPC tags its own
        subnets for discovery)."""
        super().__init__("mlplatform:karpenter:KarpenterInfrastructure", name, None, opts)
        tags = dict(tags or {})
        child = pulumi.ResourceOptions(parent=self)
        cluster_name = layout.cluster_name

        # A node role of its own: a principal has one access entry, and the managed groups' role has EKS's.
        node_role, node_policies = node_roles.node_role(
            f"{name}-node",
            node_managed_policies(region),
            tags,
            child,
            description=f"Nodes Karpenter launches in {cluster_name}",
        )
        # EC2_LINUX: EKS maps the role to system:nodes itself; this type takes no access policies.
        access = aws.eks.AccessEntry(
            f"{name}-node",
            cluster_name=cluster_name,
            principal_arn=node_role.arn,
            type="EC2_LINUX",
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[cluster.eks]),
        )

        queue, interruption = self._interruption(name, cluster_name, tags)
        sr, policies = self._controller_role(name, layout, cluster, region, node_role.arn, queue.arn, tags)
        role = sr.role

        # Discovery: the security group EKS created for the cluster and the subnets this stack does not create.
        discovery = discovery_tags(name, cluster_name, cluster.eks, subnet_ids_to_tag, self)

        self.node_role_name = node_role.name
        self.queue_name = queue.name
        self.controller_role_arn = role.arn
        self.ready = [access, *node_policies, *policies, *interruption, *discovery, *sr.ready]
        self.register_outputs(
            {"controllerRoleArn": role.arn, "nodeRoleName": node_role.name, "interruptionQueue": queue.name}
        )

    def _interruption(
        self, name: str, cluster_name: str, tags: dict[str, str]
    ) -> tuple[aws.sqs.Queue, list[pulumi.Resource]]:
        """Interruption: EC2 and AWS Health events -> EventBridge -> SQS -> the controller drains ahead of time."""
        child = pulumi.ResourceOptions(parent=self)
        settings = addon.queue_settings()
        queue = aws.sqs.Queue(
            f"{name}-interruption",
            message_retention_seconds=settings["messageRetentionSeconds"],
            sqs_managed_sse_enabled=settings["sqsManagedSseEnabled"],
            tags=tags,
            opts=child,
        )
        queue_policy = aws.sqs.QueuePolicy(
            f"{name}-interruption",
            queue_url=queue.id,  # an SQS queue's id is its URL
            policy=queue.arn.apply(lambda arn: json.dumps(addon.queue_policy(arn))),
            opts=child,
        )
        interruption: list[pulumi.Resource] = [queue_policy]
        for rule_name, pattern in addon.interruption_rules().items():
            short = _kebab(rule_name).removesuffix("-rule")
            rule = aws.cloudwatch.EventRule(
                f"{name}-{short}",
                description=f"Karpenter interruption handling for {cluster_name}: {rule_name}",
                event_pattern=json.dumps(pattern),
                tags=tags,
                opts=child,
            )
            interruption.append(
                aws.cloudwatch.EventTarget(
                    f"{name}-{short}",
                    rule=rule.name,
                    arn=queue.arn,
                    target_id="KarpenterInterruptionQueueTarget",
                    opts=child,
                )
            )
        return queue, interruption

    def _controller_role(
        self,
        name: str,
        layout: Layout,
        cluster: ClusterLike,
        region: str,
        node_role_arn: pulumi.Output[str],
        queue_arn: pulumi.Output[str],
        tags: dict[str, str],
    ) -> tuple[Any, list[pulumi.Resource]]:
        """The controller's role for its one service account (IRSA, or Pod Identity), Karpenter's reference
        policies."""
        cluster_name = layout.cluster_name
        sr = service_role(
            f"{name}-controller",
            use_pod_identity=layout.pod_identity,
            cluster_name=cluster_name,
            eks_cluster_name=cluster.eks_cluster_name,  # an Output of the EKS cluster: the association waits for it
            oidc_provider_arn=cluster.oidc_provider_arn,
            oidc_provider_url=cluster.oidc_provider_url,
            namespace=addon.NAMESPACE,
            service_account=addon.SERVICE_ACCOUNT,
            description=f"Karpenter controller of {cluster_name} ({'Pod Identity' if layout.pod_identity else 'IRSA'})",
            tags=tags,
            parent=self,
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        documents = pulumi.Output.all(account, node_role_arn, queue_arn).apply(
            lambda a: addon.controller_policies(cluster_name, region, a[0], a[1], a[2])
        )
        policies = [
            aws.iam.RolePolicy(
                f"{name}-controller-{_kebab(policy)}",
                role=sr.role.id,
                policy=documents.apply(lambda d, p=policy: json.dumps(d[p])),
                opts=pulumi.ResourceOptions(parent=self),
            )
            for policy in addon.controller_policy_names()
        ]
        return sr, policies


class KarpenterPools(pulumi.ComponentResource):
    """The Karpenter charts (controller on the initial group) and the layout's NodePools and EC2NodeClasses."""

    def __init__(
        self,
        name: str,
        layout: Layout,
        provider: k8s.Provider,
        node_role_name: pulumi.Input[str],
        queue_name: pulumi.Input[str],
        controller_role_arn: pulumi.Input[str],
        replicas: int,
        depends_on: Sequence[pulumi.Resource] = (),
        tags: Mapping[str, str] | None = None,
        image_registry: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
        training: pulumi.Input[Mapping[str, Mapping[str, str]]] | None = None,
    ):
        """`depends_on` should hold the initial node group (where the controller runs) and, in the same program,
        the KarpenterInfrastructure's `ready` resources; in kubernetes-layer/ the cluster stack holds them.
        `training`: per single-zone pool its zone, placement group and EFA security group (the cluster program's
        TrainingNetwork, or its `karpenterTraining` output). `image_registry`: the mirror the controller's image is
        pulled from (the stack's imageRegistry)."""
        super().__init__("mlplatform:karpenter:KarpenterPools", name, None, opts)
        tags = dict(tags or {})
        # The charts: CRDs from karpenter-crd (Helm upgrades them with the release), then the controller.
        helm = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=list(depends_on))
        at_deploy = releases.DeployTimeValues(
            image_registry=image_registry,
            karpenter_role_arn=controller_role_arn,
            karpenter_queue=queue_name,
            karpenter_replicas=replicas,
        )
        crd_release, controller_release = releases.karpenter_releases(layout, at_deploy)
        crds = self._release("karpenter-crd", crd_release, helm)

        self.controller = self._release(
            "karpenter",
            controller_release,
            pulumi.ResourceOptions.merge(helm, pulumi.ResourceOptions(depends_on=[crds, *depends_on])),
        )

        self._pools(layout, provider, node_role_name, tags, training, depends_on)
        self.register_outputs({"nodePools": [p.name for p in layout.node_pools]})

    def _pools(
        self,
        layout: Layout,
        provider: k8s.Provider,
        node_role_name: pulumi.Input[str],
        tags: dict[str, str],
        training: pulumi.Input[Mapping[str, Mapping[str, str]]] | None,
        depends_on: Sequence[pulumi.Resource],
    ) -> None:
        """One NodePool and EC2NodeClass per pool of the layout, after the controller."""
        of = training_lookup(training)
        # The environment label tells the policy pack which environment's rules apply (mlplatform_policies props).
        meta_labels = {**MANAGED_LABELS, ENVIRONMENT_LABEL: layout.environment}
        self.node_pools: dict[str, k8s.apiextensions.CustomResource] = {}
        on_cluster = pulumi.ResourceOptions(parent=self, provider=provider)
        for pool in layout.node_pools:
            self.node_pools[pool.name] = pool_resources(
                pool,
                "ec2nodeclass",
                manifests.node_class_spec(
                    pool,
                    node_role_name,
                    layout.cluster_name,
                    tags,
                    placement_group=of(pool.name, "placementGroup") if pool.placement_group else None,
                    efa_security_group=of(pool.name, "efaSecurityGroup") if pool.efa else None,
                ),
                meta_labels,
                on_cluster,
                class_depends_on=[self.controller, *depends_on],
                pool_depends_on=[self.controller],
                pool_spec=manifests.node_pool_spec(pool, zone=of(pool.name, "zone") if pool.single_zone else None),
            )

    def _release(self, name: str, release: releases.Release, opts: pulumi.ResourceOptions) -> k8s.helm.v3.Release:
        chart = release.chart
        return k8s.helm.v3.Release(
            name,
            name=release.name,
            chart=addon.chart_ref(chart),  # an OCI chart: the full reference, no repository
            version=chart.version,
            namespace=chart.namespace,
            values=dict(release.values),
            skip_crds=release.skip_crds,
            atomic=True,
            cleanup_on_fail=True,
            opts=opts,
        )
