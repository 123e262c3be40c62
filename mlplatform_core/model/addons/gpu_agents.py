"""The GPU and EFA add-ons besides the NVIDIA device plugin: the EFA device plugin, NVIDIA's MIG manager (GPU
operator) and the DCGM exporter, each on exactly the groups that need it, tolerating every taint they carry.

Their chart versions follow the cluster's minor (data/addon_versions.json) and their workloads, RBAC, resources
and securityContext are proven as the charts render (data/charts, scripts/generators/render_charts.py;
model/addons/proof.py). What the values below rely on, from the charts at their pinned tags:
- aws-efa-k8s-device-plugin (aws/eks-charts stable/aws-efa-k8s-device-plugin): the DaemonSet always tolerates
  CriticalAddonsOnly and appends `tolerations`; `nodeSelector` as given; its node affinity requires
  `node.kubernetes.io/instance-type` In `supportedInstanceLabels.values` and no Auto Mode compute type;
- gpu-operator: the chart renders the operator (a Deployment) and its ClusterPolicy; the operator creates the
  operands at runtime (not rendered by helm: modelled in node_agents.py): the MIG manager lands where
  `nvidia.com/gpu.deploy.mig-manager=true`, which it sets on MIG-capable GPUs unless
  `nvidia.com/gpu.deploy.operands=false` (controllers/state_manager.go); operands tolerate `daemonsets.tolerations`.
  With the AL2023 NVIDIA AMI's driver and container toolkit in place the operator runs only the MIG manager and
  GPU feature discovery (which reports MIG capability), with Node Feature Discovery (its subchart), whose PCI
  labels are how the operator recognises GPU nodes at all (nfd.py);
- dcgm-exporter (NVIDIA/dcgm-exporter deployment/): `nodeSelector`, `tolerations` replace the defaults; its
  ServiceMonitor needs the Prometheus operator's CRDs, so it is off.

DCGM exporter and the EKS node monitoring agent (nodeRepair) on one GPU node: without `-r` the exporter starts
its own DCGM host engine in its process (NVIDIA/dcgm-exporter pkg/cmd/app.go: UseRemoteHE is `-r` being set;
internal/pkg/dcgmprovider/dcgm.go: dcgm.Embedded otherwise), while the agent's chart runs `nv-hostengine -n -b ALL`
privileged with hostPort 5555 on every NVIDIA GPU node (aws/eks-node-monitoring-agent
charts/eks-node-monitoring-agent/templates/dcgm-daemonset.yaml @ 51af5494). No port clashes (the exporter serves
9400 in its pod's network, the embedded engine opens none), but two host engines would each manage the same GPUs
(watches, health checks, the profiling counters), which NVIDIA's exporter guide says to avoid on nodes that run
nv-hostengine ("appropriate configuration options should be used"). So with both, the exporter is configured as a
client of the agent's host engine: `-r $(NODE_IP):5555`, NODE_IP the node's address (the hostPort).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..layout import Layout, NodeGroupSpec
from ..layout.gpu_metrics import dcgm_server
from ..layout.sharing import GPU_OPERATOR_OPERANDS_LABEL
from ..provisioners import launcher
from ..scheduling import EFA_LABEL, GPU_PRESENT_LABEL, Toleration
from . import charts, nfd
from .affinity import expression, required
from .core_services import core_services_placement, placement_groups

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


# What these charts' workloads need beyond the hardening baseline (proof.py), by chart and workload, as rendered.
HOST_NEEDS: dict[str, dict[str, str]] = {
    versions.EFA_DEVICE_PLUGIN: {
        "aws-efa-k8s-device-plugin": (
            "runs privileged as root on the host network with host paths, as its chart sets since AWS made it "
            "privileged for the EFA and Neuron devices (aws/eks-charts #1245, 2025-09): it registers with the "
            "kubelet's root-owned /var/lib/kubelet/device-plugins and hands the node's /dev/infiniband EFA devices "
            "(and Neuron tools) to pods"
        )
    },
    versions.GPU_OPERATOR: {
        "gpu-operator": (
            "a controller the chart gives no securityContext value (deployments/gpu-operator/templates/"
            "operator.yaml): the image's defaults apply; it only talks to the API server"
        ),
        nfd.WORKER: (
            "reads the node's hardware and OS through read-only host paths (/boot, /etc/os-release, /sys, /usr/lib, "
            "/lib: node-feature-discovery templates/worker.yaml) to publish the PCI labels the GPU operator "
            "recognises GPU nodes by; otherwise non-root, read-only, every capability dropped (the chart's default)"
        ),
    },
    versions.DCGM_EXPORTER: {
        "dcgm-exporter": (
            "runs as root with CAP_SYS_ADMIN (the chart's default, for DCGM's profiling metrics; under the runtime's "
            "default seccomp profile) and reads the kubelet's /var/lib/kubelet/pod-resources host path to name the "
            "pods using each GPU"
        )
    },
}


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
    return tuple(g for g in (*layout.groups, *kept) if g.efa and not launcher(g).run_by_aws)


def efa_plugin_values(layout: Layout, image_registry: str | None = None) -> dict[str, Any] | None:
    groups = efa_groups(layout)
    if not groups:
        return None
    types = sorted({t for g in groups for t in g.instance_types})
    values: dict[str, Any] = {}
    if image_registry:  # AWS's ECR in us-west-2 by default: another partition's stack needs a mirror
        values["image"] = {"repository": charts.image_repository(versions.EFA_DEVICE_PLUGIN, image_registry)}
    return values | {
        "nodeSelector": {EFA_LABEL: "true"},
        "tolerations": tolerations_for(groups),
        # The chart's affinity allows the types of this list only; name the groups' own.
        "supportedInstanceLabels": {"keys": [INSTANCE_TYPE_LABEL], "values": types},
    }


# --- MIG manager (NVIDIA GPU operator) -------------------------------------------------------------------------


def mig_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    return tuple(g for g in layout.groups if g.sharing is not None and g.sharing.kind == "mig")


def gpu_operator_values(layout: Layout, image_registry: str | None = None) -> dict[str, Any] | None:
    """The GPU operator as a MIG manager only: the AMI brings the driver and toolkit, our plugin the devices."""
    groups = mig_groups(layout)
    if not groups:
        return None
    values = _gpu_operator_values(layout, groups)
    if image_registry:  # the operator and each operand it runs (the generated data names their repositories)
        repositories = versions.chart_source(versions.GPU_OPERATOR)["repositories"]
        for key, repository in repositories.items():
            values.setdefault(key, {})["repository"] = charts.moved(repository, image_registry)
        values["node-feature-discovery"]["image"] = {"repository": charts.moved(nfd.IMAGE, image_registry)}
    return values


def _gpu_operator_values(layout: Layout, groups: tuple[NodeGroupSpec, ...]) -> dict[str, Any]:
    return {
        "operator": {
            **core_services_placement(layout),
            # A controller: memory limit = request (the chart's default limit, 350Mi, as the request too).
            "resources": {"requests": {"cpu": "200m", "memory": "350Mi"}, "limits": {"memory": "350Mi"}},
        },
        # The operator recognises GPU nodes by NFD's PCI labels only and clears gpu.present where they are missing
        # (nfd.py): NFD runs wherever the operator does, its workers on every GPU node.
        "nfd": {"enabled": True},
        "node-feature-discovery": nfd.nfd_values(layout),
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


# Where the node monitoring agent's host engine listens on the GPU nodes it serves (its dcgm-server DaemonSet's
# hostPort, generated: layout/gpu_metrics.py; the exporter's default counters file is the chart's own `arguments`).
AGENT_HOST_ENGINE_PORT = int(dcgm_server()["hostPort"])
DCGM_DEFAULT_ARGUMENTS = ["-f", "/etc/dcgm-exporter/default-counters.csv"]


def shares_agent_host_engine(layout: Layout) -> bool:
    """Whether the exporter's GPU nodes run the node monitoring agent's DCGM host engine (nodeRepair on a group
    that is not Auto Mode's: node_agents.py installs the agent there)."""
    return layout.node_repair and any(not launcher(g).run_by_aws for g in layout.gpu_groups)


def dcgm_exporter_values(layout: Layout, enabled: bool, image_registry: str | None = None) -> dict[str, Any] | None:
    if not enabled or not layout.gpu_groups:
        return None
    values: dict[str, Any] = {
        **(
            {"image": {"repository": charts.image_repository(versions.DCGM_EXPORTER, image_registry)}}
            if image_registry
            else {}
        ),
        "nodeSelector": {GPU_PRESENT_LABEL: "true"},
        "tolerations": tolerations_for(layout.gpu_groups),
        "serviceMonitor": {"enabled": False},
        # The runtime's default seccomp profile: it still grants the syscalls CAP_SYS_ADMIN unlocks (the
        # capability the chart adds for DCGM's profiling metrics), and no longer runs the exporter unconfined.
        "podSecurityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
    }
    if shares_agent_host_engine(layout):
        # One host engine per node: the agent's (module docstring).
        values["arguments"] = [*DCGM_DEFAULT_ARGUMENTS, "-r", f"$(NODE_IP):{AGENT_HOST_ENGINE_PORT}"]
        values["extraEnv"] = [{"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}]
    return values


def daemonset_groups(layout: Layout) -> dict[str, tuple[tuple[str, ...], str]]:
    """Each DaemonSet these charts render -> (the groups it must run on, and no others; why)."""
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    if efa_plugin_values(layout) is not None:
        out["aws-efa-k8s-device-plugin"] = (
            tuple(layout.source_name(g) for g in efa_groups(layout)),  # the proof's names (kept groups too)
            "advertises vpc.amazonaws.com/efa on EFA groups",
        )
    if gpu_operator_values(layout) is not None:
        out[nfd.WORKER] = (
            tuple(name for name, _ in nfd.gpu_node_sources(layout)),
            "NFD's PCI labels on every GPU node, by which the GPU operator recognises them (nfd.py)",
        )
    if dcgm_exporter_values(layout, layout.gpu_metrics) is not None:
        gpu = tuple(name for name, g in layout.node_sources if g.gpu)  # a migrating stack's kept GPU groups too
        out["dcgm-exporter"] = (gpu, "GPU metrics (gpuMetrics)")
    return out


@dataclass(frozen=True)
class Release:
    """A Helm release of these add-ons and the groups its pods run on (its deployment waits for those only)."""

    name: str
    chart: charts.Chart
    values: dict[str, Any]
    hosts: tuple[str, ...]


def wanted(
    layout: Layout, image_registry: str | None = None
) -> list[tuple[str, str, dict[str, Any], tuple[NodeGroupSpec, ...]]]:
    """(Pulumi name, chart, values, groups) of each GPU release the stack needs (images on `image_registry`, a
    mirror, when set)."""
    registry = image_registry
    found = (
        ("efa-device-plugin", versions.EFA_DEVICE_PLUGIN, efa_plugin_values(layout, registry), efa_groups(layout)),
        ("gpu-operator", versions.GPU_OPERATOR, gpu_operator_values(layout, registry), ()),
        (
            "dcgm-exporter",
            versions.DCGM_EXPORTER,
            dcgm_exporter_values(layout, layout.gpu_metrics, registry),
            layout.gpu_groups,
        ),
    )
    return [(n, c, v, g) for n, c, v, g in found if v is not None]


def releases(layout: Layout, image_registry: str | None = None) -> list[Release]:
    """The releases the stack needs: EFA plugin (EFA groups), GPU operator (controller on the initial group),
    DCGM exporter (gpuMetrics), each chart pinned for the cluster's minor."""
    out = []
    for name, chart_name, values, groups in wanted(layout, image_registry):
        hosts = tuple(g.name for g in groups) or placement_groups(layout)  # the operator: core_services_placement
        out.append(Release(name, charts.chart(chart_name, layout.kubernetes_version), values, hosts))
    return out
