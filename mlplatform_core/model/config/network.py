"""Network settings: the API endpoint's reachability and the VPC (created, or an existing one)."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from .base import Count, Pattern, SettingsModel
from .errors import show

# Ranges no client of the public endpoint can come from: it sees a public egress address (NAT, VPN, office).
DOCUMENTATION_RANGES = tuple(
    ipaddress.IPv4Network(c)
    for c in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")  # RFC 5737
)
PRIVATE_RANGES = tuple(
    ipaddress.IPv4Network(c)
    for c in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")  # RFC 1918, RFC 6598 (VPC CIDRs)
)
_NON_ROUTED = tuple(ipaddress.IPv4Network(c) for c in ("127.0.0.0/8", "169.254.0.0/16"))  # loopback, link-local


def _network(cidr: object, example: str) -> ipaddress.IPv4Network:
    try:
        return ipaddress.IPv4Network(cidr, strict=True)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{show(cidr)} is not an IPv4 CIDR block such as {example} ({exc})") from None


def _within(net: ipaddress.IPv4Network, ranges: tuple[ipaddress.IPv4Network, ...]) -> bool:
    return any(net.subnet_of(r) for r in ranges)


def _documentation(cidr: str, what: str) -> str:
    return (
        f"{show(cidr)} is a documentation range (RFC 5737): no machine sends traffic from it, so nothing "
        f"could reach the Kubernetes API; list {what}"
    )


def public_cidr_error(cidr: object) -> str | None:
    """Why a publicAccessCidrs entry cannot let anyone reach the public endpoint, or None."""
    net = _network(cidr, "a.b.c.d/32 (your egress address)")
    if _within(net, DOCUMENTATION_RANGES):
        return _documentation(str(cidr), "the public egress addresses of your runners, office or VPN (e.g. x.y.z.w/32)")
    if _within(net, PRIVATE_RANGES + _NON_ROUTED):
        return (
            f"{show(cidr)} is a private range: the public endpoint sees the public egress address of your NAT, "
            "office or VPN, never a private one; private clients reach the API through privateAccessCidrs"
        )
    return None


def private_cidr_error(cidr: object) -> str | None:
    """Why a privateAccessCidrs entry cannot reach the private endpoint, or None."""
    net = _network(cidr, "10.40.0.0/16")
    if _within(net, DOCUMENTATION_RANGES):
        return _documentation(str(cidr), "the VPC's or your VPN's private ranges")
    if not _within(net, PRIVATE_RANGES):
        return (
            f"{show(cidr)} is not a private range (10/8, 172.16/12, 192.168/16, 100.64/10): the private endpoint "
            "is reached from inside the VPC or a network connected to it (VPN, peering, Transit Gateway)"
        )
    return None


class EndpointConfig(SettingsModel):
    private_access: bool = True
    public_access: bool = False
    public_access_cidrs: list[str] = Field(default_factory=list, max_length=40)
    # Who may open HTTPS to the private endpoint besides the nodes: in-VPC runners, VPN clients. Unset: the VPC's CIDR.
    private_access_cidrs: list[str] | None = Field(default=None, min_length=1, max_length=20)

    @field_validator("public_access_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        for cidr in v:
            if err := public_cidr_error(cidr):
                raise ValueError(err)
        return v

    @field_validator("private_access_cidrs")
    @classmethod
    def _private_cidrs(cls, v: list[str] | None) -> list[str] | None:
        for cidr in v or []:
            if err := private_cidr_error(cidr):
                raise ValueError(err)
        return v

    @model_validator(mode="after")
    def _some_access(self) -> EndpointConfig:
        if not (self.private_access or self.public_access):
            raise ValueError("privateAccess and publicAccess are both false; enable at least one")
        if self.public_access and not self.public_access_cidrs:
            raise ValueError(
                "publicAccess is true but publicAccessCidrs is empty; list the CIDR blocks allowed to reach the API "
                "(EKS would otherwise open it to 0.0.0.0/0)"
            )
        if self.public_access_cidrs and not self.public_access:
            raise ValueError("publicAccessCidrs is set but publicAccess is false; set publicAccess: true or drop it")
        if self.private_access_cidrs and not self.private_access:
            raise ValueError("privateAccessCidrs is set but privateAccess is false; set privateAccess: true or drop it")
        return self


class NetworkConfig(SettingsModel):
    """Either an existing VPC (vpcId + privateSubnetIds) or a new one (vpcCidr, availabilityZoneCount)."""

    vpc_id: (
        Pattern(r"^vpc-[0-9a-f]{8,17}$", "a VPC id: vpc- and 8 to 17 hex digits, e.g. vpc-0abc1234def567890") | None
    ) = (  # type: ignore[valid-type]
        None
    )
    private_subnet_ids: list[str] | None = Field(default=None, min_length=2, max_length=16)
    vpc_cidr: str | None = None
    availability_zone_count: Count | None = Field(default=None, ge=2, le=6)
    nat_gateways: Literal["single", "perAz"] | None = None

    @field_validator("private_subnet_ids")
    @classmethod
    def _subnets(cls, v: list[str] | None) -> list[str] | None:
        for s in v or []:
            if not isinstance(s, str) or not re.match(r"^subnet-[0-9a-f]{8,17}$", s):
                raise ValueError(f"{show(s)} is not a subnet id such as subnet-0abc1234def567890")
        if v is not None and len(set(v)) != len(v):
            raise ValueError("privateSubnetIds lists a subnet twice; give at least 2 distinct subnets in 2 AZs")
        return v

    @field_validator("vpc_cidr")
    @classmethod
    def _cidr(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            net = ipaddress.IPv4Network(v, strict=True)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{show(v)} is not an IPv4 CIDR block such as 10.0.0.0/16 ({exc})") from None
        if not 16 <= net.prefixlen <= 20:
            raise ValueError(f"{v} has prefix /{net.prefixlen}; use /16 to /20 so every AZ gets room for pods")
        return v

    @model_validator(mode="after")
    def _one_source(self) -> NetworkConfig:
        existing = self.vpc_id is not None or self.private_subnet_ids is not None
        created = any(x is not None for x in (self.vpc_cidr, self.availability_zone_count, self.nat_gateways))
        if existing and created:
            raise ValueError(
                "give either vpcId + privateSubnetIds (existing VPC) or vpcCidr/availabilityZoneCount/natGateways "
                "(new VPC), not both"
            )
        if existing and (self.vpc_id is None or self.private_subnet_ids is None):
            raise ValueError("an existing VPC needs both vpcId and privateSubnetIds (at least 2 subnets in 2 AZs)")
        return self

    @property
    def creates_vpc(self) -> bool:
        return self.vpc_id is None
