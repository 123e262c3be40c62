"""`mlplatform check`: the policy pack's rules and the placement invariants on one or more stacks, offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mlplatform_core.change.diff import diff_documents
from mlplatform_core.change.rules import change_violations
from mlplatform_core.model.config import ConfigError, Problem

from ..check import (
    PolicyConfigError,
    allowed_groups,
    change_rule_documents,
    change_rule_violations,
    check_document,
    default_policy_config,
    load_policy_config,
    run_checks,
    split_policy_config,
)
from ..collisions import colliding
from ..documents import check_same_stack, read_plan_document, shown_path
from ..exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, MEANINGS
from ..plan import build_plan
from ..reports.check import render_check
from ..reports.console import make_console
from ..reports.plan_document import plan_document
from ..reports.stack_runs import StackResult, finish
from ..stacks import NAMED_BY_FILE, add_stack_options, file_name_note, select_stacks

HELP = "evaluate the policy pack's rules on one or more stacks, offline"
DESCRIPTION = (
    HELP + ". Several stacks (or --all) run in one process: each gets its own result and a line in a closing "
    "summary, and the exit code is the worst of them (2 bad input > 1 mandatory violation > 0 passed); a stack "
    "that cannot be read does not hide the others' results. With several stacks --json prints "
    '{"stacks": [<each stack\'s document, or its error>, ...], "exitCode": N}.'
)
EXIT_CODES = {
    EXIT_OK: "every stack passed",
    EXIT_FAILED: "a mandatory violation (a policy rule or a placement invariant)",
    EXIT_BAD_INPUT: MEANINGS[EXIT_BAD_INPUT],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stacks", nargs="*", metavar="STACK", help="stack names; each reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument("--all", action="store_true", help="every stack in stacks/ (what `make check` and CI run)")
    add_stack_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "--policy-config",
        metavar="PATH",
        help="policy config JSON, as for `pulumi preview --policy-pack-config`, for every stack checked "
        "(default: policies/config/<stack>.json when it exists)",
    )
    parser.add_argument(
        "--against",
        metavar="BEFORE",
        help="also apply the change rules to the update from BEFORE, a saved `mlplatform plan STACK --json` "
        "document (docs/diff.md): replacing the cluster, KMS key or VPC in prod, capacity gaps, rolls, "
        "Kubernetes version jumps",
    )


def check_stack(
    stack: str | None, config_file: str | None, policy_config_file: str | None, against: str | None = None
) -> StackResult:
    path = None
    try:
        before = read_plan_document(against) if against else None
        plan = build_plan(stack, config_file)
        path = Path(policy_config_file) if policy_config_file else default_policy_config(plan.stack)
        policy_config, change_config = split_policy_config(load_policy_config(path) if path else None)
        violations = run_checks(plan, policy_config)
        if before is not None:
            check_same_stack(before, plan.stack, against)
            after = plan_document(plan)
            found = change_violations(
                diff_documents(before, after), before, after, allowed_groups(change_config, shown_path(path or "-"))
            )
            violations = change_rule_violations([v for v in found if v.level == "mandatory"]) + violations
            violations += change_rule_violations([v for v in found if v.level != "mandatory"])
        doc = check_document(plan, violations, path, policy_config)
        if before is not None:
            doc["against"] = shown_path(against)
            doc["rules"] += change_rule_documents(plan.config.environment)
    except ConfigError as err:
        return StackResult(stack, config_file, EXIT_BAD_INPUT, error=str(err))
    except PolicyConfigError as err:  # its message names the file: as the documents show paths
        message = str(err).replace(str(path), shown_path(path)) if path else str(err)
        return StackResult(stack, config_file, EXIT_BAD_INPUT, error=message)
    verdict = "passed" if doc["passed"] else "failed"
    return StackResult(
        doc["stack"],
        doc["source"],
        EXIT_OK if doc["passed"] else EXIT_FAILED,
        document=doc,
        summary=f"{verdict}: {doc['mandatory']} mandatory, {doc['advisory']} advisory violation(s)",
    )


def run(args: argparse.Namespace) -> int:
    targets = select_stacks(args.stacks, args.config_file, args.all, args.stack_name)
    if args.against and len(targets) > 1:
        raise ConfigError([Problem("--against", "BEFORE is one stack's plan: check one stack with it")])
    console = None if args.json else make_console()
    results = []
    refused = colliding(targets)
    for stack, config_file in targets:
        if (stack, config_file) in refused:
            result = StackResult(stack, config_file, EXIT_BAD_INPUT, error=refused[stack, config_file])
        else:
            result = check_stack(stack, config_file, args.policy_config, args.against)
        results.append(result)
        if result.error is not None:
            print(f"error: {result.error}", file=sys.stderr)
        elif args.json and result.document["stackNamedBy"] == NAMED_BY_FILE:
            print(f"note: {file_name_note(result.document['stack'], result.document['source'])}", file=sys.stderr)
        elif console is not None:
            if len(targets) > 1 and len(results) > 1:
                console.print()
            render_check(result.document, console)
    return finish("mlplatform check", results, console, several=len(targets) > 1)
