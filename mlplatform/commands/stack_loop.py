"""The one loop `plan` and `check` share: the project, the stacks, one result per stack, one output, one exit code.

A command gives its per-stack step (evaluate: a StackResult, or InputError for a stack it cannot read) and
how one result looks as tables; the loop does the rest the same way for both: a stack that cannot be read
is an error line (exit 2) that hides no other stack's result, tables per stack and a closing summary for
several, one JSON document, or one Markdown document (a pull-request comment).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT
from ..stack_names import add_stack_options, stack_argument

if TYPE_CHECKING:
    from rich.console import Console

    from ..project import Project
    from ..reports.stack_result import StackResult
    from ..stacks import Target

TABLE, JSON, MARKDOWN = "table", "json", "markdown"
FORMATS = (TABLE, JSON, MARKDOWN)


def add_stack_arguments(parser: argparse.ArgumentParser, every_help: str) -> None:
    """STACK..., --all, --config-file, --stack, --project-dir and the output format."""
    parser.add_argument(
        "stacks",
        nargs="*",
        metavar="STACK",
        type=stack_argument,
        help="stack names (dev, or as Pulumi names them: org/dev, org/project/dev); each reads the project's "
        "Pulumi.<stack>.yaml",
    )
    parser.add_argument("--all", action="store_true", help=every_help)
    add_stack_options(parser)
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="table (default): for people at a terminal; json: one JSON document; markdown: one document to "
        "post on a pull request (summary, cost, node groups, placement, policy, Mermaid diagrams)",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")


def output_format(args: argparse.Namespace) -> str:
    if args.json and args.format not in (None, JSON):
        raise InputError(f"--json is --format json: pass --format {args.format} or --json, not both")
    return JSON if args.json else (args.format or TABLE)


def run_stacks(
    args: argparse.Namespace,
    command: str,
    evaluate: Callable[[Project, Target, str], StackResult],
    render: Callable[[StackResult, Console], None],
) -> int:
    """Run `evaluate(project, target, format)` on every selected stack and print the results in the format.

    Imported here, not at the top: `mlplatform plan --help` must not load the engine or the reports.
    """
    from ..collisions import colliding
    from ..plan import project_for
    from ..reports.console import make_console
    from ..reports.stack_result import StackResult
    from ..reports.stack_runs import finish
    from ..stacks import NAMED_BY_FILE, file_name_note, select_stacks

    fmt = output_format(args)
    project = project_for(args.project_dir, args.config_file)
    targets = select_stacks(project, args.stacks, args.config_file, args.all, args.stack_name)
    if getattr(args, "standalone", False):  # the mlplatform process: it runs its programs and exits
        from ..engine import run as engine_run

        engine_run.FREEZER.enabled = True
    console = make_console() if fmt == TABLE else None
    results: list[StackResult] = []
    refused = colliding(project, targets)  # two stacks of the run that would create the same cluster
    for target in targets:
        try:
            if target in refused:
                raise InputError(refused[target])
            result = evaluate(project, target, fmt)
        except InputError as err:
            result = StackResult(target.stack, target.config_file, EXIT_BAD_INPUT, error=str(err))
            print(f"error: {err}", file=sys.stderr)
        results.append(result)
        if result.error is not None:
            continue
        if console is None:
            if result.named_by == NAMED_BY_FILE:
                print(f"note: {file_name_note(result.stack, result.source)}", file=sys.stderr)
        else:
            if len(results) > 1:
                console.print()
            render(result, console)
    return finish(command, results, console, several=len(targets) > 1, fmt=fmt)
