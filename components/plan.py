"""The offline plan: what a stack will build, read from what the real program registers under mocks.

`build_plan` validates the stack file (clean ConfigError before anything
runs), runs __main__.py through the offline engine and keeps the recording.
`plan_document` turns it into the JSON document of `mlplatform plan --json`;
`render` prints the same facts as tables for people.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .config import ConfigError, Problem, StackConfig, parse, read_stack_file
from .engine import ProgramRun, Recorded, run_program
from .layout import Layout, build_layout
from .placement_report import placement_section, render_placement, stack_report
from .profiles import InvariantReport
from .scheduling import ROLE_LABEL, Taint
from .workload_report import kubernetes_section, render_workload_layer
from .workloads import build_workloads

NODE_GROUP_TYPE = "aws:eks/nodeGroup:NodeGroup"
ASG_TAG_TYPE = "aws:autoscaling/tag:Tag"
LAUNCH_TEMPLATE_TYPE = "aws:ec2/launchTemplate:LaunchTemplate"
EKS_CLUSTER_TYPE = "eks:index:Cluster"


@dataclass
class Plan:
    stack: str
    source: str
    config: StackConfig
    layout: Layout
    run: ProgramRun

    @cached_property
    def placement(self) -> InvariantReport:
        """The placement proof, computed once for the JSON, the tables and the check."""
        return stack_report(self.config, self.layout)


def project_root() -> Path:
    """The folder holding Pulumi.yaml: the working directory or one above it, else this checkout."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    return Path(__file__).resolve().parent.parent


def resolve_stack(stack: str | None, config_file: str | None) -> tuple[str, Path]:
    """Stack name and stack file from `plan <stack>` or `plan --config-file PATH`."""
    if config_file:
        path = Path(config_file)
        name = path.name
        stem = name[len("Pulumi."):-len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") else path.stem
        return (stack or stem or "stack"), path
    if not stack:
        raise ConfigError([Problem("stack", "name a stack (e.g. dev) or pass --config-file PATH")])
    path = project_root() / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        known = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in path.parent.glob("Pulumi.*.yaml"))
        raise ConfigError([Problem("stack", f"no stack file {path}; known stacks: {', '.join(known) or 'none'}")])
    return stack, path


def build_plan(stack: str | None = None, config_file: str | None = None) -> Plan:
    name, path = resolve_stack(stack, config_file)
    raw = read_stack_file(path)
    cfg = parse(raw, source=str(path))
    try:
        layout = build_layout(cfg, name)
        build_workloads(cfg)
    except ConfigError as err:
        raise ConfigError(err.problems, str(path)) from None
    return Plan(stack=name, source=str(path), config=cfg, layout=layout, run=run_program(name, raw))


# --- the document -------------------------------------------------------------------------------


def _by_parent(run: ProgramRun, *types: str) -> dict[tuple[str | None, str], list[Recorded]]:
    """Resources of the given types grouped by (parent, type): one pass, not one per node group."""
    index: dict[tuple[str | None, str], list[Recorded]] = {}
    for r in run.resources:
        if r.type in types:
            index.setdefault((r.parent, r.type), []).append(r)
    return index


def node_groups(run: ProgramRun, order: list[str] | None = None) -> list[dict[str, Any]]:
    """Every registered aws.eks.NodeGroup with the ASG tags and launch template of its component.

    Registration order is asynchronous; `order` (the layout's) keeps the output stable.
    """
    out = []
    rank = {name: i for i, name in enumerate(order or [])}
    found = sorted(run.of_type(NODE_GROUP_TYPE), key=lambda r: (rank.get(r.name, len(rank)), r.name))
    siblings = _by_parent(run, ASG_TAG_TYPE, LAUNCH_TEMPLATE_TYPE)
    for ng in found:
        i = ng.inputs
        scaling = i.get("scalingConfig", {})
        asg_tags = siblings.get((ng.parent, ASG_TAG_TYPE), [])
        tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in asg_tags}
        lts = siblings.get((ng.parent, LAUNCH_TEMPLATE_TYPE), [])
        out.append({
            "name": ng.name,
            "role": i.get("labels", {}).get(ROLE_LABEL, ng.name),
            "capacityType": i.get("capacityType"),
            "instanceTypes": i.get("instanceTypes", []),
            "amiType": i.get("amiType"),
            "minSize": scaling.get("minSize"),
            "maxSize": scaling.get("maxSize"),
            "desiredSize": scaling.get("desiredSize"),
            "desiredSizeIgnored": "scalingConfig.desiredSize" in ng.ignore_changes,
            "labels": dict(sorted(i.get("labels", {}).items())),
            "taints": [Taint.from_eks(t["key"], t.get("value"), t["effect"]).to_dict() for t in i.get("taints", [])],
            "autoscalerTags": dict(sorted(tags.items())),
            "launchTemplate": lts[0].inputs if lts else None,
        })
    return out


