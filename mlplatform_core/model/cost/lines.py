"""One cost line and how a group's node is priced: shared by the estimate and the provisioners' own charges.

Pure Python (mlplatform_core.model.cost.estimate builds the lines; auto_mode_fee adds Auto Mode's).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, NamedTuple

from .capacity import Capacity
from .prices import HOURS_PER_MONTH, Price

Bound = Literal["exact", "upper"]
SIZES = ("min", "desired", "max")


class Sizes(NamedTuple):
    min: int
    desired: int
    max: int


@dataclass(frozen=True)
class Line:
    """One billed thing: its quantity at each size, its price per unit and how sure that price is."""

    kind: str  # control plane, node group, NAT gateway, ...
    name: str
    unit: str  # what one quantity is: cluster, node, gateway, address, GiB, key
    per: str  # what the price is per: hour, GiB-month, key-month
    quantity: Sizes
    price: Price
    bound: Bound = "exact"
    basis: str = ""  # what was priced, for people: "m5.xlarge on-demand", "standard support"
    price_range: tuple[Decimal, Decimal] | None = None  # per node over the group's priced types
    unpriced_types: tuple[str, ...] = ()
    note: str | None = None
    instance_types: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}" if self.unit == "node" else self.name

    def usd_per_hour(self, size: str) -> Decimal | None:
        """At one size: 0 when nothing runs (even unpriced), None when the price is unknown. A price per
        month (GiB-month, key-month) is spread over the month's hours, as AWS prorates it."""
        qty = getattr(self.quantity, size)
        if qty == 0:
            return Decimal(0)
        usd = self.price.usd_per_hour
        if usd is None:
            return None
        if self.per == "hour":
            return qty * usd
        if self.per.endswith("-month"):
            return qty * usd / HOURS_PER_MONTH
        raise ValueError(f"{self.label}: a price per {self.per} is neither hourly nor monthly")


class Pick(NamedTuple):
    price: Price
    bound: Bound
    chosen: str
    price_range: tuple[Decimal, Decimal] | None
    unpriced: tuple[str, ...]


def pick(cap: Capacity, prices: dict[str, Price]) -> Pick:
    """The price a group's node is counted at: its first type's (managed node groups launch it first), or
    the highest of its types (a pool may launch any), an upper bound; unknown while any candidate is."""
    known = {t: p.usd_per_hour for t, p in prices.items() if p.usd_per_hour is not None}
    unpriced = tuple(t for t in cap.instance_types if t not in known)
    price_range = (min(known.values()), max(known.values())) if known else None
    # every candidate priced in one other currency only (China: CNY): the highest there, never converted
    other = {t: p.other for t, p in prices.items() if p.other is not None}
    one_currency = len(other) == len(prices) and len({c for c, _ in other.values()}) == 1
    if cap.priced_by == "first":
        chosen = cap.instance_types[0]
        price, bound = prices[chosen], "exact"
    elif one_currency:
        chosen = max(other, key=lambda t: (other[t][1], t))
        price, bound = prices[chosen], "upper"
    elif unpriced:
        chosen = unpriced[0]
        reason = prices[chosen].reason or ""
        if known:  # some types priced: their maximum is no bound for the unpriced ones
            reason = f"no upper bound while a type is unpriced: {reason}"
        price, bound = Price(None, reason), "upper"
    else:
        chosen = max(known, key=lambda t: (known[t], t))
        price, bound = prices[chosen], "upper"
    return Pick(price, bound, chosen, price_range, unpriced)
