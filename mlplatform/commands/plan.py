"""`mlplatform plan`: what one or more stacks will build, offline."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK, MEANINGS
from .stack_loop import JSON, MARKDOWN, add_stack_arguments, run_stacks

if TYPE_CHECKING:
    from rich.console import Console

    from ..project import Project
    from ..reports.stack_result import StackResult
    from ..stacks import Target

HELP = "show what one or more stacks will build, offline"
DESCRIPTION = (
    HELP + ". Several stacks (or --all) run in one process, each planned on its own; the exit code is the "
    "worst of them (2 when a stack cannot be read, which does not hide the others). With several stacks "
    '--json prints {"stacks": [<each stack\'s plan document, or its error>, ...], "exitCode": N}.'
)
EXIT_CODES = {
    EXIT_OK: "the plan was made (a broken placement invariant is shown at the end, not an exit code: "
    "`check` fails on it)",
    EXIT_BAD_INPUT: MEANINGS[EXIT_BAD_INPUT],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_stack_arguments(parser, "every stack of the project (each Pulumi.<stack>.yaml in its stack folder)")
    parser.add_argument(
        "--prices",
        choices=("snapshot", "live"),
        default="snapshot",
        help="where prices come from: the committed snapshot (default, offline), or, for what it lacks, the AWS "
        "Price List API (needs AWS credentials; answers cached on disk with their date for 7 days)",
    )
    parser.add_argument(
        "--quotas",
        choices=("snapshot", "live"),
        default="snapshot",
        help="which EC2 instance quota values the GPU capacity preflight assumes: the generated AWS defaults and "
        "the values under quotas.ec2 (default, offline), or the account's values read through Service Quotas in "
        "the stack's region (needs AWS credentials allowed servicequotas:GetServiceQuota)",
    )


def plan_stack(
    project: Project, target: Target, fmt: str, prices: str = "snapshot", quotas: str = "snapshot"
) -> StackResult:
    """One stack's plan; InputError when the stack cannot be read."""
    from ..plan import build_plan  # the engine and the Pulumi SDK: only once a plan is made
    from ..reports.plan_document import plan_document
    from ..reports.plan_summary import placement_verdict
    from ..reports.stack_result import StackResult

    plan = build_plan(target.stack, target.config_file, project, prices=prices)
    if quotas == "live":
        from mlplatform_core.model.capacity_quotas import wanted_codes

        from ..live_quotas import read_live_quotas  # boto3 only when live quotas are asked for

        plan.live_quotas = read_live_quotas(plan.config.region, wanted_codes(plan.layout))
    doc = plan_document(plan) if fmt in (JSON, MARKDOWN) else None
    # one `pulumi up` per program, each with its own waves: "in 6 + 3 waves"
    waves = " + ".join(str(len(o["waves"])) for o in doc["deploymentOrder"]) if doc else None
    resources = len(plan.run.resources)
    summary = f"{resources} resource{'s' if resources != 1 else ''}" + (f" in {waves} waves" if waves else "")
    return StackResult(
        plan.stack,
        plan.source,
        EXIT_OK,
        document=doc,
        summary=f"{summary}; placement: {placement_verdict(plan)}",
        plan=plan,
        named_by=plan.named_by,
    )


def render_plan(result: StackResult, console: Console) -> None:
    from ..reports.plan_view import render

    assert result.plan is not None
    render(result.plan, console)


def run(args: argparse.Namespace) -> int:
    return run_stacks(
        args,
        "mlplatform plan",
        lambda project, target, fmt: plan_stack(project, target, fmt, args.prices, args.quotas),
        render_plan,
    )
