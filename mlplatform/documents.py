"""What every `--json` document shares: its schema version, and paths shown without the user's machine.

docs/json.md ("The JSON documents") describes each document; a change to a key's name or meaning that a
reader of version N would misread bumps SCHEMA_VERSION. Keys are camelCase throughout; keys that
are data (labels, tags, Kubernetes manifests, resource inputs, stack outputs) keep their own names.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mlplatform_core.errors import InputError

# 2: plan documents carry each resource's replaceOnChanges, deleteBeforeReplace and custom, each node group's
# maxUnavailable, each placement profile's preemptionMode and perNode, and kubernetesSupport.upgradePolicy:
# what `mlplatform diff` and `check --against` compare.
SCHEMA_VERSION = "2"


def shown_path(path: str | Path, root: Path | None = None) -> str:
    """A path as documents and tables show it: as typed when relative, else relative to the working
    directory or the project's `root`, else only the file name (never an absolute path of this machine)."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    resolved = Path(os.path.abspath(p))  # no symlink resolution: the path the user sees
    for base in (Path.cwd(), *([root] if root else [])):
        for folder in {base, base.resolve()}:
            if resolved.is_relative_to(folder):
                return resolved.relative_to(folder).as_posix() or "."
    return p.name


def camel(key: str) -> str:
    """`generated_at` -> `generatedAt`: a snake_case name from elsewhere (a data snapshot, the analyzer)."""
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_keys(mapping: dict[str, Any]) -> dict[str, Any]:
    """A flat mapping with its keys in camelCase (the values as they are)."""
    return {camel(k): v for k, v in mapping.items()}


class BeforeError(InputError):
    """A BEFORE document (`--against`) that cannot be compared: bad input, exit 2, said as `--against: ...`."""

    def __init__(self, message: str):
        super().__init__(f"--against: {message}")


def read_plan_document(path: str) -> dict[str, Any]:
    """A saved `mlplatform plan STACK --json` document (the BEFORE of `diff` and `check --against`).

    Bad input (BeforeError, exit 2): an unreadable file, not JSON, not one stack's plan document, or a
    document of another schema version (its resources would be compared by keys this version does not
    mean the same way): make BEFORE again with a toolkit of this schema version. Errors name the file as the
    user typed it (they go to the terminal, not into a document).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise BeforeError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise BeforeError(f"{path} is not JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(doc, dict) or "stacks" in doc or "resources" not in doc or "nodeGroups" not in doc:
        what = "a document of several stacks" if isinstance(doc, dict) and "stacks" in doc else "not a plan document"
        raise BeforeError(f"{path} is {what}; save one stack's plan: mlplatform plan STACK --json > FILE")
    version = doc.get("schemaVersion")
    if version != SCHEMA_VERSION:
        raise BeforeError(
            f"{path} has schemaVersion {json.dumps(version)}, this toolkit reads {SCHEMA_VERSION!r}: make "
            "BEFORE with a toolkit of the same schema version (docs/diff.md, which versions compare)"
        )
    from pydantic import ValidationError

    from mlplatform_core.model.plan_document import PlanDocument

    try:  # the parts a diff reads must have their types (a hand-edited BEFORE): said here, not as a crash later
        PlanDocument.read(doc)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise BeforeError(f"{path} is not a plan document this toolkit reads: {where}: {first['msg']}") from None
    return doc


def _project(doc: dict[str, Any]) -> str | None:
    programs = doc.get("deployment", {}).get("programs") or [{}]
    return programs[0].get("project")


def check_same_stack(before: dict[str, Any], after: dict[str, Any], against: str) -> None:
    """BEFORE must be a plan of the stack it is compared with, in the same Pulumi project (bad input otherwise):
    a stack of another project is another stack to Pulumi (its URNs differ), so every resource would read as
    deleted and created again."""
    stack = after["stack"]
    if before.get("stack") != stack:
        raise BeforeError(f"{against} is the plan of stack {before.get('stack')!r}, not {stack!r}")
    if _project(before) != _project(after):
        raise BeforeError(
            f"{against} is the plan of stack {stack!r} of project {_project(before)!r}, but this is "
            f"project {_project(after)!r} (Pulumi.yaml's name; outside a project, the installed programs': "
            "ml-platform-eks): plan both in the same project, or pass --project-dir"
        )
