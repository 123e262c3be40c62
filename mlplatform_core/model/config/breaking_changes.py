"""Breaking changes to the stack configuration, by release: a stack that planned before a release and is refused
after it gets, in its error, the release that made the change and the edit (docs/upgrading.md has it in full).

One row per change; ConfigError adds the note to every problem a row matches (its key path, and a fragment of
the message that says this change refused it), whoever raised the problem. A test keeps each row's anchor in
docs/upgrading.md and its release in CHANGELOG.md. A new breaking change to the settings adds a row here, a
section there, and bumps the version (docs/versioning.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

UPGRADE_GUIDE = "docs/upgrading.md"


@dataclass(frozen=True)
class BreakingChange:
    release: str  # the release that made it (CHANGELOG.md)
    path: str  # the key path of the problem it causes, e.g. ml-platform-eks:upgradePolicy.supportType
    refused: str  # a fragment of that problem's message: this change, not another problem of the key
    edit: str  # the edit that makes the stack valid again, in one line
    anchor: str  # its section in docs/upgrading.md

    def note(self) -> str:
        return f"; required since ml-platform-eks {self.release}: {self.edit} ({UPGRADE_GUIDE}#{self.anchor})"


BREAKING_CHANGES: tuple[BreakingChange, ...] = (
    BreakingChange(
        release="0.2.0",
        path="ml-platform-eks:upgradePolicy.supportType",
        refused="required in prod",
        edit="add `ml-platform-eks:upgradePolicy: {supportType: EXTENDED}` (or STANDARD) to the prod stack file",
        anchor="prod-stacks-choose-upgradepolicysupporttype",
    ),
)


class _Problem(Protocol):
    path: str
    message: str


P = TypeVar("P", bound=_Problem)


def with_release_notes(problems: Iterable[P], changes: Iterable[BreakingChange] = BREAKING_CHANGES) -> list[P]:
    """The problems, each one a breaking change caused with that change's release, edit and upgrade section."""
    changes = tuple(changes)
    out = []
    for problem in problems:
        for change in changes:
            note = change.note()
            if problem.path == change.path and change.refused in problem.message and note not in problem.message:
                problem = dataclasses.replace(problem, message=problem.message + note)  # type: ignore[type-var]
        out.append(problem)
    return out
