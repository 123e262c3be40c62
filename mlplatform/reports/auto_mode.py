"""EKS Auto Mode in the plan: what the control plane enables, read back from the recorded aws.eks.Cluster.

`auto_mode_section` is `deployment.autoMode` in `mlplatform plan --json` (absent for the other provisioners):
the three capabilities (compute, block storage, load balancing), the built-in pools asked for, the node
role and who makes its access entry, what AWS runs in the stack's place, and where the core services run (the
system pool, or while a migration keeps the initial group, that group). `render_auto_mode` prints it.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from mlplatform_core.model.addons.core_services import core_services_sources
from mlplatform_core.model.addons.run_by_aws import aws_runs_nodes, run_by_aws
from mlplatform_core.model.automode import cluster as auto_mode
from mlplatform_core.model.plan_document import AutoModeSection
from mlplatform_core.model.resource_types import EKS_CLUSTER as EKS_CLUSTER_TYPE

from ..plan import Plan


def auto_mode_section(plan: Plan) -> AutoModeSection | None:
    if not aws_runs_nodes(plan.layout):
        return None
    clusters = plan.run.of_type(EKS_CLUSTER_TYPE)
    inputs = clusters[0].inputs if clusters else {}
    compute = inputs.get("computeConfig") or {}
    role = compute.get("nodeRoleArn")
    entry = f"type {auto_mode.ACCESS_ENTRY_TYPE}, {auto_mode.AUTO_NODE_ACCESS_POLICY}"
    return AutoModeSection(
        compute=compute.get("enabled") is True,
        block_storage=(inputs.get("storageConfig") or {}).get("blockStorage", {}).get("enabled") is True,
        load_balancing=(inputs.get("kubernetesNetworkConfig") or {}).get("elasticLoadBalancing", {}).get("enabled")
        is True,
        built_in_node_pools=list(compute.get("nodePools") or []),
        initial_group=plan.config.auto_mode.initial_group,
        node_role_arn=role,
        node_role_access_entry=f"EKS creates it ({entry})"
        if role
        else f"this stack creates it ({entry}): with no built-in pool the cluster names no node role",
        run_by_aws=run_by_aws(plan.layout),
        # The proof's names: "initial (kept node group)" while keepNodeGroups holds, though the system pool exists.
        core_services_on=list(core_services_sources(plan.layout)),
    )


def render_auto_mode(section: dict[str, Any], console: Console, show: Any = str) -> None:
    """`show` replaces the offline run's stand-ins (plan.placeholders.show)."""
    on = [
        name
        for name, key in (
            ("compute", "compute"),
            ("block storage", "blockStorage"),
            ("load balancing", "loadBalancing"),
        )
        if section[key]
    ]
    off = {"compute", "block storage", "load balancing"} - set(on)
    console.print(
        f"[bold]EKS Auto Mode:[/bold] {', '.join(on) or 'nothing'} enabled"
        + (f" ([red]{', '.join(sorted(off))} off[/red])" if off else "")
        + f"; built-in pools: {', '.join(section['builtInNodePools']) or 'none'}"
    )
    role = show(str(section["nodeRoleArn"])) if section["nodeRoleArn"] else "named by the NodeClasses only"
    console.print(escape(f"  node role: {role}; its access entry: {section['nodeRoleAccessEntry']}"))
    core = ", ".join(section["coreServicesOn"]) or "none"
    kept = "system" in section["builtInNodePools"] and "system" not in section["coreServicesOn"]
    until = ": they select its role until you give them the system pool's selector" if kept else ""
    console.print(escape(f"  core services (CoreDNS, the EBS CSI controller, the MLRun API) run on: {core}{until}"))
    console.print("  run by AWS, not by this stack:")
    for what, instead in section["runByAws"].items():
        console.print(escape(f"    {what}: {instead}"))
