"""GPU capacity preflight: the EC2 instance quotas a stack can reach at max size, against the values assumed.

Pure Python. EC2 counts running On-Demand instances in vCPUs per group of families (`Running On-Demand P
instances`, L-417A185B, counts every P type's vCPUs) and Spot requests the same way (`All P5 Spot Instance
Requests`); new accounts start with 0 for the GPU groups (ec2_quotas: the AWS defaults), so a GPU group's
first scale-up fails with VcpuLimitExceeded long after `pulumi up` succeeded. The plan adds up what each source
of nodes can reach and warns where the sum is over the value it assumes: the account's value read live
(`plan --quotas live`), else the raised value under `quotas.ec2`, else the AWS default.

What counts, from the cost model's view of every source of nodes (cost.capacity.stack_capacity: node groups,
Karpenter and Auto Mode pools, kept groups and pools alike, whatever the provisioner):
- each On-Demand group or pool that can launch accelerated types (a GPU of any maker or another accelerator:
  P, G and VT, Inf, Trn, DL, F), and every Spot group or pool, whatever its types;
- at its ceiling: max nodes x the most vCPUs among its types in that quota, and for a pool no more than its
  NodePool `cpu` limit (Karpenter counts a pool's nodes' capacity against it). A static pool's always-running
  replicas are within the same ceiling, so they change nothing here;
- an On-Demand Capacity Reservation's instances are On-Demand instances (all of them: the group's max is capped
  at the count); a Capacity Block's instances are listed against the family's `Concurrent <family> Capacity
  Blocks per account` quota, one block per reservation, and not added to the On-Demand vCPUs (whether EC2 counts
  them there is not in the data this project has).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .cost.capacity import Capacity, stack_capacity
from .ec2_quotas import CAPACITY_BLOCK, ON_DEMAND, SERVICE_CODE, SPOT, Ec2Quota, quota_for, quotas
from .instances import lookup
from .layout import Layout
from .quantity import QuantityError, parse_quantity

DEFAULT, RAISED, LIVE, UNKNOWN = "AWS default", "quotas.ec2", "live", "unknown"


@dataclass(frozen=True)
class Reach:
    """What one source of nodes can reach in one quota."""

    source: str  # the group's or pool's name
    kind: str  # node group, node pool, ...
    instance_type: str  # the type with the most vCPUs in the quota
    nodes: int  # max nodes (a Capacity Block: its instances)
    amount: int  # vCPUs (Capacity Blocks: 1 block)


@dataclass(frozen=True)
class QuotaNeed:
    quota: Ec2Quota
    needed: int
    applied: int | None  # None: no value known (no default in the data, none raised, none read live)
    assumed: str  # where `applied` comes from: AWS default, quotas.ec2, live, unknown
    reaches: tuple[Reach, ...]

    @property
    def over(self) -> bool:
        return self.applied is not None and self.needed > self.applied

    @property
    def request(self) -> str:
        return (
            f"aws service-quotas request-service-quota-increase --service-code {SERVICE_CODE} "
            f"--quota-code {self.quota.code} --desired-value {self.needed}"
        )


def _cpu_limit(layout: Layout, name: str) -> int | None:
    """A pool's NodePool `cpu` limit in whole vCPUs (None: no pool by that name, or no cpu limit)."""
    for pool in (*layout.node_pools, *layout.retained_pools):
        if pool.name == name and "cpu" in pool.limits:
            try:
                return int(parse_quantity(pool.limits["cpu"]))
            except QuantityError:
                return None
    return None


def _counted(cap: Capacity) -> bool:
    """Spot groups always; On-Demand ones that can launch an accelerated type."""
    if cap.spot:
        return True
    return any((t := lookup(name)) is not None and t.accelerated for name in cap.instance_types)