def plan_document(plan: Plan) -> dict[str, Any]:
    cfg = plan.config
    return {
        "stack": plan.stack,
        "environment": cfg.environment,
        "source": plan.source,
        "clusterName": plan.layout.cluster_name,
        "region": cfg.region,
        "kubernetesVersion": cfg.kubernetes_version,
        "nodeGroups": node_groups(plan.run, [g.name for g in plan.layout.groups]),
        "resourceCount": len(plan.run.resources),
        "resources": [
            {"type": r.type, "name": r.name, "parent": r.parent, "inputs": r.inputs,
             "protect": r.protect, "ignoreChanges": r.ignore_changes}
            for r in plan.run.resources
        ],
        "exports": plan.run.public_exports(),
        "placement": placement_section(plan.layout, report=plan.placement),
        "kubernetes": kubernetes_section(plan.run),
    }


# --- the human view -----------------------------------------------------------------------------


def make_console() -> Console:
    # Piped output (CI logs, files) would otherwise wrap the tables at 80 columns.
    console = Console()
    return console if console.is_terminal else Console(width=200, no_color=True)


def _endpoint(cfg: StackConfig) -> str:
    ep = cfg.endpoint
    parts = ["private"] if ep.private_access else []
    if ep.public_access:
        parts.append(f"public from {', '.join(ep.public_access_cidrs)}")
    return " + ".join(parts)


def _network(cfg: StackConfig) -> str:
    net = cfg.network
    if not net.creates_vpc:
        return f"existing VPC {net.vpc_id}, subnets {', '.join(net.private_subnet_ids or [])}"
    nat = net.nat_gateways or ("perAz" if cfg.environment == "prod" else "single")
    return (f"new VPC {net.vpc_cidr or '10.0.0.0/16'} across {net.availability_zone_count or 3} AZs, "
            f"NAT: {'one per AZ' if nat == 'perAz' else 'single'}")


def node_group_table(groups: list[dict[str, Any]]) -> Table:
    table = Table(title="Node groups", title_justify="left", show_lines=True)
    for col in ("group", "role", "capacity", "instance types", "min/desired/max", "AMI", "labels", "taints"):
        table.add_column(col)
    for g in groups:
        sizes = f"{g['minSize']}/{g['desiredSize']}/{g['maxSize']}"
        if g["desiredSizeIgnored"]:
            sizes += "\n(autoscaled)"
        table.add_row(
            g["name"], g["role"], g["capacityType"], "\n".join(g["instanceTypes"]), sizes, g["amiType"],
            "\n".join(f"{k}={v}" for k, v in g["labels"].items()),
            "\n".join(str(Taint(**t)) for t in g["taints"]) or "-",
        )
    return table


def render(plan: Plan, console: Console) -> None:
    cfg, doc = plan.config, plan_document(plan)
    console.print(f"[bold]Plan for stack {plan.stack}[/bold] ({cfg.environment}) from {plan.source}")
    console.print(f"  cluster {plan.layout.cluster_name} in {cfg.region}, Kubernetes {cfg.kubernetes_version}")
    console.print(f"  API endpoint: {_endpoint(cfg)}; secrets encrypted with a KMS key; all control-plane logs")
    console.print(f"  network: {_network(cfg)}")
    console.print()
    console.print(node_group_table(doc["nodeGroups"]))
    console.print()
    render_placement(plan.layout, console, report=plan.placement)
    console.print()
    render_workload_layer(doc, console)
    counts = Counter(r["type"] for r in doc["resources"])
    console.print(f"\n[bold]Resources:[/bold] {doc['resourceCount']} to create")
    for type_, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        console.print(f"  {n:4d}  {type_}")
    console.print("\n[bold]Stack outputs:[/bold]")
    for key, value in doc["exports"].items():
        text = str(value)
        if isinstance(value, dict) and len(text) > 120:  # the settings tables above show these in full
            keys = ", ".join(value)
            text = f"{len(value)} entries" + (f" ({keys})" if len(keys) <= 80 else "") + "; full values with --json"
        console.print(f"  {key}: {escape(text)}")
