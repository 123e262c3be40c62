"""The plan for people: the stack's summary, node groups, placement matrix, workload layer and resources."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mlplatform_core.model.addons.core_services import core_services_groups
from mlplatform_core.model.config import StackConfig
from mlplatform_core.model.deployment import VPC_CIDR_AT_DEPLOY, private_api_cidrs
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.plan_document import CapacityQuotas
from mlplatform_core.model.scheduling import Taint

from ..plan import Plan
from ..stacks import NAMED_BY_FILE, file_name_note
from .auto_mode import render_auto_mode
from .capacity_quotas import render_capacity_quotas
from .cost import render_cost
from .deployment import render_day_one
from .deployment_order import render_order
from .gpu_capacity import render_gpu_capacity
from .node_pools import node_pool_table
from .placement import render_placement
from .plan_document import plan_document
from .plan_summary import render_closing
from .tables import print_table
from .teams import render_teams
from .workload_layer import render_workload_layer


def _endpoint(cfg: StackConfig) -> str:
    ep = cfg.endpoint
    private = private_api_cidrs(cfg)
    parts = [f"private from {', '.join(private) if private else VPC_CIDR_AT_DEPLOY}"] if ep.private_access else []
    if ep.public_access:
        parts.append(f"public from {', '.join(ep.public_access_cidrs)}")
    return " + ".join(parts)


def _network(cfg: StackConfig) -> str:
    net = cfg.network
    if not net.creates_vpc:
        return f"existing VPC {net.vpc_id}, subnets {', '.join(net.private_subnet_ids or [])}"
    nat = net.nat_gateways or ("perAz" if cfg.environment == "prod" else "single")
    return (
        f"new VPC {net.vpc_cidr or '10.0.0.0/16'} across {net.availability_zone_count or 3} AZs, "
        f"NAT: {'one per AZ' if nat == 'perAz' else 'single'}"
    )


def _managed_nodes(layout: Layout) -> str:
    """The managed node groups an Auto Mode stack keeps are NodeGroup steps of the cluster program's waves; the core
    add-ons run on (and, in one program, wait for) a kept initial group while a migration holds, not the system pool."""
    if not layout.managed_groups:
        return ""
    groups = ", ".join(g.name for g in layout.managed_groups)
    core = ", ".join(core_services_groups(layout))
    return f"; the managed node groups ({groups}) are the cluster program's NodeGroup steps; core add-ons run on {core}"


def node_group_table(groups: list[dict[str, Any]]) -> Table:
    table = Table(title="Node groups", title_justify="left", show_lines=True)
    for col in ("group", "role", "capacity", "instance types", "min/desired/max", "AMI", "labels", "taints"):
        table.add_column(col)
    for g in groups:
        sizes = f"{g['minSize']}/{g['desiredSize']}/{g['maxSize']}"
        if g["autoscaled"]:
            sizes += "\n(autoscaled)"
        elif g["desiredSizeIgnored"]:  # a group a migration keeps: no autoscaler moves it, pulumi up leaves it
            sizes += "\n(not autoscaled:\nkeeps its nodes)"
        table.add_row(
            g["name"],
            g["role"],
            g["capacityType"],
            "\n".join(g["instanceTypes"]),
            sizes,
            g["amiType"],
            "\n".join(f"{k}={v}" for k, v in g["labels"].items()),
            "\n".join(str(Taint(**t)) for t in g["taints"]) or "-",
        )
    return table


def output_lines(key: str, value: Any, show: Callable[[str], str], width: int) -> list[str]:
    """One stack output: `key: value`, or a mapping or list one item per line when it is wider than `width`;
    a mapping of long values (the MLRun settings, which the tables above show in full) as its keys."""
    # A structured output as JSON, as `pulumi stack output` prints it (never Python's repr with single quotes).
    text = show(value if isinstance(value, str) else json.dumps(value))
    items: list[str] = []
    if isinstance(value, dict) and all(isinstance(v, str) and len(v) <= 60 for v in value.values()):
        items = [f"{k}={show(v)}" for k, v in value.items()]  # e.g. nodeGroups
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):  # e.g. nodePools
        items = [show(v) for v in value]
    elif isinstance(value, dict) and len(f"  {key}: {text}") > width:
        keys = ", ".join(value)
        entries = f"{len(value)} {'entry' if len(value) == 1 else 'entries'}"
        text = entries + (f" ({keys})" if len(keys) <= 80 else "") + "; full values with --json"
    if not items:
        return [f"  {key}: {text}"]
    line = f"  {key}: {', '.join(items)}"
    return [line] if len(line) <= width else [f"  {key}:", *(f"    {item}" for item in items)]


def _indented(console: Console, markup: str, by: int = 2, hang: int = 2) -> None:
    """A line of the plan's header: indented, and where it wraps, the rest indented a little further."""
    text = Text.from_markup(markup)
    lines = text.wrap(console, max(20, console.width - by - hang))
    for i, line in enumerate(lines):
        console.print(Text(" " * (by if i == 0 else by + hang)) + line, soft_wrap=True)


