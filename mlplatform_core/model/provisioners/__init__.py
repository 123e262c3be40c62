"""One module per provisioner (what launches a stack's nodes), each implementing base.Provisioner:

- `node_groups`: managed node groups and the Cluster Autoscaler;
- `karpenter`: Karpenter's NodePools, the controller installed by the stack;
- `auto_mode`: EKS Auto Mode's NodePools, run by AWS (and what a migration to it keeps);
- `node_pools`: what the two NodePool provisioners share;
- `registry`: name -> provisioner; `provisioner_of(cfg)`, `of(layout)`; what launches a group: `launching(cfg,
  name)` (a stack-file group), `launcher(group)` (a layout group); `managed_groups()`.

The layout, add-ons, cost, plan and programs ask these instead of testing which provisioner a stack has
(tests/architecture/test_provisioner_seam.py keeps it so).
"""

from .base import AUTO_MODE_FEE, AUTO_MODE_PART, KARPENTER_PART, Kept, Part, Provisioner
from .registry import (
    every,
    launcher,
    launching,
    managed_groups,
    named,
    names,
    of,
    provisioner_of,
    register,
    unregister,
)

__all__ = [
    "AUTO_MODE_FEE",
    "AUTO_MODE_PART",
    "KARPENTER_PART",
    "Kept",
    "Part",
    "Provisioner",
    "every",
    "launcher",
    "launching",
    "managed_groups",
    "named",
    "names",
    "of",
    "provisioner_of",
    "register",
    "unregister",
]
