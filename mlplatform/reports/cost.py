"""The cost estimate for people and machines: the plan's cost table and its JSON `cost` section.

`cost_section` is plain data for `plan --json`; `render_cost` draws the same with rich. Both read one
`StackCost` (mlplatform_core.model.cost), so the numbers and their caveats cannot disagree.
"""

from __future__ import annotations

from decimal import Decimal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlplatform_core.model.cost import HOURS_PER_MONTH, Line, StackCost, Total, estimate, price_source, prices_date
from mlplatform_core.model.cost.estimate import SIZES
from mlplatform_core.model.cost.prices import priced_regions, priced_with, unknown_reason
from mlplatform_core.model.plan_document import (
    CostLine,
    CostSection,
    CostTotal,
    CostTotals,
    LivePrices,
    PriceRange,
    Prices,
    Sizes,
    UnitPrice,
)

from ..documents import camel_keys
from ..plan import Plan
from .tables import print_table

TOTALS = {"min": "idleFloor", "desired": "desired", "max": "ceiling"}
CENT = Decimal("0.01")


def plan_cost(plan: Plan) -> StackCost:
    with priced_with(plan.live_prices):
        return estimate(plan.config, plan.layout)


def _money(usd: Decimal | None, places: Decimal = CENT) -> float | None:
    return None if usd is None else float(usd.quantize(places))


def _monthly(usd_per_hour: Decimal | None) -> Decimal | None:
    return None if usd_per_hour is None else usd_per_hour * HOURS_PER_MONTH


# --- JSON -----------------------------------------------------------------------------------------


def _line(line: Line) -> CostLine:
    hourly = {s: line.usd_per_hour(s) for s in SIZES}
    return CostLine(
        kind=line.kind,
        name=line.name,
        unit=line.unit,
        quantity=Sizes(**line.quantity._asdict()),
        unit_price=UnitPrice(
            usd=_money(line.price.usd_per_hour, Decimal("0.000001")),
            per=f"{line.unit}-{line.per}" if line.per == "hour" else line.per,
            bound=line.bound,
            basis=line.basis or None,
            unknown_reason=line.price.reason,
        ),
        instance_types=list(line.instance_types),
        price_range=(
            PriceRange(min=float(line.price_range[0]), max=float(line.price_range[1])) if line.price_range else None
        ),
        unpriced_types=list(line.unpriced_types),
        usd_per_hour=Sizes(**{s: _money(v, Decimal("0.000001")) for s, v in hourly.items()}),
        usd_per_month=Sizes(**{s: _money(_monthly(v)) for s, v in hourly.items()}),
        note=line.note,
    )


def _total(total: Total) -> CostTotal:
    return CostTotal(
        usd_per_hour=_money(total.usd_per_hour, Decimal("0.000001")),
        usd_per_month=_money(total.usd_per_month),
        lower_bound=total.lower_bound,
        unknown=list(total.unknown),
        upper_bounds=list(total.upper_bounds),
    )


def _other_currencies(cost: StackCost) -> dict[str, dict[str, float | None]]:
    found: dict[str, dict[str, float | None]] = {}
    for size in SIZES:
        for currency, per_hour in cost.other_currencies(size).items():
            found.setdefault(currency, {})[TOTALS[size]] = _money(per_hour * HOURS_PER_MONTH)
    return found


def _prices() -> Prices:
    """The price snapshot's date, regions and provenance, its keys named like the rest of the document."""
    source = price_source()
    return Prices.model_validate(
        {
            "date": prices_date(),
            "regions": priced_regions(),
            **source,
            "source": [camel_keys(s) for s in source.get("source", [])],
        }
    )


def _live(cost: StackCost) -> LivePrices | None:
    """`plan --prices live`: what the AWS Price List API answered (and where it is cached), or null."""
    if cost.live is None:
        return None
    live = cost.live
    return LivePrices(
        date=live.date,
        how=live.how,
        instance_types=sorted(live.on_demand),
        charges=sorted(live.charges),
        auto_mode_fees=sorted(live.auto_mode),
    )


def cost_section(cost: StackCost) -> CostSection:
    """The `cost` key of `plan --json`."""
    return CostSection(
        currency="USD",
        hours_per_month=HOURS_PER_MONTH,
        units={
            "usdPerHour": "USD per hour",
            "usdPerMonth": f"USD per month of {HOURS_PER_MONTH} hours",
            "quantity": "units of the line (unit) at the groups' min / desired / max size",
            "unitPrice": "USD per `per`; null when the price snapshot has none (see unknownReason)",
        },
        region=cost.region,
        on=cost.on.isoformat(),
        prices=_prices(),
        live_prices=_live(cost),
        lines=[_line(line) for line in cost.lines],
        totals=CostTotals.model_validate({TOTALS[s]: _total(cost.total(s)) for s in SIZES}),
        # Lines priced only in another currency (China: CNY), per month, never added to the USD totals.
        other_currencies=_other_currencies(cost),
        not_included=list(cost.not_included),
    )


