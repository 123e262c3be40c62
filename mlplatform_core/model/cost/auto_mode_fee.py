"""EKS Auto Mode's own charges in the estimate: its built-in pools' nodes and its management fee per instance.

Pure Python. The fee is priced from the snapshot's `eks_auto_mode` block (AmazonEKS offer files) or
`plan --prices live`; where neither has it the line is unknown and says which source is missing.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import provisioners
from ..layout import Layout
from .capacity import Capacity
from .lines import Line, Sizes, pick
from .prices import Price, auto_mode_basis, auto_mode_fee

AUTO_MODE_FEE = "EKS Auto Mode fee"


def bills_pool_fee(layout: Layout) -> bool:
    """Whether the stack's provisioner adds Auto Mode's lines (its cost kinds): the fee per instance its NodePools
    launch, and its built-in pools."""
    return provisioners.AUTO_MODE_FEE in provisioners.of(layout).cost_kinds


def auto_mode_fee_line(cap: Capacity, region: str) -> Line:
    """The management fee EKS bills per hour of every instance Auto Mode launches for a NodePool, by instance
    type and region, on top of the EC2 price (EKS user guide automode/auto-mng.adoc, "Pricing"). The price
    list has one fee per instance type, whatever the purchase option, so a spot pool pays it too; a pool that
    may launch several types is counted at the highest fee, an upper bound, like its nodes."""
    quantity = Sizes(cap.min_nodes, cap.desired_nodes, cap.max_nodes)
    name = f"{AUTO_MODE_FEE}, NodePool {cap.name}"
    if not cap.instance_types:
        price = Price(None, f"{cap.kind} {cap.name} names no instance types")
        return Line(AUTO_MODE_FEE, name, "instance", "hour", quantity, price)
    price, bound, chosen, price_range, unpriced = pick(cap, {t: auto_mode_fee(region, t) for t in cap.instance_types})
    highest = cap.priced_by == "highest" and len(cap.instance_types) > 1
    basis = auto_mode_basis(region, chosen) + (", the highest of its types" if highest else "") if price.known else ""
    return Line(
        AUTO_MODE_FEE,
        name,
        "instance",
        "hour",
        quantity,
        price,
        bound,
        basis,
        price_range=price_range,
        unpriced_types=unpriced,
        note=f"billed per instance of NodePool {cap.name}, on top of its EC2 price" if price.known else None,
        instance_types=cap.instance_types,
    )


def auto_mode_lines(layout: Layout, nodes: Sequence[Capacity], region: str) -> list[Line]:
    """EKS Auto Mode's own charges: its built-in pools' nodes (sized by Auto Mode to the pods they run: no
    count or type to price before they run) and the management fee per instance it launches, per NodePool
    (prices.json `eks_auto_mode`, or `--prices live`; unknown with the missing source named)."""
    if not bills_pool_fee(layout):
        return []
    lines = [
        Line(
            "built-in pool",
            f"nodes of Auto Mode's built-in {g.name} pool",
            "pool",
            "hour",
            Sizes(1, 1, 1),
            Price(
                None,
                "Auto Mode sizes a built-in pool to the pods that land on it (on-demand C, M or R types of "
                "generation 5 or newer) and it takes no limits: its nodes are known only once they run",
            ),
        )
        for g in layout.groups
        if g.builtin
    ]
    # Every node Auto Mode launches for the stack's pools (the built-in pools' have their own line above).
    lines += [auto_mode_fee_line(c, region) for c in nodes if c.kind == "node pool"]
    return lines
