"""What a command made of one stack, for the loop that runs several (stack_runs) and the documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan import Plan
from ..stacks import NAMED_BY_ARGUMENT


@dataclass
class StackResult:
    """What a command made of one stack: its document, or the error that stopped it (exit 2)."""

    stack: str | None
    source: str | None
    exit_code: int
    document: dict[str, Any] | None = None  # the stack's --json document, when asked for
    error: str | None = None
    summary: str = ""  # one line for the summary table
    plan: Plan | None = None
    named_by: str = NAMED_BY_ARGUMENT
    check: dict[str, Any] | None = None  # `check`: its document (the verdict, violations, rules)

    @property
    def label(self) -> str:
        return self.stack or self.source or "?"
