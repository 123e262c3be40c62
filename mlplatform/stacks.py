"""Which stack files a command reads: `<command> STACK ...`, `--all` or `--config-file PATH [--stack NAME]`.

Stack names follow the Pulumi CLI: `dev`, `org/dev` or `org/project/dev`, and the last part names the stack
file, Pulumi.<stack>.yaml in the project's stack folder (pulumi/pulumi pkg/backend/httpstate/backend.go
parseStackName, sdk/go/common/workspace/paths.go ProjectStackPath).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mlplatform_core.errors import InputError

from .documents import shown_path
from .project import Project
from .stack_names import STACK_NAME, VALID_STACK_NAME, why_not_a_stack

NAMED_BY_FILE = "fileName"  # the stack name came from the --config-file's name (no STACK, no --stack)
NAMED_BY_ARGUMENT = "argument"


@dataclass(frozen=True)
class StackReference:
    """A stack as the Pulumi CLI names it: `dev`, `acme/dev` or `acme/ml-platform-eks/dev`."""

    stack: str
    organization: str | None = None
    project: str | None = None

    def __str__(self) -> str:
        return "/".join(p for p in (self.organization, self.project, self.stack) if p)


def parse_reference(value: str) -> StackReference:
    problem = why_not_a_stack(value)
    if problem:
        raise InputError(problem)
    parts = value.split("/")
    if len(parts) == 3:
        return StackReference(parts[2], parts[0], parts[1])
    if len(parts) == 2:
        return StackReference(parts[1], parts[0])
    return StackReference(value)


def _file_stem(path: Path) -> str:
    name = path.name
    for suffix in (".yaml", ".yml"):
        if name.startswith("Pulumi.") and name.endswith(suffix) and len(name) > len(f"Pulumi.{suffix}"):
            return name[len("Pulumi.") : -len(suffix)]
    return path.stem


def _stack_of(project: Project, value: str) -> str:
    """The stack name of a STACK argument; a project part must be this project's (or its Kubernetes layer's)."""
    ref = parse_reference(value)
    if ref.project is not None:
        names = [project.name] + ([project.kubernetes_layer.name] if project.kubernetes_layer else [])
        if ref.project not in names:
            raise InputError(
                f"stack {value!r} belongs to project {ref.project!r}, but this project is {project.name!r} "
                f"({shown_path(project.cluster.file, project.root)}); name it {ref.stack}, "
                f"{ref.organization}/{ref.stack} or {ref.organization}/{project.name}/{ref.stack}"
            )
    return ref.stack


def resolve_stack(project: Project, stack: str | None, config_file: str | None) -> tuple[str, Path]:
    """Stack name and stack file from `plan STACK` or `plan --config-file PATH [--stack NAME]`."""
    if config_file:
        path = Path(config_file)
        name = _stack_of(project, stack) if stack else _file_stem(path)
        if not STACK_NAME.fullmatch(name):
            raise InputError(
                f"--config-file {path.name}: the stack name {name!r} is not {VALID_STACK_NAME} (the stack name "
                "comes from the file name); pass --stack NAME"
            )
        return name, path
    if not stack:
        raise InputError("name a stack (e.g. dev), or --all, or pass --config-file PATH")
    name = _stack_of(project, stack)
    path = project.stack_file(name)
    if not path.is_file():
        known = project.stack_names()
        raise InputError(
            f"no stack file {shown_path(path, project.root)} for stack {name!r}; known stacks: "
            f"{', '.join(known) or 'none'} (project {project.name}, {shown_path(project.cluster.file)})"
        )
    return name, path


def named_by(stack: str | None, config_file: str | None) -> str:
    """Where the stack's name comes from: NAMED_BY_FILE for a --config-file without a name, else the argument."""
    return NAMED_BY_FILE if config_file and not stack else NAMED_BY_ARGUMENT


def file_name_note(stack: str, source: str) -> str:
    """What the output says when the stack's name was taken from the file name."""
    return (
        f"stack name {stack!r} taken from the file name {Path(source).name}: it names the cluster, the policy "
        "config and the StackReference; pass --stack NAME to choose it"
    )


@dataclass(frozen=True)
class Target:
    """One stack a command runs on: a STACK (its file in the project) or a --config-file, maybe named."""

    stack: str | None
    config_file: str | None


def select_stacks(
    project: Project, stacks: Sequence[str], config_file: str | None, every: bool, stack: str | None = None
) -> list[Target]:
    """The stacks a command runs on: the named stacks, `--all` of them, or one --config-file (named by
    --stack, or by one STACK). Without --config-file, --stack NAME is the same as STACK.

    Duplicates run once. Combinations that cannot mean one thing are bad input (InputError, exit 2).
    """
    if stack is not None:
        if stacks:
            raise InputError("name the stack once: as STACK or with --stack NAME, not both")
        stacks = [stack]
    if every:
        if stacks or config_file:
            raise InputError("--all runs every stack of the project: name no stack and no --config-file with it")
        names = project.stack_names()
        if not names:
            folder = shown_path(project.stack_dir, project.root)
            raise InputError(f"--all: no stack file (Pulumi.<stack>{project.cluster.file.suffix}) in {folder}")
        return [Target(name, None) for name in names]
    if config_file:
        if len(stacks) > 1:
            raise InputError("--config-file PATH is one stack: name at most one stack with it")
        return [Target(stacks[0] if stacks else None, config_file)]
    if not stacks:
        raise InputError("name a stack (e.g. dev), or --all, or pass --config-file PATH")
    return [Target(name, None) for name in dict.fromkeys(stacks)]
