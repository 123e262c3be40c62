"""Network settings: the API endpoint's reachability and the VPC (created, or an existing one)."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from .base import Count, SettingsModel
from .errors import show


class EndpointConfig(SettingsModel):
    private_access: bool = True
    public_access: bool = False
    public_access_cidrs: list[str] = Field(default_factory=list, max_length=40)

    @field_validator("public_access_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        for cidr in v:
            try:
                ipaddress.IPv4Network(cidr, strict=True)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{show(cidr)} is not an IPv4 CIDR block such as 203.0.113.0/24 ({exc})") from None
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
        return self


class NetworkConfig(SettingsModel):
    """Either an existing VPC (vpcId + privateSubnetIds) or a new one (vpcCidr, availabilityZoneCount)."""

    vpc_id: str | None = Field(default=None, pattern=r"^vpc-[0-9a-f]{8,17}$")
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
