"""`mlplatform plan`: what one or more stacks will build, offline."""

from __future__ import annotations

import argparse
import sys

from mlplatform_core.model.config import ConfigError

from ..collisions import colliding
from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK, MEANINGS
from ..plan import build_plan
from ..reports.console import make_console
from ..reports.plan_document import plan_document
from ..reports.plan_summary import placement_verdict
from ..reports.plan_view import render
from ..reports.stack_runs import StackResult, finish
from ..stacks import NAMED_BY_FILE, add_stack_options, file_name_note, select_stacks

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
    parser.add_argument("stacks", nargs="*", metavar="STACK", help="stack names; each reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--all", action="store_true", help="every stack in stacks/")
    add_stack_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "--prices",
        choices=("snapshot", "live"),
        default="snapshot",
        help="where prices come from: the committed snapshot (default, offline), or, for what it lacks, the AWS "
        "Price List API (needs AWS credentials; answers cached on disk with their date for 7 days)",
    )


def run(args: argparse.Namespace) -> int:
    targets = select_stacks(args.stacks, args.config_file, args.all, args.stack_name)
    console = None if args.json else make_console()
    results = []
    refused = colliding(targets)
    for stack, config_file in targets:
        if (stack, config_file) in refused:
            results.append(StackResult(stack, config_file, EXIT_BAD_INPUT, error=refused[stack, config_file]))
            print(f"error: {refused[stack, config_file]}", file=sys.stderr)
            continue
        try:
            plan = build_plan(stack, config_file, prices=args.prices)
        except ConfigError as err:
            results.append(StackResult(stack, config_file, EXIT_BAD_INPUT, error=str(err)))
            print(f"error: {err}", file=sys.stderr)
            continue
        doc = plan_document(plan) if args.json else None
        if doc is not None and plan.named_by == NAMED_BY_FILE:
            print(f"note: {file_name_note(plan.stack, plan.source)}", file=sys.stderr)
        # one `pulumi up` per program, each with its own waves: "in 6 + 3 waves"
        waves = " + ".join(str(len(o["waves"])) for o in doc["deploymentOrder"]) if doc else None
        summary = f"{len(plan.run.resources)} resources" + (f" in {waves} waves" if waves else "")
        results.append(
            StackResult(
                plan.stack,
                plan.source,
                EXIT_OK,
                document=doc,
                summary=f"{summary}; placement: {placement_verdict(plan)}",
            )
        )
        if console is not None:
            if len(results) > 1:
                console.print()
            render(plan, console)
    return finish("mlplatform plan", results, console, several=len(targets) > 1)
