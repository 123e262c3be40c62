"""The VPC address plan and NAT layout of a VPC the stack creates (components/network.py builds it)."""

from __future__ import annotations

import ipaddress

from .config.network import NetworkConfig

DEFAULT_VPC_CIDR = "10.0.0.0/16"
DEFAULT_ZONES = 3


def subnet_plan(vpc_cidr: str, zones: int) -> tuple[list[str], list[str]]:
    """Private and public CIDR blocks: an eighth of the VPC per AZ for nodes and pods, small public ones for NAT."""
    vpc = ipaddress.IPv4Network(vpc_cidr)
    blocks = list(vpc.subnets(new_prefix=vpc.prefixlen + 3))
    private = [str(b) for b in blocks[:zones]]
    public = [str(b) for b in list(blocks[-1].subnets(new_prefix=blocks[-1].prefixlen + 3))[:zones]]
    return private, public


def nat_per_az(net: NetworkConfig, environment: str) -> bool:
    """One NAT gateway per AZ (prod's default: an AZ outage keeps the others online) or a single one (dev)."""
    return (net.nat_gateways or ("perAz" if environment == "prod" else "single")) == "perAz"
