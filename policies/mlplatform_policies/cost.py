"""Checks of cost: an advisory ceiling on what a stack costs idle, and dev GPU groups that scale from zero.

The pack reads the core's price snapshot and EKS calendar (mlplatform_core.model.cost.prices,
eks_versions), exactly (Decimal), and prices what it sees the way `mlplatform plan` does: the control
plane by its version's support phase, each node group
at its minSize (on-demand: the first instance type, which managed node groups launch first; spot: the
highest on-demand price among its types, an upper bound), NAT gateways, public IPv4 addresses, the nodes'
EBS root volumes and KMS keys where the snapshot prices them; what it does not price makes the floor a lower
bound, and the messages say so.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from mlplatform_core.model import eks_versions
from mlplatform_core.model.cost import prices
from mlplatform_core.model.resource_types import EKS_CLUSTER, KMS_KEY, LAUNCH_TEMPLATE, SUBNET

from .layout import Group, groups_in
from .props import environment, fmt, get, is_accelerated, items, number

HOURS_PER_MONTH = prices.HOURS_PER_MONTH
AWS_PROVIDER = "pulumi:providers:aws"  # a real preview analyzes the default provider; its inputs carry the region
NAT_GATEWAY = "aws:ec2/natGateway:NatGateway"
EIP = "aws:ec2/eip:Eip"
_REGION = re.compile(r"^([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d)[a-z]$")  # an AZ name -> its region


def today() -> datetime.date:
    """The day a version's support phase is read on (a function, so tests can fix the day)."""
    return datetime.date.today()


def region_of(resources: list[Any]) -> str | None:
    """The stack's region: the aws provider's, else the region of a subnet's availability zone."""
    for r in resources:
        if r.resource_type == AWS_PROVIDER and isinstance(region := get(r.props, "region"), str):
            return region
    for r in resources:
        az = get(r.props, "availabilityZone") if r.resource_type == SUBNET else None
        if isinstance(az, str) and (m := _REGION.match(az)):
            return m[1]
    return None


def on_demand(region: str | None, itype: Any) -> Decimal | None:
    if region is None or not isinstance(itype, str):
        return None
    return prices.on_demand_table().get(itype, {}).get(region)


def node_price(group: Group, region: str | None) -> tuple[Decimal | None, str]:
    """USD per node-hour and what was priced: the first type (on-demand) or the dearest type (spot, upper bound)."""
    types = group.instance_types
    if not types:
        return None, "no instance types"
    if group.spot:
        each = [on_demand(region, t) for t in types]
        if any(p is None for p in each):
            return None, "spot (a type has no price)"
        price = max(p for p in each if p is not None)
        return price, f"<= {fmt(price)} per node, spot at on-demand"
    price = on_demand(region, types[0])
    return price, f"{fmt(types[0])} on-demand"


def control_plane_price(version: Any, region: str | None, on: datetime.date) -> Decimal | None:
    """Per cluster-hour, by the version's support phase on `on` (None past extended support, or unpriced)."""
    minor = eks_versions.calendar().get(version) if isinstance(version, str) else None
    if minor is None or region is None or on >= minor.end_of_extended_support:
        return None
    return prices.control_plane(region, extended_support=on >= minor.end_of_standard_support).usd_per_hour


@dataclass
class Floor:
    """What the stack costs with no user workloads, per hour: the priced part and what has no price."""

    usd_per_hour: Decimal = Decimal(0)
    parts: dict[str, Decimal] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)

    def add(self, what: str, usd: Decimal) -> None:
        self.usd_per_hour += usd
        self.parts[what] = self.parts.get(what, Decimal(0)) + usd

    @property
    def usd_per_month(self) -> Decimal:
        return self.usd_per_hour * HOURS_PER_MONTH


def _clusters(resources: list[Any]) -> list[Any]:
    # pulumi_eks.Cluster is a remote component: its child aws:eks/cluster:Cluster carries the version.
    return [r for r in resources if r.resource_type == EKS_CLUSTER]


