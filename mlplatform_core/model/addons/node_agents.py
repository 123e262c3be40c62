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
from . import coredns, ebs_csi


@dataclass(frozen=True)
class NodeAgent:
    name: str  # the DaemonSet
    addon: str  # the Helm release or EKS add-on that installs it
    placement: Mapping[str, Any]  # nodeSelector, affinity, tolerations, priorityClassName of its pods
    groups: tuple[str, ...]  # the node groups it must run on, and no others
    why: str


# The vpc-cni add-on pulumi-eks creates (aws-node): chart aws/amazon-vpc-cni-k8s
# charts/aws-vpc-cni templates/daemonset.yaml (`tolerations: [{operator: Exists}]`) and values.yaml
# (`affinity`: linux, amd64/arm64, not Fargate) @ 042b40f6.
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
                            {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate"]},
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
    versions.CLUSTER_AUTOSCALER: "a Deployment on the initial group (rendered: proof.chart_workloads)",
    versions.NVIDIA_DEVICE_PLUGIN: "DaemonSets nvidia-device-plugin and its MPS control daemon (rendered)",
    versions.KARPENTER: "a Deployment on the initial group (rendered)",
    versions.KARPENTER_CRD: "CustomResourceDefinitions only",
    coredns.ADDON_NAME: "a Deployment on the initial group",
    ebs_csi.ADDON_NAME: "DaemonSet ebs-csi-node, Deployment ebs-csi-controller on the initial group",
    "vpc-cni": "DaemonSet aws-node (created by pulumi-eks)",
    "kube-proxy": "DaemonSet kube-proxy (created by pulumi-eks; EKS's manifest is not public, not modelled)",
}


def node_agents(layout: Layout) -> tuple[NodeAgent, ...]:
    """The DaemonSets of the stack's EKS add-ons with the groups each must serve."""
    every = tuple(g.name for g in layout.groups)
    agents = [
        NodeAgent(
            "ebs-csi-node",
            ebs_csi.ADDON_NAME,
            ebs_csi.node_pod_placement(),
            every,
            "every node may mount a volume",
        ),
        NodeAgent("aws-node", "vpc-cni", _AWS_NODE, every, "every node needs pod networking"),
    ]
    return tuple(agents)
