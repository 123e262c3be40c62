"""What every `--json` document shares: its schema version, and paths shown without the user's machine.

README ("The JSON documents") describes each document; a change to a key's name or meaning that a
reader of version N would misread bumps SCHEMA_VERSION. Keys are camelCase throughout; keys that
are data (labels, tags, Kubernetes manifests, resource inputs, stack outputs) keep their own names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

SCHEMA_VERSION = "1"


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
