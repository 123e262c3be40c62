"""The workload layer on a running cluster: Kubernetes objects, add-ons and the autoscaler's IAM role.

A thin shell over the pure core: mlplatform_core.model.workloads gives the objects,
mlplatform_core.model.addons the chart versions, values and policies. Everything Kubernetes goes
through one provider made from the cluster's kubeconfig.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from mlplatform_core.model import addon_versions
from mlplatform_core.model.addons import autoscaler, charts, coredns, device_plugin, dra_driver, gpu_agents, releases
from mlplatform_core.model.addons.core_services import core_services_groups
from mlplatform_core.model.addons.device_plugin import device_plugin_groups
from mlplatform_core.model.addons.run_by_aws import aws_runs_nodes, needs_node_addons
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.ml_settings.mlrun import mlrun_env
from mlplatform_core.model.workloads import MANAGED_LABELS, Workloads, manifests

from .service_roles import service_role
from .storage import Storage

MLRUN_SETTINGS_CONFIG_MAP = "mlrun-spot-settings"


class ClusterLike(Protocol):
    name: str
    eks_cluster_name: pulumi.Input[str]  # the name as an Output of the EKS cluster: takers wait for it
    kubeconfig_json: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_provider_url: pulumi.Output[str]


# PriorityClass value and preemptionPolicy are immutable: a change replaces the class, and the
# old one (same fixed name) must go first.
_PRIORITY_CLASS_OPTS = {"replace_on_changes": ["value", "preemptionPolicy"], "delete_before_replace": True}


def _k8s_resource(obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """The pulumi_kubernetes resource for one manifest of workloads.manifests."""
    kind, meta = obj["kind"], obj["metadata"]
    name = f"{meta['namespace']}-{meta['name']}" if "namespace" in meta else meta["name"]
    name = f"{kind.lower()}-{name}"
    if kind == "PriorityClass":
        return k8s.scheduling.v1.PriorityClass(
            name,
            metadata=meta,
            value=obj["value"],
            preemption_policy=obj["preemptionPolicy"],
            global_default=obj["globalDefault"],
            description=obj["description"],
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(**_PRIORITY_CLASS_OPTS)),
        )
    if kind == "Namespace":
        return k8s.core.v1.Namespace(name, metadata=meta, opts=opts)
    if kind == "LimitRange":
        return k8s.core.v1.LimitRange(name, metadata=meta, spec=obj["spec"], opts=opts)
    if kind == "ResourceQuota":
        return k8s.core.v1.ResourceQuota(name, metadata=meta, spec=obj["spec"], opts=opts)
    raise ValueError(f"no Pulumi resource for kind {kind}")


class Platform(pulumi.ComponentResource):
    """Priority classes, workload namespaces, cluster autoscaler, NVIDIA device plugin, CoreDNS, EBS CSI storage."""

    provider: k8s.Provider
    autoscaler_role_arn: pulumi.Output[str] | None

    def __init__(
        self,
        name: str,
        cluster: ClusterLike,
        layout: Layout,
        workloads: Workloads,
        region: str,
        kubernetes_version: str,
        node_group_names: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None = None,
        node_groups: Mapping[str, pulumi.Resource] | None = None,
        tags: Mapping[str, str] | None = None,
        image_registry: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
        identity_agent: Sequence[pulumi.Resource] = (),
    ):
        """`node_group_names` (layout name -> EKS node group name) sharpen the autoscaler's priorities.
        `image_registry`: the mirror the charts' images are pulled from (the stack's imageRegistry).

        `node_groups` (layout name -> aws.eks.NodeGroup, in the same program): an add-on waits for the groups
        its pods run on and no others (CoreDNS, the autoscaler and the EBS CSI controller for the initial
        group, the device plugin for the GPU groups that need it), since the Helm releases and the EKS add-ons
        wait for their pods to be ready; the other groups come up alongside. In kubernetes-layer/ the groups
        belong to the cluster stack, which exists before this one runs.
        """
        super().__init__("mlplatform:platform:Platform", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self._groups = dict(node_groups or {})
        self.provider = k8s.Provider(
            f"{name}-k8s", kubeconfig=cluster.kubeconfig_json, enable_server_side_apply=True, opts=child
        )
        on_cluster = pulumi.ResourceOptions(parent=self, provider=self.provider)
        on_core_nodes = self._on_nodes(core_services_groups(layout))
        self._workload_objects(layout, workloads, on_cluster)

        # Cluster Autoscaler: a role bound to its one service account (IRSA, or Pod Identity), scoped scaling
        # rights. Not with Karpenter or Auto Mode: two autoscalers would both launch nodes for the same pending pods.
        self.autoscaler: k8s.helm.v3.Release | None = None
        self.autoscaler_role_arn = None
        at_deploy = releases.DeployTimeValues(region=region, image_registry=image_registry)
        if addon_versions.CLUSTER_AUTOSCALER in releases.addons_of(layout):
            waits = (list(on_core_nodes.depends_on or []), list(identity_agent))
            self._autoscaler(name, cluster, layout, region, at_deploy, tags, node_group_names, on_cluster, waits)
        self._gpu_addons(layout, at_deploy, on_cluster)

        self._node_addons(name, cluster, layout, region, kubernetes_version, tags, on_core_nodes, identity_agent)
        self.register_outputs(
            {
                "autoscalerRoleArn": self.autoscaler_role_arn,
                "priorityClasses": [p.name for p in workloads.priority_classes],
                "namespaces": [ns.name for ns in workloads.namespaces],
            }
        )

    def _node_addons(
        self,
        name: str,
        cluster: ClusterLike,
        layout: Layout,
        region: str,
        kubernetes_version: str,
        tags: Mapping[str, str] | None,
        on_core_nodes: pulumi.ResourceOptions,
        identity_agent: Sequence[pulumi.Resource],
    ) -> None:
        """CoreDNS and block storage (the EBS CSI add-on, or Auto Mode's) with the default StorageClass."""
        # EKS installs CoreDNS unmanaged; adopting it as a managed add-on (OVERWRITE) lets us place it.
        # Preserved: deleting the Pulumi resource must never delete cluster DNS. Versioned for the cluster's
        # minor, as pulumi-eks does for its add-ons: EKS never upgrades an add-on by itself. Auto Mode nodes
        # answer DNS themselves: no CoreDNS without managed node groups (model/addons/run_by_aws.py).
        self.coredns: aws.eks.Addon | None = None
        node_addons = needs_node_addons(layout)
        if node_addons:
            self._coredns(name, cluster, kubernetes_version, tags, on_core_nodes)
        self.storage = Storage(
            f"{name}-storage",
            cluster.eks_cluster_name,
            kubernetes_version,
            region,
            cluster.oidc_provider_arn,
            cluster.oidc_provider_url,
            provider=self.provider,
            depends_on=[*on_core_nodes.depends_on, *identity_agent],  # the controller runs on the initial group
            ebs_csi_driver=node_addons,
            auto_mode=aws_runs_nodes(layout),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
            cluster_name=layout.cluster_name,
            use_pod_identity=layout.pod_identity,
        )

    def _on_nodes(self, names: Sequence[str]) -> pulumi.ResourceOptions:
        """Options that wait for the node groups `names` (those of this program; others exist already)."""
        return pulumi.ResourceOptions(parent=self, depends_on=[self._groups[n] for n in names if n in self._groups])

    def _workload_objects(
        self, layout: Layout, workloads: Workloads, on_cluster: pulumi.ResourceOptions
    ) -> dict[str, pulumi.Resource]:
        """Priority classes, namespaces and their objects, and MLRun's spot settings; the namespaces by name."""
        # Namespaced objects wait for their namespace: manifests() lists namespaces first.
        namespaces: dict[str, pulumi.Resource] = {}
        self.objects: list[pulumi.CustomResource] = []
        for obj in manifests(workloads):
            ns = obj["metadata"].get("namespace")
            opts_ = (
                on_cluster
                if ns is None
                else pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[namespaces[ns]]))
            )
            res = _k8s_resource(obj, opts_)
            if obj["kind"] == "Namespace":
                namespaces[obj["metadata"]["name"]] = res
            self.objects.append(res)

        # MLRun's spot settings as a cluster object too (the same env as the mlrunEnv export): MLRun's API
        # can load it with envFrom, and the policy pack checks its tolerations against the spot taints.
        self.mlrun_settings = k8s.core.v1.ConfigMap(
            "configmap-mlrun-spot-settings",
            metadata={
                "name": MLRUN_SETTINGS_CONFIG_MAP,
                "namespace": workloads.mlrun_namespace,
                "labels": dict(MANAGED_LABELS),
            },
            data=mlrun_env(layout, workloads),
            opts=pulumi.ResourceOptions.merge(
                on_cluster, pulumi.ResourceOptions(depends_on=[namespaces[workloads.mlrun_namespace]])
            ),
        )
        return namespaces

    def _autoscaler(
        self,
        name: str,
        cluster: ClusterLike,
        layout: Layout,
        region: str,
        at_deploy: releases.DeployTimeValues,
        tags: Mapping[str, str] | None,
        node_group_names: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None,
        on_cluster: pulumi.ResourceOptions,
        waits: tuple[list, list],
    ) -> None:
        """The Cluster Autoscaler's role, policy, release and priority expander config. `waits`: the core nodes'
        groups and the Pod Identity agent, which the release waits for (with the role)."""
        core_hosts, identity_agent = waits
        chart = charts.chart(addon_versions.CLUSTER_AUTOSCALER, layout.kubernetes_version)
        identity = "Pod Identity" if layout.pod_identity else "IRSA"
        sr = service_role(
            f"{name}-autoscaler",
            use_pod_identity=layout.pod_identity,
            cluster_name=layout.cluster_name,
            eks_cluster_name=cluster.eks_cluster_name,
            oidc_provider_arn=cluster.oidc_provider_arn,
            oidc_provider_url=cluster.oidc_provider_url,
            namespace=chart.namespace,
            service_account=autoscaler.AUTOSCALER_SERVICE_ACCOUNT,
            description=f"Cluster Autoscaler of {layout.cluster_name} ({identity})",
            tags=tags,
            parent=self,
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        aws.iam.RolePolicy(
            f"{name}-autoscaler",
            role=sr.role.id,
            policy=account.apply(lambda a: json.dumps(autoscaler.autoscaler_policy(layout.cluster_name, region, a))),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.autoscaler_role_arn = sr.role.arn

        release = releases.autoscaler_release(layout, dataclasses.replace(at_deploy, autoscaler_role_arn=sr.role.arn))
        self.autoscaler = self._release(
            "cluster-autoscaler",
            release,
            pulumi.ResourceOptions.merge(
                on_cluster,
                pulumi.ResourceOptions(depends_on=[*core_hosts, *sr.ready, *identity_agent]),
            ),
        )
        self._priorities(layout, chart.namespace, node_group_names, on_cluster)

    def _priorities(
        self,
        layout: Layout,
        namespace: str,
        node_group_names: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None,
        on_cluster: pulumi.ResourceOptions,
    ) -> None:
        # The priorities name the EKS node groups, so they wait for all of them; the autoscaler does not.
        priorities = (
            pulumi.Output.from_input(node_group_names).apply(lambda n: autoscaler.expander_priorities(layout, n))
            if node_group_names is not None
            else autoscaler.expander_priorities(layout)
        )
        self.autoscaler_priorities = k8s.core.v1.ConfigMap(
            "configmap-cluster-autoscaler-priority-expander",
            metadata={
                "name": autoscaler.PRIORITY_CONFIG_MAP,
                "namespace": namespace,
                "labels": dict(MANAGED_LABELS),
            },
            data=pulumi.Output.from_input(priorities).apply(autoscaler.priority_config_map_data),
            opts=on_cluster,
        )

    def _gpu_addons(
        self, layout: Layout, at_deploy: releases.DeployTimeValues, on_cluster: pulumi.ResourceOptions
    ) -> None:
        """The NVIDIA device plugin, and EFA, MIG and GPU metrics: each DaemonSet on the groups that need it
        (model/addons/gpu_agents.py). The GPU operator's controller runs on the initial group; its MIG manager on
        the MIG groups."""
        self.device_plugin = None
        plugin = releases.device_plugin_release(layout, at_deploy)
        if plugin is not None:
            # Its own namespace, with the LimitRange that gives the chart's config-manager containers requests.
            self.device_plugin = self._namespaced_release(
                "nvidia-device-plugin",
                plugin,
                device_plugin.namespace_objects(),
                device_plugin_groups(layout),
                on_cluster,
            )
        self._dra_driver(layout, at_deploy, on_cluster)
        self.gpu_releases: dict[str, k8s.helm.v3.Release] = {}
        for release in gpu_agents.releases(layout, at_deploy.image_registry):
            self.gpu_releases[release.name] = self._release(
                release.name,
                # Helm names the release after its chart, as for the charts above.
                releases.Release(release.chart.name, release.chart, release.values),
                pulumi.ResourceOptions.merge(on_cluster, self._on_nodes(release.hosts)),
            )

    def _dra_driver(
        self, layout: Layout, at_deploy: releases.DeployTimeValues, on_cluster: pulumi.ResourceOptions
    ) -> None:
        """GPUs through DRA (gpuAllocation: dra): the NVIDIA DRA driver on exactly those groups, in its own
        namespace with the LimitRange that gives the chart's init container requests (model/addons/dra_driver.py)."""
        self.dra_driver = None
        dra = releases.dra_driver_release(layout, at_deploy)
        if dra is not None:
            self.dra_driver = self._namespaced_release(
                dra.chart.name, dra, dra_driver.namespace_objects(), dra_driver.driver_group_names(layout), on_cluster
            )

    def _namespaced_release(
        self,
        name: str,
        release: releases.Release,
        objects: Sequence[Mapping[str, Any]],
        hosts: Sequence[str],
        on_cluster: pulumi.ResourceOptions,
    ) -> k8s.helm.v3.Release:
        """A release in its own namespace, after that namespace and its LimitRange (`objects`), waiting for the
        node groups it runs on (`hosts`)."""
        ns_obj, limits_obj = objects
        ns = _k8s_resource(ns_obj, on_cluster)
        limits = _k8s_resource(
            limits_obj, pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[ns]))
        )
        self.objects += [ns, limits]
        return self._release(
            name,
            release,
            pulumi.ResourceOptions.merge(
                pulumi.ResourceOptions.merge(on_cluster, self._on_nodes(hosts)),
                pulumi.ResourceOptions(depends_on=[ns, limits]),
            ),
        )

    def _coredns(
        self,
        name: str,
        cluster: ClusterLike,
        kubernetes_version: str,
        tags: Mapping[str, str] | None,
        opts: pulumi.ResourceOptions,
    ) -> None:
        self.coredns = aws.eks.Addon(
            f"{name}-coredns",
            cluster_name=cluster.eks_cluster_name,
            addon_name=coredns.ADDON_NAME,
            addon_version=aws.eks.get_addon_version_output(
                addon_name=coredns.ADDON_NAME,
                kubernetes_version=kubernetes_version,
                most_recent=True,
                opts=pulumi.InvokeOutputOptions(parent=self),
            ).version,
            configuration_values=json.dumps(coredns.coredns_configuration()),
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            preserve=True,
            tags=dict(tags or {}),
            opts=opts,
        )

    def _release(self, name: str, release: releases.Release, opts: pulumi.ResourceOptions) -> k8s.helm.v3.Release:
        chart = release.chart
        return k8s.helm.v3.Release(
            name,
            name=release.name,
            chart=chart.name,
            version=chart.version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=chart.repo),
            namespace=chart.namespace,
            values=dict(release.values),
            atomic=True,
            cleanup_on_fail=True,
            create_namespace=chart.namespace not in ("kube-system", "default"),
            opts=opts,
        )
