"""`--format markdown`: one document to post on a pull request, as Infracost's and Atlantis' comments are.

Per stack: a summary line, the cost (idle floor and ceiling), the deployment path and the waves as Mermaid
diagrams, the node groups, the placement matrix and the policy results (`check`; `plan` says the pack did
not run). Several stacks get a summary table first and one section each. The first line is an HTML comment
that names the command, so a CI job can find and update its own comment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mlplatform_core.model.cost import HOURS_PER_MONTH

from ..plan import Plan
from . import mermaid
from .capacity_quotas import capacity_quotas_markdown
from .check import verdict_line
from .cost import plan_cost
from .placement import matrix_from_report
from .plan_document import plan_document
from .plan_summary import summary_line
from .stack_result import StackResult

MARKER = "<!-- {command} --format markdown -->"
PASSED, FAILED = "✅", "❌"


def cell(text: object) -> str:
    """A table cell: one line, pipes escaped, line breaks as <br>."""
    return str(text).replace("|", "\\|").replace("\n", "<br>") or " "


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def details(summary: str, lines: list[str]) -> list[str]:
    """A collapsed section (GitHub renders tables and Mermaid inside it)."""
    return [f"<details><summary>{summary}</summary>", "", *lines, "", "</details>", ""]


def fenced(kind: str, text: str) -> list[str]:
    return [f"```{kind}", *text.splitlines(), "```", ""]


def _usd(total: Any) -> str:
    return ("≥ " if total.lower_bound else "") + f"{total.usd_per_month:,.2f}"


def _cost(plan: Plan) -> list[str]:
    cost = plan_cost(plan)
    floor, desired, ceiling = cost.idle_floor, cost.total("desired"), cost.ceiling
    line = (
        f"**Cost** (USD per month, {cost.region}): idle floor **{_usd(floor)}**, at desired sizes "
        f"{_usd(desired)}, ceiling **{_usd(ceiling)}**"
    )
    rows = [
        (ln.label, ln.basis or "no price in the snapshot", *(_line_usd(ln, s) for s in ("min", "desired", "max")))
        for ln in cost.lines
    ]
    return [line, "", *details("cost per item", table(("item", "priced as", "min", "desired", "max"), rows))]


def _line_usd(line: Any, size: str) -> str:
    hourly = line.usd_per_hour(size)
    if hourly is None:
        return "unknown"
    text = f"{hourly * HOURS_PER_MONTH:,.2f}"
    return f"≤ {text}" if line.bound == "upper" and hourly else text


def _scaling(group: dict[str, Any]) -> str:
    """Autoscaled, or (a group a migration keeps, with no autoscaler) holding the nodes it has."""
    if group["autoscaled"]:
        return " (autoscaled)"
    return " (not autoscaled: keeps its nodes)" if group["desiredSizeIgnored"] else ""


def _node_groups(doc: dict[str, Any]) -> list[str]:
    rows = [
        (
            g["name"],
            g["role"],
            g["capacityType"],
            ", ".join(g["instanceTypes"]),
            f"{g['minSize']}/{g['desiredSize']}/{g['maxSize']}" + _scaling(g),
            g["amiType"],
            "\n".join(
                f"`{t['key']}={t['value']}:{t['effect']}`" if t.get("value") else f"`{t['key']}:{t['effect']}`"
                for t in g["taints"]
            )
            or "-",
        )
        for g in doc["nodeGroups"]
    ]
    out = table(("group", "role", "capacity", "instance types", "min/desired/max", "AMI", "taints"), rows)
    if doc["nodePools"]:
        pools = [
            (p["name"], ", ".join(p.get("instanceTypes", [])[:6]), p.get("weight") or "-") for p in doc["nodePools"]
        ]
        out += ["", "Karpenter NodePools:", "", *table(("pool", "instance types (first 6)", "weight"), pools)]
    return out


def _placement(plan: Plan) -> list[str]:
    matrix = matrix_from_report(plan.layout, plan.placement)
    rows = [
        (row.profile, *(PASSED if c.schedulable else f"{FAILED} {c.short}" for c in row.cells)) for row in matrix.rows
    ]
    out = table(("profile", *matrix.groups), rows)
    if plan.placement.errors:
        out += ["", f"**{len(plan.placement.errors)} placement invariant(s) broken:**", ""]
        out += [f"- {FAILED} {f}" for f in plan.placement.errors]
    else:
        out += ["", f"{PASSED} placement invariants: all hold"]
    return out + [f"- note: {n}" for n in plan.placement.notes]


def _policy(plan: Plan, check: dict[str, Any] | None) -> list[str]:
    if check is None:
        return [f"Policy pack: not run by `plan` (`mlplatform check {plan.stack}` runs it)."]
    where = f", policy config `{check['policyConfig']}`" if check["policyConfig"] else ""
    out = [f"{PASSED if check['passed'] else FAILED} **{verdict_line(check)}**{where}", ""]
    if check["violations"]:
        rows = [
            (
                v["policy"],
                f"{v['resourceName']} ({v['resourceType']})" if v["resourceName"] else "(stack)",
                v["level"],
                v["message"],
            )
            for v in check["violations"]
        ]
        out += [*table(("rule", "resource", "level", "message"), rows), "", "How to fix:", ""]
        for name in dict.fromkeys(v["policy"] for v in check["violations"]):
            rule = next(r for r in check["rules"] if r["name"] == name)
            out.append(f"- `{name}`: {rule['remediation'] or rule['description']}")
        out.append("")
    return out


def stack_section(plan: Plan, doc: dict[str, Any], check: dict[str, Any] | None, heading: str = "###") -> list[str]:
    """One stack: everything a reviewer needs to approve the change, the long tables collapsed."""
    cfg = plan.config
    out = [
        f"{heading} Stack `{plan.stack}` ({cfg.environment}) from `{plan.source}`",
        "",
        f"**{summary_line(plan, doc, verdict_line(check) if check else None)}**",
        "",
        f"Cluster `{plan.layout.cluster_name}` in {cfg.region}, Kubernetes {cfg.kubernetes_version}"
        + (f" ({doc['kubernetesSupport']['note']})" if doc["kubernetesSupport"].get("note") else ""),
        "",
        *_cost(plan),
        *capacity_quotas_markdown(doc["capacityQuotas"]),
        *_policy(plan, check),
        f"{heading}# Deployment path (kubernetesLayer: {doc['deployment']['kubernetesLayer']})",
        "",
        *fenced("mermaid", mermaid.deployment_path(doc, plan.layout.cluster_name, cfg.region)),
        f"{heading}# Deployment waves",
        "",
        *fenced("mermaid", mermaid.waves(doc["deploymentOrder"])),
    ]
    for order in doc["deploymentOrder"]:
        if order["criticalPath"]:
            out.append(f"- critical path of {order['project']}: {mermaid.critical_path(order)}")
    out += [
        "",
        *details("Node groups", _node_groups(doc)),
        *details("Placement (profiles × node groups)", _placement(plan)),
    ]
    return out


def markdown_document(command: str, results: list[StackResult], exit_code: int) -> str:
    """The whole comment: a marker line, then one stack's section, or a summary table and a section per stack."""
    out = [MARKER.format(command=command), ""]
    several = len(results) > 1
    if several:
        out += [f"## {command}: {len(results)} stacks, exit {exit_code}", ""]
        out += table(("stack", "exit", "result"), ((r.label, r.exit_code, r.error or r.summary) for r in results))
        out.append("")
    else:
        out += [f"## {command}", ""]
    for r in results:
        if r.error is not None:
            out += [f"### Stack `{r.label}`: error", "", *fenced("text", r.error)]
            continue
        assert r.plan is not None
        doc = r.document if r.document is not None and "deploymentOrder" in r.document else plan_document(r.plan)
        out += stack_section(r.plan, doc, r.check)
    return "\n".join(line.rstrip() for line in out).rstrip() + "\n"