def _reaches(layout: Layout) -> list[tuple[Ec2Quota, Reach]]:
    out: list[tuple[Ec2Quota, Reach]] = []
    for cap in stack_capacity(layout):
        if cap.reservation == "capacity-block":
            for q, itype in _largest(cap, CAPACITY_BLOCK).items():
                out.append((q, Reach(cap.name, cap.kind, itype, cap.max_nodes, 1)))
            continue
        if not _counted(cap):
            continue
        kind = SPOT if cap.spot else ON_DEMAND
        limit = None if cap.kind.startswith("node group") else _cpu_limit(layout, cap.name)
        for q, itype in _largest(cap, kind).items():
            vcpus = cap.max_nodes * (lookup(itype).vcpu or 0)  # type: ignore[union-attr]
            if limit is not None:
                vcpus = min(vcpus, limit)
            out.append((q, Reach(cap.name, cap.kind, itype, cap.max_nodes, vcpus)))
    return out


def _largest(cap: Capacity, kind: str) -> dict[Ec2Quota, str]:
    """Per quota the capacity's types count against: the type with the most vCPUs (catalog types only)."""
    best: dict[Ec2Quota, str] = {}
    for name in cap.instance_types:
        t, q = lookup(name), quota_for(name, kind)
        if t is None or t.vcpu is None or q is None:
            continue
        if q not in best or t.vcpu > (lookup(best[q]).vcpu or 0):  # type: ignore[union-attr]
            best[q] = name
    return best


def _applied(q: Ec2Quota, raised: Mapping[str, int], live: Mapping[str, int] | None) -> tuple[int | None, str]:
    if live is not None and q.code in live:
        return live[q.code], LIVE
    if q.code in raised:
        return raised[q.code], RAISED
    if q.default is not None:
        return q.default, DEFAULT
    return None, UNKNOWN


def capacity_needs(layout: Layout, raised: Mapping[str, int], live: Mapping[str, int] | None = None) -> list[QuotaNeed]:
    """Every EC2 instance quota the stack reaches, with what it needs and the value assumed, by quota."""
    grouped: dict[Ec2Quota, list[Reach]] = {}
    for q, reach in _reaches(layout):
        grouped.setdefault(q, []).append(reach)
    needs = []
    for q, reaches in grouped.items():
        applied, assumed = _applied(q, raised, live)
        # a Capacity Block quota counts blocks (one per reservation), the others vCPUs
        needed = len(reaches) if q.kind == CAPACITY_BLOCK else sum(r.amount for r in reaches)
        needs.append(QuotaNeed(q, needed, applied, assumed, tuple(reaches)))
    kinds = (ON_DEMAND, SPOT, CAPACITY_BLOCK)
    return sorted(needs, key=lambda n: (kinds.index(n.quota.kind), n.quota.name))


def wanted_codes(layout: Layout) -> list[str]:
    """The quota codes a live read asks for: those the stack reaches."""
    return sorted({q.code for q, _ in _reaches(layout)})


def _what(need: QuotaNeed) -> str:
    parts = []
    for r in need.reaches:
        if need.quota.kind == CAPACITY_BLOCK:
            parts.append(f"{r.source} ({r.nodes} x {r.instance_type})")
        else:
            parts.append(f"{r.source} ({r.nodes} x {r.instance_type} = {r.amount})")
    return ", ".join(parts)


def capacity_warnings(needs: list[QuotaNeed], region: str) -> list[str]:
    """One warning per quota the stack can exceed: the quota, what needs it, the value assumed and the request."""
    out = []
    for n in needs:
        if not n.over:
            continue
        q = n.quota
        where = {
            DEFAULT: f"the AWS default {n.applied}",
            RAISED: f"the raised value {n.applied} in quotas.ec2.{q.code}",
            LIVE: f"the account's value {n.applied} (read live)",
        }[n.assumed]
        out.append(
            f'needs {n.needed} {q.unit} of the EC2 quota "{q.name}" ({q.code}) at max size: {_what(n)}; over '
            f"{where}. Ask for more (Service Quotas console, Amazon Elastic Compute Cloud, or `{n.request} "
            f"--region {region}`) and record the granted value as quotas.ec2.{q.code}: {n.needed}"
        )
    return out


def known_codes() -> list[str]:
    return sorted(quotas())