# --- tables ----------------------------------------------------------------------------------------


def _usd(amount: Decimal | None, bound: str = "exact") -> str:
    if amount is None:
        return "unknown"
    text = f"{amount.quantize(CENT):,}"
    return f"<= {text}" if bound == "upper" and amount else text


def _total_cell(total: Total) -> str:
    text = f"{total.usd_per_month.quantize(CENT):,}"
    return (">= " if total.lower_bound else "") + text


def rate(usd: Decimal) -> str:
    """A price per hour as AWS lists it: at least cents, every digit the price list has (0.10, 0.0255)."""
    return f"{usd:.2f}" if usd == usd.quantize(CENT) else f"{usd.normalize():f}"


def _unit_price(line: Line) -> str:
    usd = line.price.usd_per_hour
    if usd is None:
        return "unknown"
    text = f"{rate(usd)} / " + (f"{line.unit}-hour" if line.per == "hour" else line.per)
    if line.price_range and line.price_range[0] != line.price_range[1]:
        text += f"\n(types {rate(line.price_range[0])}-{rate(line.price_range[1])})"
    return ("<= " if line.bound == "upper" else "") + text


def _item(line: Line) -> str:
    if line.unit == "node":
        q = line.quantity
        return f"{line.label}\n{q.min}/{q.desired}/{q.max} x {', '.join(line.instance_types)}"
    if line.unit == "cluster":
        return line.label
    q = line.quantity
    amounts = f"{q.min}" if q.min == q.max else f"{q.min}/{q.desired}/{q.max}"
    return f"{line.label}\n({amounts} {line.unit})"


def cost_table(cost: StackCost) -> Table:
    where = (
        f"{cost.region}, on-demand prices as of {prices_date(cost.region)}"
        if cost.region in priced_regions()
        else f"{cost.region}: no EC2 prices in the snapshot"
    )
    table = Table(
        title=f"Cost (USD per month of {HOURS_PER_MONTH} h; {where})",
        title_justify="left",
        show_lines=True,
    )
    table.add_column("item")
    table.add_column("priced as")
    table.add_column("USD per unit")
    for size in SIZES:
        table.add_column(size, justify="right")
    for line in cost.lines:
        table.add_row(
            escape(_item(line)),
            escape(line.basis or "no price in the snapshot"),
            escape(_unit_price(line)),
            *(_usd(_monthly(line.usd_per_hour(s)), line.bound) for s in SIZES),
        )
    table.add_row(
        "[bold]total[/bold]", "idle floor / desired / ceiling", "", *(_total_cell(cost.total(s)) for s in SIZES)
    )
    return table


def render_cost(plan: Plan, console: Console) -> None:
    cost = plan_cost(plan)
    print_table(console, cost_table(cost))
    floor, ceiling = cost.idle_floor, cost.ceiling
    if cost.live is not None:
        console.print(f"  live prices: AWS Price List API answers of {cost.live.date} ({escape(cost.live.how)})")
    console.print(
        f"  idle floor {_total_cell(floor)} USD/month (no user workloads: control plane, network, every group at "
        f"its min); ceiling {_total_cell(ceiling)} USD/month (every group at its max)"
    )
    for currency, months in _other_currencies(cost).items():
        words = {"idleFloor": "idle floor", "desired": "desired", "ceiling": "ceiling"}
        shown = ", ".join(f"{words.get(k, k)} {v:,.2f}" for k, v in months.items() if v is not None)
        console.print(f"  in {currency}, never added to USD: {shown} {currency}/month")
    if floor.lower_bound or ceiling.lower_bound:
        missing = list(dict.fromkeys([*floor.unknown, *ceiling.unknown]))
        console.print("  >= : a lower bound; these have no price in the snapshot:")
        by_reason: dict[str, list[str]] = {}
        for line in cost.lines:
            if line.label in missing:
                by_reason.setdefault(line.price.reason or "unknown", []).append(line.label)
        for reason, labels in by_reason.items():
            console.print(f"    {escape(', '.join(labels))}: {escape(reason)}")
    uppers = {*floor.upper_bounds, *ceiling.upper_bounds}
    for line in cost.lines:
        if line.label in uppers:  # the basis says why: spot at on-demand, or the dearest type a pool may launch
            spot = " (the data has no spot prices)" if line.note == unknown_reason("ec2_spot") else ""
            console.print(f"  <= : {escape(line.label)}: {escape(line.basis)}{spot}")
        elif line.note:  # what a line's price leaves out (NAT data per GB, key rotation, extended support)
            console.print(f"  {escape(line.label)}: {escape(line.note)}")
    console.print(f"  not included: {escape('; '.join(cost.not_included))}")
