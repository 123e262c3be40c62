"""Configuration errors: every problem names the full key path, the bad value and what would be valid.

Pure Python. Raised before any resource is registered, by the settings model, the
stack-file reader, the layout and the workload layer alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...errors import InputError
from .breaking_changes import with_release_notes
from .scalars import AsWritten

PROJECT = "ml-platform-eks"  # the Pulumi project: every setting lives under `ml-platform-eks:<key>`
REGION_KEY = "aws:region"


@dataclass(frozen=True)
class Problem:
    path: str  # full key path, e.g. ml-platform-eks:nodeGroups.jupyter.minSize
    message: str
    line: int | None = None  # where the stack file sets it (1-based), when the problem came from a file

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{self.path}: {self.message}{where}"


class ConfigError(ValueError, InputError):
    """Invalid stack configuration. Raised before any resource is registered."""

    def __init__(self, problems: list[Problem], source: str | None = None):
        # A problem a release's breaking change causes names that release and the edit (breaking_changes.py).
        self.problems = with_release_notes(problems)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" in {self.source}" if self.source else ""
        shown = self.problems[:20]
        lines = [f"invalid stack configuration{where}:"] + [f"  - {p}" for p in shown]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown)} more")
        return "\n".join(lines)


def escaped(text: str) -> str:
    """`text` with every non-ASCII character as its code point (`mаxSize` with a Cyrillic a -> `m\\u0430xSize`),
    so a look-alike character in a key or a value shows why it is not the setting it resembles."""
    if text.isascii():
        return text
    return "".join(c if ord(c) < 128 else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in text)


def show(value: Any) -> str:
    """A short, safe rendering of a user value for error messages (an ambiguous scalar: as written; non-ASCII
    characters escaped)."""
    if isinstance(value, AsWritten):
        return value.text
    text = json.dumps(value, default=str) if not isinstance(value, str) else escaped(repr(value))
    return text if len(text) <= 60 else text[:57] + "..."


def key_path(*parts: Any) -> str:
    """`ml-platform-eks:nodeGroups.jupyter.minSize` from ("nodeGroups", "jupyter", "minSize")."""
    if parts and parts[0] == "region":
        return REGION_KEY
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{escaped(str(part))}" if out else escaped(str(part)))
    return f"{PROJECT}:{out}"
