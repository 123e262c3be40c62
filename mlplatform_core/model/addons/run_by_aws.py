"""What Auto Mode runs in the stack's place, and which of the stack's own add-ons stay.

Auto Mode nodes come with Karpenter (off-cluster), pod networking, kube-proxy's job, node-local DNS, the
EBS CSI driver for block storage, load balancing and the NVIDIA and Neuron device plugins (EKS user guide,
automode/automode.adoc "Managed Components": "built-in support for Pod IP address assignments, Pod network
policies, local DNS services, GPU plug-ins, health checkers, and EBS CSI storage"; auto-accelerated.adoc:
the NVIDIA device plugin "is not visible as a daemon set"). DNS queries from Pods on an Auto Mode node
always go to the node's local DNS, and resolve with no kube-dns Service installed (auto-change.adoc,
March 21 and 31, 2025). The node add-ons' own DaemonSets stay off Auto Mode nodes
(`eks.amazonaws.com/compute-type NotIn [..., auto]` in the VPC CNI's and the EBS CSI driver's affinity).

So a stack whose nodes are all Auto Mode's installs none of the VPC CNI, kube-proxy, CoreDNS and EBS CSI
add-ons; a stack that keeps managed node groups (autoMode.initialGroup: managedNodeGroup, or
keepNodeGroups while migrating) keeps them for those nodes. No stack on Auto Mode installs the Cluster
Autoscaler, Karpenter (chart, IAM, interruption queue) or the NVIDIA device plugin for its pools.
"""

from __future__ import annotations

from ..layout import Layout
from ..provisioners import of

# What AWS runs instead, for the plan: component -> what Auto Mode does in its place.
RUN_BY_AWS = {
    "Karpenter": "NodePools of the layout and the built-in pools, off-cluster (no chart, IAM role or queue)",
    "Cluster Autoscaler": "not needed: Auto Mode launches nodes for pending pods",
    "VPC CNI": "pod networking on every Auto Mode node",
    "kube-proxy": "service networking on every Auto Mode node",
    "CoreDNS": "node-local DNS on every Auto Mode node",
    "EBS CSI driver": "block storage (StorageClass provisioner ebs.csi.eks.amazonaws.com)",
    "NVIDIA device plugin": "built into the GPU nodes' image, with the drivers",
    "AWS Load Balancer Controller": "load balancing (IngressClass eks.amazonaws.com/alb, NLB eks.amazonaws.com/nlb)",
    "EKS Pod Identity Agent": "built in",
    "EKS node monitoring agent": "node health checks and repair built in",
    "node patching": "nodes replaced by new images within 21 days",
}


def aws_runs_nodes(layout: Layout) -> bool:
    """Whether AWS runs the stack's nodes and their add-ons (its provisioner's `run_by_aws`: Auto Mode)."""
    return of(layout).run_by_aws


def needs_node_addons(layout: Layout) -> bool:
    """Whether the stack installs the VPC CNI, kube-proxy, CoreDNS and EBS CSI add-ons: every stack whose
    nodes are not all Auto Mode's (managed node groups need them)."""
    return not aws_runs_nodes(layout) or bool(layout.managed_groups)


def run_by_aws(layout: Layout) -> dict[str, str]:
    """The plan's list of what AWS runs for an Auto Mode stack (nothing for the other provisioners)."""
    if not aws_runs_nodes(layout):
        return {}
    if needs_node_addons(layout):  # the managed node groups' add-ons stay
        return {k: v for k, v in RUN_BY_AWS.items() if k not in ("VPC CNI", "kube-proxy", "CoreDNS")}
    return dict(RUN_BY_AWS)
