"""The network interfaces of an EFA node: which card and device each sits on, and its interface type.

Pure Python. Two layouts, chosen per group with `efaInterfaces` (default `efaOnly`):
- `efaOnly`, AWS's layout for accelerated instances: the primary interface (network card 0, device 0) is an
  ENA interface (`interface`); the EFA interfaces are `efa-only`, on card 0 device 1 and on device 0 of every
  other card, so that they take no IP address from the subnet (EKS user guide "Manage EFA devices", "EFA and
  EFA-only interfaces" and "Conserving IP address allocation": network card 0 cannot be EFA-only, it is the
  instance's primary card; EC2 user guide "Maximize network bandwidth on accelerated instances" / EFA for
  accelerated instance types). A p5.48xlarge (32 EFA interfaces, 32 cards) gets one ENA and 32 EFA-only
  interfaces. Needs the VPC CNI 1.18.5 or later (the EKS page), which every supported cluster version runs.
- `efa`: every interface EFA (with ENA), card 0 on device 0 and the other cards on device 1, one per card (the
  layout eksctl and Karpenter use when they attach EFA themselves, launchtemplate.go generateNetworkInterfaces @
  aws/karpenter-provider-aws v1.14.1): each interface takes subnet IP addresses (32 per p5.48xlarge node, plus
  the CNI's warm IPs).
Karpenter's EC2NodeClass expresses the same with `networkInterfaces` (v1.14.1 pkg/apis/v1/ec2nodeclass.go:
types `interface` and `efa-only`, a primary `interface` on card 0 device 0 required, at most one `efa-only` per
card); Karpenter then counts the `efa-only` entries as the node's vpc.amazonaws.com/efa (instancetype/types.go
`efas`) and launches only types that hold them (instancetype/compatibility/compatibility.go).
"""

from __future__ import annotations

from dataclasses import dataclass

EFA_ONLY = "efaOnly"
EFA = "efa"
DEFAULT_LAYOUT = EFA_ONLY


@dataclass(frozen=True)
class Interface:
    network_card: int
    device: int
    interface_type: str  # the EC2 spelling: interface, efa or efa-only

    def to_karpenter(self) -> dict[str, object]:
        return {"networkCardIndex": self.network_card, "deviceIndex": self.device, "interfaceType": self.interface_type}


def interfaces(efa_count: int, layout: str = DEFAULT_LAYOUT) -> tuple[Interface, ...]:
    """The interfaces of a node with `efa_count` EFA interfaces (one per network card), in `layout`."""
    if efa_count <= 0:
        return ()
    if layout == EFA:
        return tuple(Interface(card, 0 if card == 0 else 1, "efa") for card in range(efa_count))
    if layout != EFA_ONLY:
        raise ValueError(f"unknown EFA interface layout {layout!r}")
    return (
        Interface(0, 0, "interface"),
        Interface(0, 1, "efa-only"),
        *(Interface(card, 0, "efa-only") for card in range(1, efa_count)),
    )
