"""`mlplatform diff STACK --against BEFORE`: what an update replaces, drains or rolls, offline."""

from __future__ import annotations

import argparse

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK, MEANINGS
from ..stack_names import add_stack_options, stack_argument

HELP = "show what an update of a stack creates, updates, rolls, replaces or deletes, offline"
DESCRIPTION = (
    HELP + ". BEFORE is a document saved by `mlplatform plan STACK --json` (in CI: on the base branch, with its "
    "toolkit); the stack is planned as it is now and compared with it. Each changed resource gets one action "
    "(create, update, roll, replace with its order, delete), node groups their consequence: how many nodes at "
    "most are drained or replaced and which workloads of the placement proof lose their nodes (docs/diff.md)."
)
EXIT_CODES = {EXIT_OK: "the diff was made (`check --against` gates on it)", EXIT_BAD_INPUT: MEANINGS[EXIT_BAD_INPUT]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "stack", nargs="?", metavar="STACK", type=stack_argument, help="the stack; reads Pulumi.<stack>.yaml"
    )
    add_stack_options(parser)
    parser.add_argument(
        "--against", required=True, metavar="BEFORE", help="a saved `mlplatform plan STACK --json` document"
    )
    parser.add_argument("--json", action="store_true", help="print the JSON document (same as --format json)")
    parser.add_argument(
        "--format",
        choices=("table", "json", "markdown"),
        default=None,
        help="table (default), json, or markdown for a pull-request comment",
    )


def run(args: argparse.Namespace) -> int:
    # The engine, the Pulumi SDK and the reports: imported once the command runs (--help stays light).
    from ..documents import check_same_stack, read_plan_document, shown_path
    from ..plan import build_plan, project_for
    from ..reports.console import make_console
    from ..reports.diff import diff_document, diff_markdown, render_diff
    from ..reports.json_writer import write_json
    from ..reports.plan_document import plan_document
    from ..stacks import select_stacks

    fmt = "json" if args.json else (args.format or "table")
    if args.json and args.format not in (None, "json"):
        raise InputError(f"--json is --format json: pass --format {args.format} or --json, not both")
    before = read_plan_document(args.against)  # bad input before the program runs
    project = project_for(args.project_dir, args.config_file)
    [target] = select_stacks(project, [args.stack] if args.stack else [], args.config_file, False, args.stack_name)
    plan = build_plan(target.stack, target.config_file, project)
    after = plan_document(plan)
    check_same_stack(before, after, args.against)
    doc = diff_document(before, after)
    doc["before"]["document"] = shown_path(args.against, project.root)
    if fmt == "json":
        write_json(doc)
    elif fmt == "markdown":
        print(diff_markdown(doc))
    else:
        render_diff(doc, make_console())
    return EXIT_OK
