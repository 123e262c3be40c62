"""What a stack costs per hour and per month before it exists: its idle floor and its ceiling.

Pure Python. One line per thing the stack creates that bills while it exists: the EKS control plane,
every node group (at its min, desired and max size), the NAT gateways and their public IPv4 addresses,
the nodes' root volumes and the secrets key. A line whose price the snapshot does not have is unknown
(with the reason) and the totals it belongs to are lower bounds; a spot line is priced at the on-demand
price, an upper bound. Nothing is guessed.

- idle floor: what the stack costs with no user workloads: every line at the group minimum;
- desired: right after creation (autoscaled groups start at their desired size, then the autoscaler moves them);
- ceiling: every group at its maximum.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from .. import eks_versions
from ..config import StackConfig
from ..layout import Layout
from ..network import DEFAULT_ZONES, nat_per_az
from .auto_mode_fee import auto_mode_lines
from .capacity import Capacity, stack_capacity
from .lines import SIZES, Bound, Line, Sizes, pick
from .prices import (
    HOURS_PER_MONTH,
    LivePrices,
    Price,
    charge,
    charge_basis,
    control_plane,
    live_prices,
    on_demand,
    unknown_reason,
)

CONTROL_PLANE = "EKS control plane"

# Billed by use, not by the hour the stack exists: outside every total (docs/cost.md: what the estimate leaves out).
NOT_INCLUDED = (
    "data transfer (internet egress, cross-AZ traffic, NAT gateway data processing per GB)",
    "CloudWatch Logs for the control-plane logs (billed per GB ingested and stored)",
    "load balancers, EBS volumes (PVCs) and other AWS resources that workloads create",
    "savings plans, reserved instances, credits and taxes",
)


@dataclass(frozen=True)
class Total:
    usd_per_hour: Decimal  # the sum of the lines whose cost is known
    unknown: tuple[str, ...] = ()  # lines left out because their price is unknown: the total is a lower bound
    upper_bounds: tuple[str, ...] = ()  # lines counted at an upper-bound price (spot at on-demand)

    @property
    def lower_bound(self) -> bool:
        return bool(self.unknown)

    @property
    def usd_per_month(self) -> Decimal:
        return self.usd_per_hour * HOURS_PER_MONTH


@dataclass(frozen=True)
class StackCost:
    region: str
    on: datetime.date  # the day the Kubernetes version's support phase was read
    lines: tuple[Line, ...]
    not_included: tuple[str, ...] = field(default=NOT_INCLUDED)
    live: LivePrices | None = None  # `plan --prices live`: the Price List API's answers this estimate used

    def total(self, size: str) -> Total:
        known, unknown, upper = Decimal(0), [], []
        for line in self.lines:
            usd = line.usd_per_hour(size)
            if usd is None:
                unknown.append(line.label)
            else:
                known += usd
                if usd and line.bound == "upper":
                    upper.append(line.label)
        return Total(known, tuple(unknown), tuple(upper))

    def other_currencies(self, size: str) -> dict[str, Decimal]:
        """Per currency, the lines priced only in another currency (China: CNY), per hour: never in `total`."""
        out: dict[str, Decimal] = {}
        for line in self.lines:
            qty = getattr(line.quantity, size)
            if line.price.other is not None and qty:
                currency, amount = line.price.other
                hourly = amount if line.per == "hour" else amount / HOURS_PER_MONTH  # a price per month, prorated
                out[currency] = out.get(currency, Decimal(0)) + qty * hourly
        return out

    @property
    def idle_floor(self) -> Total:
        return self.total("min")

    @property
    def ceiling(self) -> Total:
        return self.total("max")

    @property
    def groups(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if line.unit == "node")


# --- lines -------------------------------------------------------------------------------------


def control_plane_line(cfg: StackConfig, on: datetime.date) -> Line:
    """EKS bills the extended-support price from the first day after standard support (EKS user guide,
    kubernetes-versions: "Billing for extended support starts at the beginning of the day that the version
    reaches end of standard support")."""
    minor = cfg.kubernetes_version
    version = eks_versions.calendar().get(minor)
    phase = version.phase(on) if version else None
    if version is None or phase not in ("standard", "extended"):
        why = "not in the EKS calendar" if version is None else f"{phase} on {on.isoformat()}"
        return Line(
            CONTROL_PLANE, CONTROL_PLANE, "cluster", "hour", Sizes(1, 1, 1), Price(None, f"Kubernetes {minor} is {why}")
        )
    extended = phase == "extended"
    price = control_plane(cfg.region, extended)
    if extended:
        basis = f"Kubernetes {minor} in extended support (until {version.end_of_extended_support.isoformat()})"
        note = "extended support bills the higher price; upgrade to a minor in standard support to leave it"
    else:
        ends = version.end_of_standard_support.isoformat()
        basis = f"Kubernetes {minor} in standard support (until {ends})"
        later = control_plane(cfg.region, True)
        note = f"from {ends} this minor bills extended support" + (
            f" at {later.usd_per_hour:.2f} USD per hour" if later.usd_per_hour is not None else ""
        )
    return Line(CONTROL_PLANE, CONTROL_PLANE, "cluster", "hour", Sizes(1, 1, 1), price, "exact", basis, note=note)


def _node_price(
    cap: Capacity, region: str
) -> tuple[Price, Bound, str, str | None, tuple[Decimal, Decimal] | None, tuple[str, ...]]:
    if not cap.instance_types:  # a provisioner that names no candidates: nothing to price
        return Price(None, f"{cap.kind} {cap.name} names no instance types"), "exact", "", None, None, ()
    price, bound, chosen, price_range, unpriced = pick(cap, {t: on_demand(region, t) for t in cap.instance_types})
    note = None
    if cap.spot:
        # Spot prices are not in the data; a spot node never costs more than the on-demand price (the
        # default maximum price: EC2 Auto Scaling user guide, mixed-instances-groups-set-up-overview, "Spot max price").
        bound = "upper"
        basis = f"{chosen} on-demand, an upper bound for spot"
        note = unknown_reason("ec2_spot")
    elif cap.priced_by == "highest":
        basis = f"{chosen} on-demand, the highest of its types"
    else:
        basis = f"{chosen} on-demand" + (", launched first" if len(cap.instance_types) > 1 else "")
    return price, bound, basis, note, price_range, unpriced


# A Capacity Block is bought upfront at a price EC2 quotes per block (EC2 user guide capacity-blocks-pricing-billing):
# neither the on-demand price nor in the price data.
CAPACITY_BLOCK_PRICE = (
    "Capacity Block prices are quoted when the block is bought and paid upfront (aws ec2 "
    "describe-capacity-block-offerings); the price data has none"
)


def _reservation_note(cap: Capacity) -> str:
    ends = f", ending {cap.reservation_end}" if cap.reservation_end else ""
    if cap.reservation == "capacity-block":
        return (
            f"Capacity Block {cap.reservation_id}{ends}: paid for the whole block whether its instances run or not; "
            "the group scales to zero outside it"
        )
    return (
        f"On-Demand Capacity Reservation {cap.reservation_id}{ends}: its instances bill at the on-demand price "
        "whether they run or not"
    )


def node_line(cap: Capacity, region: str) -> Line:
    price, bound, basis, note, price_range, unpriced = _node_price(cap, region)
    if cap.reservation is not None:
        note = _reservation_note(cap)
        basis = f"{cap.instance_types[0]} reserved ({cap.reservation})"
        if cap.reservation == "capacity-block":
            price, bound = Price(None, CAPACITY_BLOCK_PRICE), "exact"
    return Line(
        cap.kind,
        cap.name,
        "node",
        "hour",
        Sizes(cap.min_nodes, cap.desired_nodes, cap.max_nodes),
        price,
        bound,
        basis,
        price_range=price_range,
        unpriced_types=unpriced,
        note=note,
        instance_types=cap.instance_types,
    )


def network_lines(cfg: StackConfig) -> list[Line]:
    """The NAT gateways a created VPC has (components/network.py: one per AZ or a single one) and their EIPs."""
    net = cfg.network
    if not net.creates_vpc:
        return []  # an existing VPC's NAT gateways are not the stack's
    zones = net.availability_zone_count or DEFAULT_ZONES
    count = zones if nat_per_az(net, cfg.environment) else 1
    n = Sizes(count, count, count)
    nat, per_gb = charge(cfg.region, "nat_gateway_hour"), charge(cfg.region, "nat_gateway_gb").usd_per_hour
    # Data processing bills by the GB that flows, which the plan cannot know: named, never added (NOT_INCLUDED).
    note = f"plus {per_gb} USD per GB processed, billed by use and not included" if per_gb is not None else None
    return [
        Line(
            "NAT gateway",
            "NAT gateways",
            "gateway",
            "hour",
            n,
            nat,
            basis=charge_basis(cfg.region, "nat_gateway_hour") if nat.known else "",
            note=note,
        ),
        Line(
            "public IPv4",
            "NAT gateways' public IPv4 addresses",
            "address",
            "hour",
            n,
            ipv4 := charge(cfg.region, "public_ipv4_hour"),
            basis=charge_basis(cfg.region, "public_ipv4_hour") if ipv4.known else "",
        ),
    ]


def storage_lines(capacity: Iterable[Capacity], region: str) -> list[Line]:
    """The root volumes every node gets from its launch template (gp3: components/node_group.py, Karpenter's
    EC2NodeClass), and the key that encrypts secrets."""
    sized = [c for c in capacity if c.root_volume_gib]
    gib = Sizes(*(sum((c.root_volume_gib or 0) * getattr(c, f"{s}_nodes") for c in sized) for s in SIZES))
    ebs, kms = charge(region, "ebs_gp3_gb_month"), charge(region, "kms_key_month")
    return [
        Line(
            "EBS",
            "nodes' root volumes (EBS)",
            "GiB",
            "GiB-month",
            gib,
            ebs,
            basis=charge_basis(region, "ebs_gp3_gb_month").replace("EBS gp3 GB-month", "gp3") if ebs.known else "",
        ),
        Line(
            "KMS",
            "secrets encryption key (KMS)",
            "key",
            "key-month",
            Sizes(1, 1, 1),
            kms,
            basis=charge_basis(region, "kms_key_month").replace("KMS key-month", "customer managed key")
            if kms.known
            else "",
            # components/cluster.py enables yearly rotation; AWS KMS pricing (aws.amazon.com/kms/pricing): "each
            # newly generated backing key costs an additional $1/month". The estimate prices the first year.
            note="the key rotates yearly: each new backing key is billed as another key-month" if kms.known else None,
        ),
    ]


def estimate(
    cfg: StackConfig,
    layout: Layout,
    on: datetime.date | None = None,
    capacity: Sequence[Capacity] | None = None,
) -> StackCost:
    """The stack's cost lines on day `on` (default: today). `capacity` replaces the layout's node groups
    (a provisioner such as Karpenter hands its pools as Capacity too)."""
    on = on or eks_versions.today()
    nodes = list(capacity) if capacity is not None else stack_capacity(layout)
    lines = [
        control_plane_line(cfg, on),
        *(node_line(c, cfg.region) for c in nodes),
        *auto_mode_lines(layout, nodes, cfg.region),
        *network_lines(cfg),
        *storage_lines(nodes, cfg.region),
    ]
    live = live_prices()
    return StackCost(
        cfg.region, on, tuple(lines), live=live if live is not None and live.region == cfg.region else None
    )
