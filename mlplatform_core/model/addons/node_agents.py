"""Every DaemonSet the stack installs, with the groups it must run on: what the placement proof checks.

A DaemonSet that misses a group leaves its nodes without the agent (no GPUs advertised, no volumes
attached); one that lands on a group it should not double-runs there (Bottlerocket's own device
plugin). Each entry is the pod placement as its add-on renders it with the toolkit's values.

A new add-on goes in `ADDONS`: with its DaemonSets here, or with none. tests/components check that
every Helm release and EKS add-on the programs register is listed, so none is forgotten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..layout import Layout
from . import charts, coredns, device_plugin, ebs_csi


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
_AWS_NODE = {
    "tolerations": [{"operator": "Exists"}],
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]},
                            {
                                "key": "eks.amazonaws.com/compute-type",
                                "operator": "NotIn",
                                "values": ["fargate", "hybrid", "auto"],
                            },
                        ]
                    }
                ]
            }
        }
    },
    "priorityClassName": "system-node-critical",
}

# Every add-on the programs install (Helm release name or EKS add-on name) and whether it brings DaemonSets.
ADDONS: Mapping[str, str] = {
    charts.CLUSTER_AUTOSCALER.name: "a Deployment on the initial group",
    charts.NVIDIA_DEVICE_PLUGIN.name: "DaemonSet nvidia-device-plugin",
    coredns.ADDON_NAME: "a Deployment on the initial group",
    ebs_csi.ADDON_NAME: "DaemonSet ebs-csi-node, Deployment ebs-csi-controller on the initial group",
    "vpc-cni": "DaemonSet aws-node (created by pulumi-eks)",
    "kube-proxy": "DaemonSet kube-proxy (created by pulumi-eks; EKS's manifest is not public, not modelled)",
}


def node_agents(layout: Layout) -> tuple[NodeAgent, ...]:
    """The DaemonSets of the stack's add-ons with the groups each must serve (Auto Mode's nodes run their
    own networking, storage and device plugin: model/addons/run_by_aws.py)."""
    every = tuple(g.name for g in layout.groups if not g.auto_mode)
    agents = []
    if every:
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
    plugin = device_plugin.pod_placement(layout)
    if plugin is not None:
        agents.append(
            NodeAgent(
                "nvidia-device-plugin",
                charts.NVIDIA_DEVICE_PLUGIN.name,
                plugin,
                tuple(g.name for g in device_plugin.plugin_groups(layout)),
                "advertises nvidia.com/gpu on AL2023 GPU nodes (Bottlerocket runs its own)",
            )
        )
    return tuple(agents)
