"""`mlplatform plan`: what a stack will build, offline."""

from __future__ import annotations

import argparse
import json

from ..exit_codes import EXIT_OK
from ..plan import build_plan
from ..reports.console import make_console
from ..reports.plan_document import plan_document
from ..reports.plan_view import render

HELP = "show what a stack will build, offline"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stack", nargs="?", help="stack name; reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument(
        "--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")


def run(args: argparse.Namespace) -> int:
    plan = build_plan(args.stack, args.config_file)
    if args.json:
        print(json.dumps(plan_document(plan), indent=2, default=str))
    else:
        render(plan, make_console())
    return EXIT_OK
