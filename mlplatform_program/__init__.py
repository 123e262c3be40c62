"""The Pulumi program of an ml-platform-eks project, installed with the package.

A project's `__main__.py` is two lines that call one of these (`mlplatform init` writes them):

- `cluster_program()`: the cluster stack (VPC, control plane, node groups, access; the Kubernetes
  layer too when the stack's `kubernetesLayer` is `inline`);
- `kubernetes_layer_program()`: the Kubernetes layer of a stack whose `kubernetesLayer` is `separate`,
  run from inside the VPC (the project's `kubernetes-layer/` folder).

`components/` holds the ComponentResources; `stack_settings` reads and validates the stack's settings
for both programs. Nothing here decides a layout: that is mlplatform_core.
"""

from .cluster_program import cluster_program
from .kubernetes_layer_program import kubernetes_layer_program

__all__ = ["cluster_program", "kubernetes_layer_program"]
