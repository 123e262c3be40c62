"""The GPU and EFA add-ons besides the NVIDIA device plugin: the EFA device plugin, NVIDIA's MIG manager (GPU
operator) and the DCGM exporter, each on exactly the groups that need it, tolerating every taint they carry.

Sources of the charts' pod placement (what the values below leave in place):
- aws-efa-k8s-device-plugin (aws/eks-charts stable/aws-efa-k8s-device-plugin @ 52396092): the DaemonSet always
  tolerates CriticalAddonsOnly and appends `tolerations`; `nodeSelector` as given; its node affinity requires
  `node.kubernetes.io/instance-type` In `supportedInstanceLabels.values` and no Auto Mode compute type;
- gpu-operator v26.7.0: the operator labels GPU nodes (`nvidia.com/gpu.present=true`) for its operands and
  the MIG manager lands where `nvidia.com/gpu.deploy.mig-manager=true`, which it sets on MIG-capable GPUs
  unless `nvidia.com/gpu.deploy.operands=false` (controllers/state_manager.go); operands tolerate
  `daemonsets.tolerations`. With the AL2023 NVIDIA AMI's driver and container toolkit in place the operator
  runs only the MIG manager and GPU feature discovery (which reports MIG capability);
- dcgm-exporter (NVIDIA/dcgm-exporter deployment/values.yaml @ 4.5.3-4.8.2): `nodeSelector`, `tolerations`
  replace the defaults; its ServiceMonitor needs the Prometheus operator's CRDs, so it is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..layout import Layout, NodeGroupSpec
from ..layout.sharing import GPU_OPERATOR_OPERANDS_LABEL
from ..scheduling import CRITICAL_ADDONS_TAINT, EFA_LABEL, GPU_PRESENT_LABEL, Toleration
from . import charts
from .affinity import expression, not_on, required
from .core_services import core_services_groups, core_services_placement

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def tolerations_for(groups: tuple[NodeGroupSpec, ...], *always: Toleration) -> list[dict[str, str]]:
    """Tolerations of every repelling taint the groups carry (one per taint unless one already covers it)."""
    tolerations = list(always)
    for g in groups:
        for taint in g.taints:
            if taint.repels and not any(t.tolerates(taint) for t in tolerations):
                tolerations.append(Toleration.for_taint(taint))
    return [t.to_dict() for t in tolerations]


# --- EFA device plugin --------------------------------------------------------------------------------------


def efa_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """The EFA groups whose nodes need the plugin: not Auto Mode's, whose image runs its own (aws/eks-charts PR
    #1359, maintainer, 2026-08-17: "the EFA device plugin is already included in Auto Mode AMIs")."""
    kept = (*layout.retained_groups, *layout.retained_pool_groups)  # while migrating, they keep their plugin
    return tuple(g for g in (*layout.groups, *kept) if g.efa and not g.auto_mode)


def efa_plugin_values(layout: Layout) -> dict[str, Any] | None:
    groups = efa_groups(layout)
    if not groups:
        return None
    types = sorted({t for g in groups for t in g.instance_types})
    return {
        "nodeSelector": {EFA_LABEL: "true"},
        "tolerations": tolerations_for(groups),
        # The chart's affinity allows the types of this list only; name the groups' own.
        "supportedInstanceLabels": {"keys": [INSTANCE_TYPE_LABEL], "values": types},
    }


def efa_plugin_placement(layout: Layout) -> dict[str, Any] | None:
    values = efa_plugin_values(layout)
    if values is None:
        return None
    types = values["supportedInstanceLabels"]["values"]
    return {
        "nodeSelector": values["nodeSelector"],
        "tolerations": [Toleration(CRITICAL_ADDONS_TAINT.key, "Exists").to_dict(), *values["tolerations"]],
        "affinity": required([expression(INSTANCE_TYPE_LABEL, "In", *types), not_on("auto")]),
        "hostNetwork": True,
        "priorityClassName": "system-node-critical",
    }


# --- MIG manager (NVIDIA GPU operator) -------------------------------------------------------------------------


def mig_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    return tuple(g for g in layout.groups if g.sharing is not None and g.sharing.kind == "mig")


def gpu_operator_values(layout: Layout) -> dict[str, Any] | None:
    """The GPU operator as a MIG manager only: the AMI brings the driver and toolkit, our plugin the devices."""
    groups = mig_groups(layout)
    if not groups:
        return None
    return {
        "operator": core_services_placement(),
        "nfd": {"enabled": False},  # the toolkit labels GPU nodes nvidia.com/gpu.present itself
        "cdi": {"enabled": False},
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "devicePlugin": {"enabled": False},
        "dcgm": {"enabled": False},
        "dcgmExporter": {"enabled": False},
        "gfd": {"enabled": True},
        "migManager": {"enabled": True},
        "daemonsets": {"tolerations": tolerations_for(groups), "priorityClassName": "system-node-critical"},
    }


def mig_manager_placement(layout: Layout) -> dict[str, Any] | None:
    """Where the operator's operands land: GPU nodes it may deploy to (the deploy labels it sets at runtime are
    modelled by the labels they follow from)."""
    values = gpu_operator_values(layout)
    if values is None:
        return None
    return {
        "tolerations": values["daemonsets"]["tolerations"],
        "affinity": required(
            [expression(GPU_PRESENT_LABEL, "In", "true"), expression(GPU_OPERATOR_OPERANDS_LABEL, "NotIn", "false")]
        ),
        "priorityClassName": "system-node-critical",
    }


# --- DCGM exporter ---------------------------------------------------------------------------------------------


def dcgm_exporter_values(layout: Layout, enabled: bool) -> dict[str, Any] | None:
    if not enabled or not layout.gpu_groups:
        return None
    return {
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "tolerations": tolerations_for(layout.gpu_groups),
        "serviceMonitor": {"enabled": False},
    }


def dcgm_exporter_placement(layout: Layout, enabled: bool) -> dict[str, Any] | None:
    values = dcgm_exporter_values(layout, enabled)
    if values is None:
        return None
    return {k: values[k] for k in ("nodeSelector", "tolerations")} | {"priorityClassName": "system-node-critical"}


@dataclass(frozen=True)
class Release:
    """A Helm release of these add-ons and the groups its pods run on (its deployment waits for those only)."""

    name: str
    chart: charts.Chart
    values: dict[str, Any]
    hosts: tuple[str, ...]


def releases(layout: Layout) -> list[Release]:
    """The releases the stack needs: EFA plugin (EFA groups), GPU operator (controller on the initial group),
    DCGM exporter (gpuMetrics)."""
    wanted = (
        ("efa-device-plugin", charts.EFA_DEVICE_PLUGIN, efa_plugin_values(layout), efa_groups(layout)),
        ("gpu-operator", charts.GPU_OPERATOR, gpu_operator_values(layout), ()),
        ("dcgm-exporter", charts.DCGM_EXPORTER, dcgm_exporter_values(layout, layout.gpu_metrics), layout.gpu_groups),
    )
    out = []
    for name, chart, values, groups in wanted:
        if values is not None:
            hosts = tuple(g.name for g in groups) or core_services_groups(layout)
            out.append(Release(name, chart, values, hosts))
    return out
