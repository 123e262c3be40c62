"""`mlplatform check`: the policy pack's rules and the placement invariants on a stack, offline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..check import PolicyConfigError, check_document, default_policy_config, load_policy_config, run_checks
from ..exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from ..plan import build_plan
from ..reports.check import render_check
from ..reports.console import make_console

HELP = "evaluate the policy pack's rules on a stack, offline"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stack", nargs="?", help="stack name; reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument(
        "--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "--policy-config",
        metavar="PATH",
        help="policy config JSON, as for `pulumi preview --policy-pack-config` "
        "(default: policies/config/<stack>.json when it exists)",
    )


def run(args: argparse.Namespace) -> int:
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
