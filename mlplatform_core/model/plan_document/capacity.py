"""`capacityQuotas`: the GPU capacity preflight, the EC2 instance quotas the stack's GPU and spot groups reach
(model/capacity_quotas.py; reports/capacity_quotas.py renders the same section for people)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Part


class CapacityQuotaReach(Part):
    """One group or pool counted against an EC2 quota: its largest type in the quota, at max size."""

    source: str
    kind: str
    instance_type: str
    nodes: int
    amount: int  # vCPUs (a Capacity Block quota: 1 block)


class CapacityQuota(Part):
    """One EC2 instance quota the stack reaches (model/capacity_quotas.py): what it needs against the value
    assumed, and the Service Quotas request that would cover it."""

    code: str
    name: str
    kind: str  # onDemand, spot, capacityBlock
    unit: str
    needed: int
    value: int | None  # the value assumed (None: unknown)
    assumed: str  # AWS default, quotas.ec2, live, unknown
    default: int | None = None
    over: bool = False
    request: str = ""
    reaches: list[CapacityQuotaReach] = Field(default_factory=list)


class CapacityQuotas(Part):
    """The GPU capacity preflight: every EC2 instance quota the stack's GPU and spot groups reach."""

    values: str = "snapshot"  # snapshot (generated defaults and quotas.ec2) or live (Service Quotas)
    quotas: list[CapacityQuota] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)  # the generated data's generator, day and sources
