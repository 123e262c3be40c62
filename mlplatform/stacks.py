"""Which stack file a command reads: `<command> <stack>` or `--config-file PATH`."""

from __future__ import annotations

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