def render(plan: Plan, console: Console) -> None:
    """The plan for people: the header, day one, compute, cost, placement, the workload layer, the resources in
    their deployment order, the outputs, and the closing verdicts; read from the plan document."""
    doc = plan_document(plan)
    _render_header(plan, doc, console)
    render_day_one(plan, doc, console)
    console.print()
    _render_compute(plan, doc, console)
    render_cost(plan, console)
    console.print()
    render_placement(plan.layout, console, report=plan.placement)
    console.print()
    render_workload_layer(doc, console)
    _render_resources(plan, doc, console)
    _render_outputs(plan, doc, console)
    render_closing(plan, doc, console)


def _render_header(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    """Which stack, from which file, the cluster, its support phase and upgrade policy, endpoint and network."""
    cfg = plan.config
    console.print(f"[bold]Plan for stack {escape(plan.stack)}[/bold] ({cfg.environment}) from {escape(plan.source)}")
    if plan.named_by == NAMED_BY_FILE:
        _indented(console, f"[yellow]note[/yellow] {escape(file_name_note(plan.stack, plan.source))}")
    support = doc["kubernetesSupport"]
    _indented(
        console,
        f"cluster {plan.layout.cluster_name} in {cfg.region}, Kubernetes {cfg.kubernetes_version}"
        + (f" ({escape(support['note'])})" if support.get("note") else ""),
    )
    if policy := support.get("upgradePolicy", {}).get("note"):
        _indented(console, f"upgrade policy: {escape(policy)}")
    _indented(console, f"API endpoint: {_endpoint(cfg)}; secrets encrypted with a KMS key; all control-plane logs")
    _indented(console, f"network: {_network(cfg)}")
    console.print()


def _render_compute(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    """Node groups, EKS Auto Mode, NodePools and GPU capacity."""
    if doc["nodeGroups"]:
        print_table(console, node_group_table(doc["nodeGroups"]))
    else:
        console.print("Node groups: none (EKS Auto Mode launches every node, the core services' included)")
    console.print()
    auto_mode = doc["deployment"].get("autoMode")
    if auto_mode:
        render_auto_mode(auto_mode, console, plan.placeholders.show)
        console.print()
    if doc["nodePools"]:  # provisioner: karpenter or autoMode
        print_table(console, node_pool_table(doc["nodePools"]))
        console.print()
    render_gpu_capacity(doc["placement"]["gpuCapacity"], console)
    console.print()
    if doc["capacityQuotas"]["quotas"]:
        render_capacity_quotas(CapacityQuotas.model_validate(doc["capacityQuotas"]), console)
        console.print()
    if "teams" in doc:
        render_teams(doc["teams"], console)
        console.print()


def _render_resources(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    """How many resources of each type (and who creates them), then each program's deployment waves."""
    counts = Counter((r["type"], r["createdBy"]) for r in doc["resources"])
    creators = sorted({by for _, by in counts if by})
    created = sum(n for (_, by), n in counts.items() if by)
    note = f" ({created} of them created by {', '.join(creators)})" if created else ""
    console.print(f"\n[bold]Resources:[/bold] {doc['resourceCount']} to create{note}")
    for (type_, by), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1] or "")):
        console.print(f"  {n:4d}  {type_}" + (f"  [dim](created by {by})[/dim]" if by else ""))
    for order in doc["deploymentOrder"]:
        console.print()
        render_order(order, console)
    if doc["deployment"].get("autoMode"):
        console.print(
            "  nodes: none in the waves; EKS Auto Mode launches them for pending pods once the cluster (built-in "
            "pools) and the NodePools exist" + _managed_nodes(plan.layout)
        )


def _render_outputs(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    console.print("\n[bold]Stack outputs:[/bold]")
    for key, value in doc["exports"].items():
        for line in output_lines(key, value, plan.placeholders.show, console.width):
            console.print(escape(line), soft_wrap=True)  # a value is never broken: an ARN is copied whole
    if doc["placeholders"]:
        console.print(
            "  <...>: known only once deployed (the auto-name suffix, the account, ids); the offline run makes "
            "up stand-ins, which --json keeps and lists under `placeholders`"
        )
