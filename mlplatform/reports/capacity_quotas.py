"""The plan's GPU capacity preflight section (`capacityQuotas`): each EC2 instance quota the stack's GPU and spot
groups reach at max size, the value assumed, and the request to file where the stack is over it."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlplatform_core.model import ec2_quotas
from mlplatform_core.model.capacity_quotas import capacity_needs, capacity_warnings
from mlplatform_core.model.plan_document import CapacityQuota, CapacityQuotaReach, CapacityQuotas

from ..plan import Plan
from .tables import print_table


def capacity_quotas_section(plan: Plan) -> CapacityQuotas:
    needs = capacity_needs(plan.layout, plan.config.quotas.ec2, plan.live_quotas)
    return CapacityQuotas(
        values="live" if plan.live_quotas is not None else "snapshot",
        quotas=[
            CapacityQuota(
                code=n.quota.code,
                name=n.quota.name,
                kind=n.quota.kind,
                unit=n.quota.unit,
                needed=n.needed,
                value=n.applied,
                assumed=n.assumed,
                default=n.quota.default,
                over=n.over,
                request=f"{n.request} --region {plan.config.region}",
                reaches=[
                    CapacityQuotaReach(
                        source=r.source, kind=r.kind, instance_type=r.instance_type, nodes=r.nodes, amount=r.amount
                    )
                    for r in n.reaches
                ],
            )
            for n in needs
        ],
        warnings=capacity_warnings(needs, plan.config.region),
        data=ec2_quotas.source(),
    )


def render_capacity_quotas(section: CapacityQuotas, console: Console) -> None:
    if not section.quotas:
        return
    table = Table(title="EC2 instance quotas at max size (GPU and spot capacity)", title_justify="left")
    for col in ("quota", "code", "needed", "assumed", "groups and pools"):
        table.add_column(col)
    for q in section.quotas:
        value = "unknown" if q.value is None else f"{q.value} ({q.assumed})"
        needed = f"{q.needed} {q.unit}"
        reaches = ", ".join(f"{r.source} {r.nodes} x {r.instance_type}" for r in q.reaches)
        style = "red" if q.over else None
        table.add_row(escape(q.name), q.code, needed, value, escape(reaches), style=style)
    print_table(console, table)
    for w in section.warnings:
        console.print(f"[yellow]warning[/yellow] {escape(w)}")


def capacity_quotas_markdown(section: dict) -> list[str]:
    """The section for `--format markdown` (a pull request's comment): the quotas over their values, each with
    its request; nothing when every quota the stack reaches is within its value."""
    quotas = CapacityQuotas.model_validate(section)
    over = [q for q in quotas.quotas if q.over]
    if not over:
        return []
    out = ["EC2 instance quotas the GPU and spot groups exceed at max size:", ""]
    for q in over:
        out.append(
            f"- ⚠️ {q.name} (`{q.code}`): needs {q.needed} {q.unit}, assumed {q.value} ({q.assumed}); `{q.request}`"
        )
    return [*out, ""]
