"""Every Helm release a stack installs, with its chart and values: what the programs deploy and the proof renders.

The programs (mlplatform_program/components/platform.py and karpenter.py) pass the values Pulumi only knows at
deploy (IAM role ARNs, the interruption queue's name) as Outputs; the proof passes readable stand-ins, which
change no rendered workload or RBAC rule (the chart facts record which values do).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..layout import Layout
from ..provisioners import KARPENTER_PART, of
from . import autoscaler, charts, device_plugin, dra_driver, gpu_agents, karpenter_gates, node_health
from . import karpenter_controller as karpenter
from .charts import Chart


@dataclass(frozen=True)
class Release:
    name: str  # the Helm release name (the chart's name: the charts' resource names follow it)
    chart: Chart
    values: Mapping[str, Any]
    skip_crds: bool = False


@dataclass(frozen=True)
class DeployTimeValues:
    """What only exists at deploy; the defaults are the stand-ins the proof renders with."""

    region: str = "us-east-1"
    image_registry: str | None = None
    autoscaler_role_arn: Any = "<autoscaler role ARN>"
    karpenter_role_arn: Any = "<karpenter controller role ARN>"
    karpenter_queue: Any = "<interruption queue name>"
    karpenter_replicas: int = 2


def runs_karpenter(layout: Layout) -> bool:
    """Whether the stack installs Karpenter: its provisioner, or kept while moving to Auto Mode (keepKarpenter)."""
    return versions.KARPENTER in of(layout).autoscaling_charts(layout)


def karpenter_layout(layout: Layout) -> Layout:
    """The layout as Karpenter's releases and pools see it: with the pools of the provisioner's Karpenter part
    (while moving to Auto Mode, the pools it keeps)."""
    pools = next((p.pools for p in of(layout).parts(layout) if p.kind == KARPENTER_PART), layout.node_pools)
    return layout if pools is layout.node_pools else dataclasses.replace(layout, node_pools=pools)


def addons_of(layout: Layout) -> tuple[str, ...]:
    """The charts the layout installs (their versions must exist for its minor). Auto Mode runs the autoscaling and
    the GPU nodes' device plugin itself (run_by_aws.py): on it, only what migration keeps (Karpenter with
    keepKarpenter, the device plugin for kept GPU groups and pools)."""
    # The provisioner's: the Cluster Autoscaler, Karpenter, or none (never two autoscalers for the same pods).
    names: list[str] = list(of(layout).autoscaling_charts(layout))
    if device_plugin.plugin_groups(layout):
        names.append(versions.NVIDIA_DEVICE_PLUGIN)
    names += [chart for _, chart, _, _ in gpu_agents.wanted(layout)]
    if dra_driver.driver_groups(layout):
        names.append(versions.NVIDIA_DRA_DRIVER)
    return tuple(names)


def autoscaler_release(layout: Layout, at_deploy: DeployTimeValues) -> Release:
    role_arn = None if layout.pod_identity else at_deploy.autoscaler_role_arn  # Pod Identity: no IRSA annotation
    values = autoscaler.autoscaler_values(layout, at_deploy.region, role_arn, at_deploy.image_registry)
    chart = charts.chart(versions.CLUSTER_AUTOSCALER, layout.kubernetes_version)
    return Release(chart.name, chart, values)


def device_plugin_release(layout: Layout, at_deploy: DeployTimeValues) -> Release | None:
    values = device_plugin.device_plugin_values(layout, at_deploy.image_registry)
    if values is None:
        return None
    chart = charts.chart(versions.NVIDIA_DEVICE_PLUGIN, layout.kubernetes_version)
    return Release(chart.name, chart, values)


def karpenter_releases(layout: Layout, at_deploy: DeployTimeValues) -> tuple[Release, Release]:
    """The CRDs (karpenter-crd, which Helm upgrades with the release) and the controller (skipping the CRDs its
    own chart carries, which Helm would never upgrade)."""
    crds = karpenter.crd_chart(layout.kubernetes_version)
    controller = karpenter.chart(layout.kubernetes_version)
    values = karpenter.controller_values(
        layout.cluster_name,
        at_deploy.karpenter_queue,
        None if layout.pod_identity else at_deploy.karpenter_role_arn,  # Pod Identity: no IRSA annotation
        at_deploy.karpenter_replicas,
        {**node_health.karpenter_feature_gates(layout), **karpenter_gates.feature_gates(layout)},
        at_deploy.image_registry,
        karpenter_gates.dra_settings(layout),
    )
    return Release(crds.name, crds, {}), Release(controller.name, controller, values, skip_crds=True)


def stack_releases(layout: Layout, at_deploy: DeployTimeValues | None = None) -> tuple[Release, ...]:
    """Every release of the stack, in the order the programs create them."""
    at_deploy = at_deploy or DeployTimeValues()
    installed = addons_of(layout)
    out: list[Release] = []
    if versions.KARPENTER in installed:
        out += karpenter_releases(karpenter_layout(layout), at_deploy)
    if versions.CLUSTER_AUTOSCALER in installed:
        out.append(autoscaler_release(layout, at_deploy))
    if (plugin := device_plugin_release(layout, at_deploy)) is not None:
        out.append(plugin)
    out += gpu_releases(layout, at_deploy.image_registry)
    if (dra := dra_driver_release(layout, at_deploy)) is not None:
        out.append(dra)
    return tuple(out)


def dra_driver_release(layout: Layout, at_deploy: DeployTimeValues) -> Release | None:
    """The NVIDIA DRA driver for the gpuAllocation: dra groups (dra_driver.py), or None."""
    values = dra_driver.driver_values(layout, at_deploy.image_registry)
    if values is None:
        return None
    chart = charts.chart(versions.NVIDIA_DRA_DRIVER, layout.kubernetes_version)
    return Release(chart.name, chart, values)


def gpu_releases(layout: Layout, image_registry: str | None = None) -> list[Release]:
    """The EFA device plugin, the GPU operator and the DCGM exporter (gpu_agents.py), released under their charts'
    names like the others (the charts' resource names follow the release's)."""
    return [Release(r.chart.name, r.chart, r.values) for r in gpu_agents.releases(layout, image_registry)]


def namespace_defaults(layout: Layout) -> dict[str, frozenset[str]]:
    """Namespace -> the resources a LimitRange the toolkit creates there gives containers that request none."""
    out: dict[str, frozenset[str]] = {}
    if device_plugin.plugin_groups(layout):
        out[charts.DEVICE_PLUGIN_NAMESPACE] = frozenset(device_plugin.CONTAINER_DEFAULTS["defaultRequest"])
    if dra_driver.driver_groups(layout):
        namespace = charts.NAMESPACES[versions.NVIDIA_DRA_DRIVER]
        out[namespace] = frozenset(dra_driver.CONTAINER_DEFAULTS["defaultRequest"])
    return out
