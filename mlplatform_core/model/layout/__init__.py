"""The node-group layout: from a stack's configuration to one spec per node group (pure Python).

- `defaults`: the built-in groups per environment (where a new node-group kind starts);
- `spec`: NodeGroupSpec and Layout, what the components and the placement proof read;
- `build`: defaults merged with the stack's overrides, with every layout rule checked;
- `autoscaler_tags`: the tags a group's Auto Scaling group needs for the Cluster Autoscaler;
- `gpu`: what GPU groups need to scale and get GPUs (one size class, accelerator label, device plugin).
"""

from .autoscaler_tags import AUTOSCALER_PREFIX, autoscaler_tags, discovery_tags
from .build import build_layout
from .defaults import DEFAULTS, GroupDefaults
from .spec import INITIAL, Layout, NodeGroupSpec

__all__ = [
    "AUTOSCALER_PREFIX",
    "DEFAULTS",
    "INITIAL",
    "GroupDefaults",
    "Layout",
    "NodeGroupSpec",
    "autoscaler_tags",
    "build_layout",
    "discovery_tags",
]
