"""Mermaid diagrams of a plan: the deployment path (who runs `pulumi up` where, and what it must reach) and
the deployment waves of each program. GitHub and MkDocs (Material) render them from ```mermaid blocks."""

from __future__ import annotations

import re
from typing import Any

from .deployment_order import short_type

MAX_KINDS = 4  # resource kinds named in a wave's box; the rest are counted


def label(text: str) -> str:
    """Text inside a Mermaid `["..."]` label: entity codes for what Mermaid would read as syntax or HTML."""
    for char, code in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
        text = text.replace(char, code)
    return text


def _box(node: str, *lines: str, shape: str = "[]") -> str:
    opening, closing = {"[]": ("[", "]"), "db": ("[(", ")]"), "round": ("(", ")")}[shape]
    return f'{node}{opening}"{"<br/>".join(label(x) for x in lines)}"{closing}'


def _edge(a: str, b: str, text: str = "", style: str = "-->") -> str:
    return f'{a} {style}|"{label(text)}"| {b}' if text else f"{a} {style} {b}"


def deployment_path(doc: dict[str, Any], cluster_name: str, region: str) -> str:
    """Each `pulumi up` in order, where it runs, and what it must reach: AWS APIs, the cluster's private
    and/or public API endpoint, the Helm chart repositories."""
    dep = doc["deployment"]
    endpoint = dep["endpoint"]
    private, public = endpoint["privateAccess"], endpoint["publicAccess"]
    private_from = ", ".join(endpoint.get("privateAccessCidrs") or []) or "the VPC's CIDR"
    lines = ["flowchart LR", "  " + _box("aws", "AWS APIs", region, shape="db")]
    inside: list[str] = []
    if private:
        inside.append("    " + _box("apiPrivate", f"Kubernetes API of {cluster_name}", "private endpoint"))
    if public:
        cidrs = ", ".join(endpoint["publicAccessCidrs"]) or "no CIDR"
        lines.append("  " + _box("apiPublic", f"Kubernetes API of {cluster_name}", f"public endpoint from {cidrs}"))
    edges: list[str] = []
    charts = False
    programs = dep["programs"]
    for i, p in enumerate(programs, 1):
        node = f"step{i}"
        box = _box(node, f"{i}. {p['command']}", f"project {p['project']}, {p['resources']} resources")
        in_vpc = p["kubernetesApi"] and private and not public
        (inside if in_vpc else lines).append(("    " if in_vpc else "  ") + box)
        edges.append(_edge(node, "aws", "HTTPS"))
        if p["kubernetesApi"]:
            if private:
                edges.append(_edge(node, "apiPrivate", f"HTTPS 443 from {private_from}", "-->" if in_vpc else "-.->"))
            if public:
                edges.append(_edge(node, "apiPublic", "HTTPS 443"))
            charts = charts or any(r.startswith("Helm chart") for r in p["reaches"])
        if i > 1:
            then = "then"
            if dep.get("clusterStackReference"):
                then += f", reads {dep['clusterStackReference']}"
            edges.append(_edge(f"step{i - 1}", node, then, "==>"))
    if charts:
        lines.append("  " + _box("charts", "Helm chart repositories", shape="db"))
        edges += [_edge(f"step{i}", "charts", "HTTPS") for i, p in enumerate(programs, 1) if p["kubernetesApi"]]
    if inside:
        lines.append(f'  subgraph vpc["{label(f"VPC of {cluster_name} (or a network connected to it)")}"]')
        lines += inside
        lines.append("  end")
    lines.append("  " + _edge("aws", "apiPrivate" if private else "apiPublic", "creates", "-.->"))
    lines += [f"  {e}" for e in edges]
    return "\n".join(lines)


def _wave_kinds(resources: list[dict[str, str]]) -> str:
    counts: dict[str, int] = {}
    for r in resources:
        kind = short_type(r["type"])
        counts[kind] = counts.get(kind, 0) + 1
    shown = [f"{n} × {kind}" if n > 1 else kind for kind, n in list(counts.items())[:MAX_KINDS]]
    more = len(counts) - MAX_KINDS
    return ", ".join(shown) + (f" and {more} more kind{'s' if more > 1 else ''}" if more > 0 else "")


def _node_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", text.title()) or "program"


def waves(orders: list[dict[str, Any]]) -> str:
    """Each program's waves (what its `pulumi up` can create together), top to bottom, programs in order."""
    lines = ["flowchart TB"]
    last: str | None = None
    for n, order in enumerate(orders):
        prefix = f"p{n}{_node_id(order['program'])}"
        title = f"{order['project']} ({order['program']})"
        lines.append(f'  subgraph {prefix}["{label(title)}"]')
        lines.append("    direction TB")
        ids = []
        for w in order["waves"]:
            node = f"{prefix}w{w['wave']}"
            count = len(w["resources"])
            lines.append(
                "    "
                + _box(
                    node, f"wave {w['wave']}: {count} resource{'s' if count != 1 else ''}", _wave_kinds(w["resources"])
                )
            )
            ids.append(node)
        if len(ids) > 1:
            lines.append("    " + " --> ".join(ids))
        lines.append("  end")
        if last and ids:
            lines.append(f'  {last} ==>|"{label("the cluster stack is up")}"| {ids[0]}')
        last = ids[-1] if ids else last
    return "\n".join(lines)


def critical_path(order: dict[str, Any]) -> str:
    return " → ".join(f"{r['name']} ({short_type(r['type'])})" for r in order["criticalPath"])
