"""The plan's GPU-capacity section: training groups (AZ, placement group, EFA), reservations, GPU sharing, what
each node advertises, node health, Pod Identity and the EKS quotas the stack is checked against. A migrating stack's
kept node groups and Karpenter pools are listed too, by the placement proof's names."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlplatform_core.model import quotas
from mlplatform_core.model.layout import NodeGroupSpec
from mlplatform_core.model.layout.autoscaler_tags import template_resources
from mlplatform_core.model.ml_settings.gpu_resources import group_resources
from mlplatform_core.model.plan_document import GpuCapacity, GpuGroup, QuotaUse, Reservation
from mlplatform_core.model.provisioners import launcher

from ..plan import Plan
from .tables import print_table


def _special(g: NodeGroupSpec) -> bool:
    return g.gpu or g.single_zone


def _group(g: NodeGroupSpec, name: str, autoscaler: bool) -> GpuGroup:
    """`name`: the placement proof's (layout.node_sources), so a kept group or pool says it is the kept one.
    `autoscaler`: whether the Cluster Autoscaler runs, the only reader of the scale-from-zero tags."""
    given: dict[str, Any] = {}  # written only where they apply
    if g.reservation is not None:
        r = g.reservation
        placement = {} if r.placement_group is None else {"placement_group": r.placement_group}
        given["reservation"] = Reservation(
            id=r.id, type=r.type, instance_count=r.instance_count, end_date=r.end, **placement
        )
    if g.gpu:
        given["gpu_resources"] = group_resources(g)
        if not g.karpenter and autoscaler:
            given["scale_from_zero"] = template_resources(g)
    return GpuGroup(
        name=name,
        provisioner=launcher(g).name,
        capacity_type=g.capacity_type,
        availability_zone=g.availability_zone or ("the stack's first AZ" if g.single_zone else None),
        placement_group=g.placement_group,
        efa_interfaces=g.efa_interfaces,
        node_repair=g.node_repair and not g.karpenter,
        **given,
    )


def gpu_capacity_section(plan: Plan) -> GpuCapacity:
    layout, cfg = plan.layout, plan.config
    managed = layout.managed_groups
    applied = {q: quotas.quota(q, cfg.quotas).applied for q in (quotas.MANAGED_NODE_GROUPS, quotas.NODES_PER_GROUP)}
    return GpuCapacity(
        # While a stack migrates, its kept GPU node groups and Karpenter pools still launch GPU nodes.
        groups=[_group(g, name, layout.runs_cluster_autoscaler) for name, g in layout.node_sources if _special(g)],
        node_repair=layout.node_repair,
        pod_identity=layout.pod_identity,
        gpu_metrics=layout.gpu_metrics,
        quotas=[
            QuotaUse(name=quotas.MANAGED_NODE_GROUPS, limit=applied[quotas.MANAGED_NODE_GROUPS], used=len(managed)),
            QuotaUse(
                name=quotas.NODES_PER_GROUP,
                limit=applied[quotas.NODES_PER_GROUP],
                used=max((g.max_size for g in managed), default=0),
            ),
        ],
    )


def _where(g: dict[str, Any]) -> str:
    parts = [g["availabilityZone"] or "every AZ"]
    if g["placementGroup"]:
        parts.append("cluster placement group")
    if g["efaInterfaces"]:
        parts.append(f"{g['efaInterfaces']} EFA interfaces")
    return "\n".join(parts)


def _reservation(r: dict[str, Any] | None) -> str:
    if not r:
        return "-"
    count = f", {r['instanceCount']} instances" if r["instanceCount"] else ""
    ends = f"\nends {r['endDate']}" if r["endDate"] else ""
    return f"{r['type']} {r['id']}{count}{ends}"


def render_gpu_capacity(section: dict[str, Any], console: Console) -> None:
    q = section["quotas"]
    health = "on (EKS node auto repair + node monitoring agent)" if section["nodeRepair"] else "off (nodeRepair: false)"
    console.print(
        f"Node health: {health}; add-on roles through {'Pod Identity' if section['podIdentity'] else 'IRSA'}; "
        f"GPU metrics (DCGM exporter): {'on' if section['gpuMetrics'] else 'off'}"
    )
    console.print(
        "EKS quotas: "
        + "; ".join(f"{v['name']} {v['used']} of {v['limit']}" for v in q)
        + " (raised values under quotas:)"
    )
    if not section["groups"]:
        return
    table = Table(title="GPU and training capacity", title_justify="left", show_lines=True)
    for col in ("group", "capacity", "where", "reservation", "pods request (per node)", "scale-from-zero tags"):
        table.add_column(col)
    for g in section["groups"]:
        res = g.get("gpuResources") or {}
        request = "-"
        if res.get("allocation") == "dra":  # a claim, not an extended resource (gpu_claims.py)
            request = f"claim {res['deviceClass']} x{res['perNode']}" + (
                f" ({res['migProfile']})" if res.get("migProfile") else ""
            )
        elif res:
            request = f"{res['resource']} x{res['perNode']}" + (
                f" ({res['sharing']})" if res["sharing"] != "none" else ""
            )
        if "efaPerNode" in res:
            request += f"\nvpc.amazonaws.com/efa x{res['efaPerNode']}"
        tags = "\n".join(f"{k}={v}" for k, v in (g.get("scaleFromZero") or {}).items()) or "-"
        table.add_row(
            escape(g["name"]),
            f"{g['capacityType']}\n({g['provisioner']})",
            escape(_where(g)),
            escape(_reservation(g.get("reservation"))),
            escape(request),
            escape(tags),
        )
    print_table(console, table)
