"""Where the Kubernetes layer is deployed from: `kubernetesLayer`, and whether anything can reach the API.

The Kubernetes layer (priority classes, namespaces, ConfigMaps, Helm releases, StorageClass) talks to
the cluster's API server from the machine running `pulumi up`; everything else goes through AWS APIs.
A private-only endpoint is reachable only from inside the VPC or a connected network (EKS user guide,
cluster-endpoint.adoc, awsdocs/amazon-eks-user-guide @ 4d52b4d0), so:

- `inline`: the cluster program deploys it too; `pulumi up` must reach the API (public endpoint from
  publicAccessCidrs, or inside the VPC);
- `separate`: the cluster program stops at AWS APIs (runs anywhere) and the project in kubernetes-layer/
  deploys the layer from inside the VPC, reading the cluster stack through a StackReference.
"""

from __future__ import annotations

from .errors import Problem, key_path
from .network import EndpointConfig, NetworkConfig

KUBERNETES_LAYERS = ("inline", "separate")


def effective_layer(layer: str | None, endpoint: EndpointConfig) -> str:
    """The stack's choice, else `inline` with a public endpoint and `separate` with a private-only one."""
    if layer is not None:
        return layer
    return "inline" if endpoint.public_access else "separate"


def kubernetes_layer_problems(layer: str | None, endpoint: EndpointConfig, network: NetworkConfig) -> list[Problem]:
    """A Kubernetes layer that no `pulumi up` could ever deploy."""
    if effective_layer(layer, endpoint) == "inline" and not endpoint.public_access and network.creates_vpc:
        return [
            Problem(
                key_path("kubernetesLayer"),
                "'inline' with a private-only endpoint in a VPC this stack creates: the first `pulumi up` would "
                "create the VPC and then need the Kubernetes API from inside it, where nothing runs yet. Use "
                "'separate' (the cluster program runs anywhere, kubernetes-layer/ runs from inside the VPC "
                "afterwards), or open endpoint.publicAccess to your runners' egress CIDRs",
            )
        ]
    return []
