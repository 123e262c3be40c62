"""Node health: EKS node auto repair on managed node groups, the node monitoring agent, Karpenter's node repair.

- Managed node groups: `nodeRepairConfig.enabled` (EKS user guide node-health.adoc); EKS replaces a node whose
  conditions stay unhealthy, read from the EKS node monitoring agent (the `eks-node-monitoring-agent` add-on),
  which reports GPU (AcceleratedHardwareReady), storage, networking, kernel and runtime conditions.
- Karpenter v1.14: the NodeRepair feature gate, ALPHA and off by default (charts/karpenter values.yaml
  `settings.featureGates.nodeRepair`; docs/concepts/disruption.md "Node Auto Repair"); it reads the same
  agent's conditions and repairs no pool with more than 20% of its nodes unhealthy.

The agent's DaemonSet (aws/eks-node-monitoring-agent charts/eks-node-monitoring-agent/values.yaml @
51af5494): tolerates everything; node affinity keeps it off Fargate, Auto Mode, hybrid and HyperPod nodes.
"""

from __future__ import annotations

from typing import Any

from ..layout import Layout
from .affinity import AMD64_ARM64, every_node, expression, not_on

NODE_MONITORING_ADDON = "eks-node-monitoring-agent"
NODE_MONITORING_PLACEMENT = every_node(
    not_on("fargate", "auto", "hybrid"),
    expression("sagemaker.amazonaws.com/compute-type", "NotIn", "hyperpod"),
    AMD64_ARM64,
)


def karpenter_feature_gates(layout: Layout) -> dict[str, Any]:
    """The Karpenter chart's `settings.featureGates` the stack needs (none unless node repair is on)."""
    return {"nodeRepair": True} if layout.node_repair else {}