def idle_floor(resources: list[Any], groups: list[Group], on: datetime.date) -> Floor:
    region, floor = region_of(resources), Floor()
    for cluster in _clusters(resources):
        price = control_plane_price(get(cluster.props, "version"), region, on)
        if price is None:
            floor.unknown.append("the EKS control plane")
        else:
            floor.add("EKS control plane", price)
    nodes = 0
    for g in groups:
        lo = g.size("minSize")
        if lo == 0:
            continue
        price, _ = node_price(g, region)
        if lo is None or price is None:
            floor.unknown.append(f"node group {g.name}")
        else:
            floor.add("node groups at their min", lo * price)
            nodes += int(lo)
    counts = {t: sum(r.resource_type == t for r in resources) for t in (NAT_GATEWAY, EIP, KMS_KEY)}
    # (what, quantity, the charge pricing it, per month: spread over the month's hours as AWS prorates it)
    for what, n, key, monthly in (
        ("NAT gateways", counts[NAT_GATEWAY], "nat_gateway_hour", False),
        ("public IPv4 addresses", counts[EIP], "public_ipv4_hour", False),
        ("nodes' root volumes (EBS)", _root_volume_gib(resources, groups) if nodes else 0, "ebs_gp3_gb_month", True),
        ("KMS keys", counts[KMS_KEY], "kms_key_month", True),
    ):
        if not n:
            continue
        price = prices.charge(region, key) if region else None
        if price is not None and price.usd_per_hour is not None:
            floor.add(what, n * price.usd_per_hour / (HOURS_PER_MONTH if monthly else 1))
        else:
            floor.unknown.append(what)
    return floor


def _root_volume_gib(resources: list[Any], groups: list[Group]) -> int:
    """GiB of gp3 root volume of the nodes each group keeps at its minimum (its launch template's, beside it)."""
    per_parent: dict[str, int] = {}
    for r in resources:
        if r.resource_type == LAUNCH_TEMPLATE and r.parent is not None:
            for m in items(get(r.props, "blockDeviceMappings", default=[])):
                size = number(get(m, "ebs", "volumeSize"))
                if size is not None and get(m, "ebs", "volumeType") == "gp3":
                    per_parent[r.parent.urn] = per_parent.get(r.parent.urn, 0) + int(size)
    return sum(int(g.size("minSize") or 0) * per_parent.get(g.parent or "", 0) for g in groups)


def _environment(resources: list[Any], groups: list[Group]) -> str:
    for r in _clusters(resources):
        if env := environment(r.props):
            return env
    envs = [g.environment for g in groups if g.environment]
    return envs[0] if envs else "prod"  # like the other rules: no tag gets prod's


def _money(usd: Decimal) -> str:
    return f"{usd:,.2f}"


# --- idle-cost ceiling ------------------------------------------------------------------------------


def idle_ceiling(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    groups = groups_in(args)
    env = _environment(args.resources, groups)
    limits = cfg["maxIdleMonthlyUsd"] or {}
    limit = limits.get(env)
    if limit is None:
        return
    floor = idle_floor(args.resources, groups, today())
    parts = ", ".join(f"{k} {_money(v * HOURS_PER_MONTH)}" for k, v in floor.parts.items())
    unpriced = f"; not priced: {', '.join(floor.unknown)}" if floor.unknown else ""
    where = f"the {env} ceiling of {_money(limit)} USD/month (idle-cost-ceiling.maxIdleMonthlyUsd.{env})"
    if floor.usd_per_month > limit:
        at_least = "at least " if floor.unknown else ""
        yield (
            f"the stack costs {at_least}{_money(floor.usd_per_month)} USD/month idle ({parts}{unpriced}), "
            f"above {where}",
            None,
        )
    elif any(u == "the EKS control plane" or u.startswith("node group") for u in floor.unknown):
        region = region_of(args.resources) or "an unknown region"
        yield (
            f"cannot hold the stack to {where}: no price in the pack's price table for "
            f"{', '.join(floor.unknown)} in {region} (priced so far: {_money(floor.usd_per_month)} USD/month)",
            None,
        )


# --- dev GPU groups scale from zero ---------------------------------------------------------------------


def gpu_from_zero(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    region = region_of(args.resources)
    for g in groups_in(args):
        accelerated = g.declared_gpu or any(isinstance(t, str) and is_accelerated(t) for t in g.instance_types)
        lo = g.size("minSize")
        if not accelerated or not lo:
            continue
        price, basis = node_price(g, region)
        idle = f": {_money(lo * price * HOURS_PER_MONTH)} USD/month at {basis}" if price is not None else ""
        yield (
            f"GPU node group {g.name} keeps {fmt(lo)} node(s) running while no GPU work is queued{idle}; "
            f"in {g.environment} let it scale from zero (minSize 0)",
            g.urn,
        )
