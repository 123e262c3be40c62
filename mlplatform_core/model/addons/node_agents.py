"""Every DaemonSet the EKS add-ons install, with the groups it must run on: what the placement proof checks.

A DaemonSet that misses a group leaves its nodes without the agent (no GPUs advertised, no volumes
attached); one that lands on a group it should not double-runs there (Bottlerocket's own device
plugin). Each entry is the pod placement as its add-on renders it with the toolkit's values.

The DaemonSets of the Helm charts come from the charts as they render (proof.chart_workloads), with the
groups their add-on module names. A new add-on goes in `ADDONS`: tests/program check that every Helm release
and EKS add-on the programs register is listed, so none is forgotten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..layout import Layout
from ..provisioners import launcher
from . import coredns, ebs_csi, gpu_agents, node_health, pod_identity
from .affinity import AMD64_ARM64, LINUX, every_node, not_on


@dataclass(frozen=True)
class NodeAgent:
    name: str  # the DaemonSet
    addon: str  # the Helm release or EKS add-on that installs it
    placement: Mapping[str, Any]  # nodeSelector, affinity, tolerations, priorityClassName of its pods
    groups: tuple[str, ...]  # the node groups it must run on, and no others
    why: str


# The vpc-cni add-on pulumi-eks creates (aws-node): chart aws/amazon-vpc-cni-k8s
# charts/aws-vpc-cni templates/daemonset.yaml (`tolerations: [{operator: Exists}]`) and values.yaml
# (`affinity`: linux, amd64/arm64, not on Fargate, hybrid or Auto Mode nodes) @ b5218838 (2026-08-20);
# Auto Mode nodes are left out since v1.19.0, the minimum version Auto Mode clusters need
# (EKS user guide automode/auto-enable-existing.adoc "Required Add-on Versions").
_AWS_NODE = every_node(LINUX, AMD64_ARM64, not_on("fargate", "hybrid", "auto"))

# Every add-on the programs install (Helm release name or EKS add-on name) and whether it brings DaemonSets.
ADDONS: Mapping[str, str] = {
    versions.CLUSTER_AUTOSCALER: "a Deployment on the initial group (rendered: proof.chart_workloads)",
    versions.NVIDIA_DEVICE_PLUGIN: "DaemonSets nvidia-device-plugin and its MPS control daemon (rendered)",
    versions.KARPENTER: "a Deployment on the initial group (rendered)",
    versions.KARPENTER_CRD: "CustomResourceDefinitions only",
    coredns.ADDON_NAME: "a Deployment on the initial group",
    ebs_csi.ADDON_NAME: "DaemonSet ebs-csi-node, Deployment ebs-csi-controller on the initial group",
    "vpc-cni": "DaemonSet aws-node (created by pulumi-eks)",
    "kube-proxy": "DaemonSet kube-proxy (created by pulumi-eks; EKS's manifest is not public, not modelled)",
    versions.EFA_DEVICE_PLUGIN: "DaemonSet aws-efa-k8s-device-plugin (EFA groups; rendered)",
    versions.GPU_OPERATOR: "the GPU operator on the initial group (rendered); the DaemonSets it creates at runtime, "
    "nvidia-mig-manager, gpu-feature-discovery and nvidia-operator-validator (MIG groups)",
    versions.DCGM_EXPORTER: "DaemonSet dcgm-exporter (GPU groups, gpuMetrics: true; rendered)",
    versions.NVIDIA_DRA_DRIVER: "DaemonSet nvidia-dra-driver-gpu-kubelet-plugin (gpuAllocation: dra groups; rendered)",
    node_health.NODE_MONITORING_ADDON: "DaemonSet eks-node-monitoring-agent (every node, nodeRepair)",
    pod_identity.AGENT_ADDON: "DaemonSet eks-pod-identity-agent (every node, podIdentity: true)",
}


def node_agents(layout: Layout) -> tuple[NodeAgent, ...]:
    """The DaemonSets of the stack's EKS add-ons with the groups each must serve (Auto Mode's nodes run their
    own networking, storage, node monitoring, Pod Identity agent and device plugin: model/addons/run_by_aws.py)."""
    # By the proof's names: while a stack migrates, its kept node groups and Karpenter pools need them too.
    every = tuple(name for name, g in layout.node_sources if not launcher(g).run_by_aws)
    agents: list[NodeAgent] = []
    if every:  # none when every node is Auto Mode's
        agents += [
            NodeAgent(
                "ebs-csi-node",
                ebs_csi.ADDON_NAME,
                ebs_csi.node_pod_placement(),
                every,
                "every node may mount a volume",
            ),
            NodeAgent("aws-node", "vpc-cni", _AWS_NODE, every, "every node needs pod networking"),
        ]
        if layout.node_repair:
            agents.append(
                NodeAgent(
                    "eks-node-monitoring-agent",
                    node_health.NODE_MONITORING_ADDON,
                    node_health.NODE_MONITORING_PLACEMENT,
                    every,
                    "reports the node conditions node auto repair acts on",
                )
            )
        if layout.pod_identity:
            agents.append(
                NodeAgent(
                    "eks-pod-identity-agent",
                    pod_identity.AGENT_ADDON,
                    pod_identity.AGENT_PLACEMENT,
                    every,
                    "hands Pod Identity credentials to the pods of its node",
                )
            )
    agents += _gpu_agents(layout)
    return tuple(agents)


def _gpu_agents(layout: Layout) -> list[NodeAgent]:
    """The GPU operator's operands, which the operator creates at runtime (helm renders only the operator: the EFA
    device plugin's and the DCGM exporter's DaemonSets are proven as rendered, proof.chart_workloads)."""
    out = []
    mig = gpu_agents.mig_manager_placement(layout)
    if mig is not None:
        groups = tuple(g.name for g in gpu_agents.mig_groups(layout))
        for name, why in (
            ("nvidia-mig-manager", "splits the GPUs into the MIG profile of nvidia.com/mig.config"),
            ("gpu-feature-discovery", "labels MIG-capable GPUs, which the GPU operator deploys the MIG manager by"),
            # The operator deploys its validator on every GPU node it manages, whatever the ClusterPolicy enables
            # (NVIDIA/gpu-operator controllers/state_manager.go isStateEnabled: state-operator-validation, true;
            # assets/state-operator-validation/0500_daemonset.yaml: nvidia.com/gpu.deploy.operator-validator).
            ("nvidia-operator-validator", "validates the node's driver and toolkit before the operands start"),
        ):
            out.append(NodeAgent(name, versions.GPU_OPERATOR, mig, groups, why))
    return out
