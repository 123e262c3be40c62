"""`mlplatform check`: the policy pack's rules on the offline program run, no Pulumi CLI or cloud needed.

The recording of plan.build_plan becomes the resources pulumi-policy would
see (inputs for resource rules, inputs + outputs for stack rules, protect,
ignoreChanges, parents), and mlplatform_policies.offline evaluates the very
policy objects the pack serves to `pulumi preview --policy-pack policies`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .engine import ProgramRun
from .plan import Plan, project_root

from mlplatform_policies import POLICIES, offline

Violation = offline.Violation
PolicyConfigError = offline.PolicyConfigError
load_policy_config = offline.load_policy_config


def policy_resources(run: ProgramRun) -> list[offline.Resource]:
    return [
        offline.Resource(
            type=r.type, name=r.name, urn=r.urn, props=r.inputs, parent=r.parent, protect=r.protect,
            ignore_changes=tuple(r.ignore_changes),
            # Stack policies see a resource's state; under mocks that is the inputs plus the mock's outputs.
            state={**r.inputs, **r.outputs},
        )
        for r in run.resources
    ]


# The placement proof needs the layout, which a real preview's policy pack never sees: offline only.
PLACEMENT_RULE = {
    "name": "placement-invariants",
    "level": "mandatory",
    "defaultLevel": "mandatory",
    "severity": "high",
    "description": "Every built-in workload profile (MLRun jobs in each preemption mode, Nuclio, Jupyter, GPU "
                   "training, Polyaxon on spot, core services) lands only where it belongs (offline only).",
    "remediation": "Run `mlplatform plan <stack>` to see the placement matrix; make spot groups share their "
                   "taints so MLRun's tolerations cover them, keep GPU types in GPU groups and core services "
                   "on the initial group.",
}


def placement_violations(plan: Plan) -> list[Violation]:
    """The broken placement promises of the built-in profiles as violations of one mandatory rule."""
    return [
        Violation(policy=PLACEMENT_RULE["name"], level="mandatory", severity=PLACEMENT_RULE["severity"],
                  message=f"{f.profile} {f.message}", urn=None, resource_type=None, resource_name=None,
                  description=PLACEMENT_RULE["description"], remediation=PLACEMENT_RULE["remediation"])
        for f in plan.placement.errors
    ]


def run_checks(plan: Plan | ProgramRun, policy_config: Mapping[str, Any] | None = None) -> list[Violation]:
    """Every violation of the pack's rules in a plan (or a bare program run), mandatory first.

    A plan also carries its layout, so its placement invariants are checked too.
    """
    run = plan.run if isinstance(plan, Plan) else plan
    violations = offline.evaluate(policy_resources(run), policy_config)
    if isinstance(plan, Plan):
        violations = placement_violations(plan) + violations
    return violations


def default_policy_config(stack: str) -> Path | None:
    """policies/config/<stack>.json, the file CI passes as --policy-pack-config for that stack."""
    path = project_root() / "policies" / "config" / f"{stack}.json"
    return path if path.is_file() else None


def effective_levels(policy_config: Mapping[str, Any] | None) -> dict[str, str]:
    return {name: s.level.value for name, s in offline.resolve_config(policy_config).items()}


def check_document(plan: Plan, violations: list[Violation], config_path: Path | None,
                   policy_config: Mapping[str, Any] | None) -> dict[str, Any]:
    levels = effective_levels(policy_config)
    mandatory = sum(v.mandatory for v in violations)
    return {
        "stack": plan.stack,
        "source": plan.source,
        "policyConfig": str(config_path) if config_path else None,
        "passed": mandatory == 0,
        "mandatory": mandatory,
        "advisory": len(violations) - mandatory,
        "violations": [v.to_dict() for v in violations],
        "rules": [
            {"name": p.name, "level": levels[p.name], "defaultLevel": p.enforcement_level.value,
             "severity": p.severity.value if p.severity else None, "description": p.description,
             "remediation": p.remediation_steps}
            for p in POLICIES
        ] + [PLACEMENT_RULE],
    }


def render_check(doc: dict[str, Any], console: Console) -> None:
    where = f", policy config {doc['policyConfig']}" if doc["policyConfig"] else ""
    console.print(f"[bold]Policy check for stack {doc['stack']}[/bold] ({doc['source']}{where})")
    disabled = [r["name"] for r in doc["rules"] if r["level"] == "disabled"]
    changed = [f"{r['name']}={r['level']}" for r in doc["rules"]
               if r["level"] != r["defaultLevel"] and r["level"] != "disabled"]
    console.print(f"  {len(doc['rules']) - len(disabled)} rules evaluated"
                  + (f"; disabled: {', '.join(disabled)}" if disabled else "")
                  + (f"; changed by policy config: {', '.join(changed)}" if changed else ""))
    if doc["violations"]:
        table = Table(show_lines=True)
        for col in ("rule", "resource", "level", "message"):
            table.add_column(col)
        for v in doc["violations"]:
            resource = f"{v['resource_name']}\n({v['resource_type']})" if v["resource_name"] else "(stack)"
            style = "red" if v["level"] == "mandatory" else "yellow"
            table.add_row(v["policy"], escape(resource), f"[{style}]{v['level']}[/{style}]", escape(v["message"]))
        console.print(table)
        console.print("[bold]How to fix[/bold]")
        for name in dict.fromkeys(v["policy"] for v in doc["violations"]):
            rule = next(r for r in doc["rules"] if r["name"] == name)
            console.print(f"  {name}: {escape(rule['remediation'] or rule['description'])}")
    verdict = "[green]passed[/green]" if doc["passed"] else "[red]failed[/red]"
    console.print(f"\n{verdict}: {doc['mandatory']} mandatory, {doc['advisory']} advisory violation(s)")


# --- command ------------------------------------------------------------------------------------


def add_check_arguments(parser: Any) -> None:
    parser.add_argument("stack", nargs="?", help="stack name; reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--policy-config", metavar="PATH",
                        help="policy config JSON, as for `pulumi preview --policy-pack-config` "
                             "(default: policies/config/<stack>.json when it exists)")


def cmd_check(args: Any) -> int:
    import json

    from .cli import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
    from .plan import build_plan, make_console

    try:
        plan = build_plan(args.stack, args.config_file)
        path = Path(args.policy_config) if args.policy_config else default_policy_config(plan.stack)
        policy_config = load_policy_config(path) if path else None
        violations = run_checks(plan, policy_config)
        doc = check_document(plan, violations, path, policy_config)
    except PolicyConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(doc, indent=2, default=str))
    else:
        render_check(doc, make_console())
    return EXIT_OK if doc["passed"] else EXIT_FAILED
