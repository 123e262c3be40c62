"""Which stack files a command reads: `<command> <stack> ...`, `--all` or `--config-file PATH`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mlplatform_core.model.config import ConfigError, Problem

from .project import project_root


def resolve_stack(stack: str | None, config_file: str | None) -> tuple[str, Path]:
    """Stack name and stack file from `plan <stack>` or `plan --config-file PATH`."""
    if config_file:
        path = Path(config_file)
        name = path.name
        stem = (
            name[len("Pulumi.") : -len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") else path.stem
        )
        return (stack or stem or "stack"), path
    if not stack:
        raise ConfigError([Problem("stack", "name a stack (e.g. dev) or pass --config-file PATH")])
    path = project_root() / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        known = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in path.parent.glob("Pulumi.*.yaml"))
        raise ConfigError([Problem("stack", f"no stack file {path}; known stacks: {', '.join(known) or 'none'}")])
    return stack, path


def stack_names() -> list[str]:
    """Every stack of the project: the <stack> of each stacks/Pulumi.<stack>.yaml, sorted."""
    folder = project_root() / "stacks"
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in folder.glob("Pulumi.*.yaml"))


def select_stacks(stacks: Sequence[str], config_file: str | None, every: bool) -> list[tuple[str | None, str | None]]:
    """The (stack, config file) pairs a command runs on: the named stacks, `--all` of them, or one --config-file.

    Duplicates run once. Combinations that cannot mean one thing are bad input (ConfigError, exit 2).
    """
    if every:
        if stacks or config_file:
            problem = "--all runs every stack in stacks/: name no stack and no --config-file with it"
            raise ConfigError([Problem("stack", problem)])
        names = stack_names()
        if not names:
            raise ConfigError([Problem("stack", f"--all: no stack file in {project_root() / 'stacks'}")])
        return [(name, None) for name in names]
    if config_file:
        if len(stacks) > 1:
            raise ConfigError([Problem("stack", "--config-file PATH is one stack: name at most one stack with it")])
        return [(stacks[0] if stacks else None, config_file)]
    return [(name, None) for name in dict.fromkeys(stacks)] or [(None, None)]
