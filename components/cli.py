"""`mlplatform`: offline plan (and further commands) for the stacks of this project.

Exit codes: 0 success, 1 the command ran and found a failure (e.g. a mandatory
policy violation), 2 bad input (invalid config, unreadable file, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from .config import ConfigError
from .check import add_check_arguments, cmd_check
from .placement_report import add_place_arguments, cmd_place

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _stack_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stack", nargs="?", help="stack name; reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")


def cmd_plan(args: argparse.Namespace) -> int:
    from .plan import build_plan, make_console, plan_document, render

    plan = build_plan(args.stack, args.config_file)
    if args.json:
        print(json.dumps(plan_document(plan), indent=2, default=str))
    else:
        render(plan, make_console())
    return EXIT_OK


# name -> (help, add arguments, handler). Other commands register here.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "plan": ("show what a stack will build, offline", _stack_arguments, cmd_plan),
    "place": ("show on which node groups the pods of a manifest can land", add_place_arguments, cmd_place),
    "check": ("evaluate the policy pack's rules on a stack, offline", add_check_arguments, cmd_check),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlplatform", description="Offline tooling for ML-platform EKS stacks.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, add_arguments, handler) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add_arguments(p)
        p.set_defaults(handler=handler)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 on bad arguments, like every argparse tool
    if argv is None:  # the mlplatform process itself: one program run, then exit
        from . import engine

        engine.FREEZE_AFTER_RUN = True
    try:
        return args.handler(args)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `mlplatform plan dev | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
