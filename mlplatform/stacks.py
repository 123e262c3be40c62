"""Which stack files a command reads: `<command> <stack> ...`, `--all` or `--config-file PATH [--stack NAME]`."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from mlplatform_core.model.config import ConfigError, Problem

from .documents import shown_path
from .project import project_root

# pulumi/pulumi sdk/go/common/tokens/stack_name.go, ParseStackName: not empty, at most 100 characters,
# each a letter, a digit, '-', '_' or '.'.
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
VALID_STACK_NAME = "a Pulumi stack name: 1 to 100 letters, digits, '-', '_' or '.'"
NAMED_BY_FILE = "fileName"  # the stack name came from the --config-file's name (no STACK, no --stack)
NAMED_BY_ARGUMENT = "argument"


def stack_name_argument(value: str) -> str:
    """argparse `type` of --stack: exit 2 with the option, the value and what is valid."""
    if not STACK_NAME.fullmatch(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not {VALID_STACK_NAME}")
    return value


def add_stack_options(parser: argparse.ArgumentParser) -> None:
    """--config-file PATH and --stack NAME, the same for every command."""
    parser.add_argument(
        "--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml"
    )
    parser.add_argument(
        "--stack",
        dest="stack_name",
        metavar="NAME",
        type=stack_name_argument,
        help="the stack's name with --config-file: it names the cluster (mlp-NAME unless clusterName is set), "
        "the policy config (policies/config/NAME.json) and the StackReference (default: from the file name, "
        "Pulumi.NAME.yaml or NAME.yaml, which the output then says); without --config-file, the same as STACK",
    )


def _file_stem(path: Path) -> str:
    name = path.name
    if name.startswith("Pulumi.") and name.endswith(".yaml") and len(name) > len("Pulumi..yaml"):
        return name[len("Pulumi.") : -len(".yaml")]
    return path.stem


def resolve_stack(stack: str | None, config_file: str | None) -> tuple[str, Path]:
    """Stack name and stack file from `plan <stack>` or `plan --config-file PATH [--stack NAME]`."""
    if config_file:
        path = Path(config_file)
        name = stack or _file_stem(path)
        if not STACK_NAME.fullmatch(name):
            where = "--stack" if stack else f"--config-file {path.name}"
            how = "" if stack else " (the stack name comes from the file name); pass --stack NAME"
            raise ConfigError([Problem(where, f"the stack name {name!r} is not {VALID_STACK_NAME}{how}")])
        return name, path
    if not stack:
        raise ConfigError([Problem("stack", "name a stack (e.g. dev) or pass --config-file PATH")])
    path = project_root() / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        known = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in path.parent.glob("Pulumi.*.yaml"))
        raise ConfigError(
            [Problem("stack", f"no stack file {shown_path(path)}; known stacks: {', '.join(known) or 'none'}")]
        )
    return stack, path


def named_by(stack: str | None, config_file: str | None) -> str:
    """Where the stack's name comes from: NAMED_BY_FILE for a --config-file without a name, else the argument."""
    return NAMED_BY_FILE if config_file and not stack else NAMED_BY_ARGUMENT


def file_name_note(stack: str, source: str) -> str:
    """What the output says when the stack's name was taken from the file name."""
    return (
        f"stack name {stack!r} taken from the file name {Path(source).name}: it names the cluster, the policy "
        "config and the StackReference; pass --stack NAME to choose it"
    )


def stack_names() -> list[str]:
    """Every stack of the project: the <stack> of each stacks/Pulumi.<stack>.yaml, sorted."""
    folder = project_root() / "stacks"
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in folder.glob("Pulumi.*.yaml"))


def select_stacks(
    stacks: Sequence[str], config_file: str | None, every: bool, stack: str | None = None
) -> list[tuple[str | None, str | None]]:
    """The (stack, config file) pairs a command runs on: the named stacks, `--all` of them, or one --config-file
    (named by --stack, or by one STACK). Without --config-file, --stack NAME is the same as STACK.

    Duplicates run once. Combinations that cannot mean one thing are bad input (ConfigError, exit 2).
    """
    if stack is not None:
        if stacks:
            raise ConfigError([Problem("--stack", "name the stack once: as STACK or with --stack NAME, not both")])
        stacks = [stack]
    if every:
        if stacks or config_file:
            problem = "--all runs every stack in stacks/: name no stack and no --config-file with it"
            raise ConfigError([Problem("stack", problem)])
        names = stack_names()
        if not names:
            raise ConfigError([Problem("stack", f"--all: no stack file in {shown_path(project_root() / 'stacks')}")])
        return [(name, None) for name in names]
    if config_file:
        if len(stacks) > 1:
            raise ConfigError([Problem("stack", "--config-file PATH is one stack: name at most one stack with it")])
        return [(stacks[0] if stacks else None, config_file)]
    return [(name, None) for name in dict.fromkeys(stacks)] or [(None, None)]
