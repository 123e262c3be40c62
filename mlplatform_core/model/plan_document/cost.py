"""`cost`: the estimate for machines (reports/cost.py renders the same `StackCost` for people)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Part


class Sizes(Part):
    """An amount at the groups' min / desired / max size."""

    min: float | int | None = None
    desired: float | int | None = None
    max: float | int | None = None


class UnitPrice(Part):
    usd: float | None = None
    per: str = ""
    bound: str = "exact"  # exact, or upper: at most this (spot at on-demand, the dearest type a pool may launch)
    basis: str | None = None
    unknown_reason: str | None = None  # why the price snapshot has none


class PriceRange(Part):
    min: float | None = None
    max: float | None = None


class CostLine(Part):
    kind: str = ""
    name: str
    unit: str = ""
    quantity: Sizes = Field(default_factory=Sizes)
    unit_price: UnitPrice = Field(default_factory=UnitPrice)
    instance_types: list[str] = Field(default_factory=list)
    price_range: PriceRange | None = None
    unpriced_types: list[str] = Field(default_factory=list)
    usd_per_hour: Sizes = Field(default_factory=Sizes)
    usd_per_month: Sizes = Field(default_factory=Sizes)
    note: str | None = None


class CostTotal(Part):
    usd_per_hour: float | None = None
    usd_per_month: float | None = None
    lower_bound: bool = False  # some line has no price: the total is at least this
    unknown: list[str] = Field(default_factory=list)
    upper_bounds: list[str] = Field(default_factory=list)


class CostTotals(Part):
    idle_floor: CostTotal = Field(default_factory=CostTotal)
    desired: CostTotal = Field(default_factory=CostTotal)
    ceiling: CostTotal = Field(default_factory=CostTotal)


class Prices(Part):
    """The price snapshot: its EC2 price date, its regions, and its provenance (generator, upstream files)."""

    date: str | None = None
    regions: list[str] = Field(default_factory=list)
    generated: str | None = None
    generator: str | None = None
    source: list[dict[str, Any]] = Field(default_factory=list)


class LivePrices(Part):
    """`plan --prices live`: what the AWS Price List API answered (and where it is cached)."""

    date: str | None = None
    how: str | None = None
    instance_types: list[str] = Field(default_factory=list)
    charges: list[str] = Field(default_factory=list)
    auto_mode_fees: list[str] = Field(default_factory=list)


class CostSection(Part):
    currency: str = "USD"
    hours_per_month: int | float = 730
    units: dict[str, str] = Field(default_factory=dict)
    region: str | None = None
    on: str | None = None
    prices: Prices = Field(default_factory=Prices)
    live_prices: LivePrices | None = None
    lines: list[CostLine] = Field(default_factory=list)
    totals: CostTotals = Field(default_factory=CostTotals)
    # Lines priced only in another currency (China: CNY), per month, never added to the USD totals.
    other_currencies: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    not_included: list[str] = Field(default_factory=list)
