"""`mlplatform check`: the policy pack's rules and the placement invariants on one or more stacks, offline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, MEANINGS
from .stack_loop import add_stack_arguments, run_stacks

if TYPE_CHECKING:
    from rich.console import Console

    from ..project import Project
    from ..reports.stack_result import StackResult
    from ..stacks import Target

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
    add_stack_arguments(parser, "every stack of the project (what `make check` and CI run)")
    parser.add_argument(
        "--policy-config",
        metavar="PATH",
        help="policy config JSON, as for `pulumi preview --policy-pack-config`, for every stack checked "
        "(default: the project's policies/config/<stack>.json when it exists)",
    )
    parser.add_argument(
        "--against",
        metavar="BEFORE",
        help="also apply the change rules to the update from BEFORE, a saved `mlplatform plan STACK --json` "
        "document (docs/diff.md): replacing the cluster, KMS key or VPC in prod, capacity gaps, rolls, "
        "Kubernetes version jumps",
    )


def check_stack(
    project: Project, target: Target, policy_config_file: str | None, against: str | None = None
) -> StackResult:
    """One stack's policy check (and, with `against`, the change rules of the update from that saved plan);
    InputError when the stack, the policy config or BEFORE cannot be read."""
    from mlplatform_core.change.diff import diff_documents
    from mlplatform_core.change.rules import change_violations

    from ..check import (  # the engine, the Pulumi SDK and the pack: only once a check runs
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
    from ..documents import check_same_stack, read_plan_document, shown_path
    from ..plan import build_plan
    from ..reports.check import verdict_line
    from ..reports.plan_document import plan_document
    from ..reports.stack_result import StackResult

    before = read_plan_document(against) if against else None  # bad input before the program runs
    plan = build_plan(target.stack, target.config_file, project)
    path = Path(policy_config_file) if policy_config_file else default_policy_config(plan)
    try:
        policy_config, change_config = split_policy_config(load_policy_config(path) if path else None)
        # The change rules' settings are checked on every check, so a typo shows before the first --against.
        allowed = allowed_groups(change_config, shown_path(path or "-", project.root))
        violations = run_checks(plan, policy_config)  # refuses policy names the pack does not have
    except PolicyConfigError as err:  # its message names the file: as the documents show paths
        raise InputError(str(err).replace(str(path), shown_path(path, project.root)) if path else str(err)) from None
    if before is not None:
        after = plan_document(plan)
        check_same_stack(before, after, against)
        found = change_violations(diff_documents(before, after), before, after, allowed)
        violations = change_rule_violations([v for v in found if v.level == "mandatory"]) + violations
        violations += change_rule_violations([v for v in found if v.level != "mandatory"])
    doc = check_document(plan, violations, path, policy_config)
    if before is not None:
        doc["against"] = shown_path(against, project.root)
        doc["rules"] += change_rule_documents(plan.config.environment)
    return StackResult(
        doc["stack"],
        doc["source"],
        EXIT_OK if doc["passed"] else EXIT_FAILED,
        document=doc,
        summary=verdict_line(doc),
        plan=plan,
        named_by=plan.named_by,
        check=doc,
    )


def render_result(result: StackResult, console: Console) -> None:
    from ..reports.check import render_check

    assert result.check is not None
    render_check(result.check, console)


def run(args: argparse.Namespace) -> int:
    if args.against and (args.all or len(args.stacks) > 1):
        raise InputError("--against: BEFORE is one stack's plan: check one stack with it")
    return run_stacks(
        args,
        "mlplatform check",
        lambda project, target, _: check_stack(project, target, args.policy_config, args.against),
        render_result,
    )
