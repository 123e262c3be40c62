"""Pulumi's rules for stack and project names, and the options that take a stack: light enough for --help.

pulumi/pulumi sdk/go/common/tokens/stack_name.go (ParseStackName) and project.go (ValidateProjectName):
not empty, at most 100 characters, each a letter, a digit, '-', '_' or '.'. A stack may be qualified as
ORG/STACK or ORG/PROJECT/STACK (pkg/backend/httpstate/backend.go, parseStackName).
"""

from __future__ import annotations

import argparse
import re

STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
PROJECT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
VALID_STACK_NAME = "a Pulumi stack name: 1 to 100 letters, digits, '-', '_' or '.'"


def why_not_a_stack(value: str) -> str | None:
    """Why `value` is not a stack reference Pulumi accepts, or None when it is one."""
    parts = value.split("/")
    if len(parts) > 3:
        return f"{value!r} has {len(parts)} parts; Pulumi names a stack STACK, ORG/STACK or ORG/PROJECT/STACK"
    if not STACK_NAME.fullmatch(parts[-1]):
        return f"{parts[-1]!r} is not {VALID_STACK_NAME}" + (f" (in {value!r})" if len(parts) > 1 else "")
    if len(parts) == 3 and not PROJECT_NAME.fullmatch(parts[1]):
        return f"{parts[1]!r} in {value!r} is not a Pulumi project name (1 to 100 letters, digits, '-', '_' or '.')"
    if len(parts) > 1 and not STACK_NAME.fullmatch(parts[0]):
        return f"{parts[0]!r} in {value!r} is not an organization name (letters, digits, '-', '_' or '.')"
    return None


def stack_argument(value: str) -> str:
    """argparse `type` of STACK and --stack: exit 2 with the value and what is valid, before anything runs."""
    problem = why_not_a_stack(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def add_project_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project-dir",
        metavar="DIR",
        help="the project folder (with Pulumi.yaml); default: the working directory or the nearest folder above "
        "it that has one",
    )


def add_stack_options(parser: argparse.ArgumentParser) -> None:
    """--config-file PATH, --stack NAME and --project-dir DIR, the same for every command."""
    parser.add_argument(
        "--config-file",
        metavar="PATH",
        help="a stack file to use instead of the project's Pulumi.<stack>.yaml; works without a project (the "
        "installed programs then run)",
    )
    parser.add_argument(
        "--stack",
        dest="stack_name",
        metavar="NAME",
        type=stack_argument,
        help="the stack's name with --config-file: it names the cluster (mlp-NAME unless clusterName is set), "
        "the policy config (policies/config/NAME.json) and the StackReference (default: from the file name, "
        "Pulumi.NAME.yaml or NAME.yaml, which the output then says); without --config-file, the same as STACK",
    )
    add_project_option(parser)
