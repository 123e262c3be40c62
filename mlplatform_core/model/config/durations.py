"""Durations in the settings (Karpenter's consolidateAfter and expireAfter, and any later one): Go's grammar, bounded.

Karpenter's CRDs check durations with a pattern only (`^(([0-9]+(s|m|h))+|Never)$`, NodePool CRD @ the pinned
release); the controller then reads them with Go's time.ParseDuration, which refuses anything beyond
int64 nanoseconds (about 292 years) with "invalid duration": a NodePool the API server stores but the
controller cannot read. Each setting also has a maximum that makes sense for it, so a typo such as
720000h is caught here rather than by a node that never goes away.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from .errors import show

GO_MAX_NANOSECONDS = 2**63 - 1  # time.Duration is an int64 count of nanoseconds
GO_MAX_SECONDS = GO_MAX_NANOSECONDS // 10**9
NEVER = "Never"
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}
_GRAMMAR = re.compile(r"^(?:[0-9]+[hms])+$")
_PART = re.compile(r"([0-9]+)([hms])")
UNITS = "whole hours (h), minutes (m) and seconds (s), e.g. 30s, 10m or 1h30m"


def seconds(text: str) -> int:
    """The length of a duration in the grammar above (`1h30m` -> 5400)."""
    return sum(int(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(text))


def spoken(total: int) -> str:
    """5400 -> '1h30m' (a duration as Go prints it, without zero parts)."""
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{n}{u}" for n, u in ((h, "h"), (m, "m"), (s, "s")) if n) or "0s"


def duration_error(text: str, maximum: int, *, never: bool = False, positive: bool = False) -> str | None:
    """Why `text` is not a duration this setting takes, or None."""
    if text == NEVER:
        # Karpenter's CRDs take Never for consolidateAfter too (`^(([0-9]+(s|m|h))+|Never)$`): say why it is refused.
        if never:
            return None
        return f"{show(text)} is not taken here: write a duration of at most {spoken(maximum)} in {UNITS}"
    if not _GRAMMAR.match(text):
        also = f", or {NEVER}" if never else ""
        return f"{show(text)} is not a duration: write {UNITS}{also}"
    total = seconds(text)
    if total > GO_MAX_SECONDS:
        return (
            f"{show(text)} is {total // 3600:,} hours, beyond Go's duration range ({GO_MAX_SECONDS // 3600:,} hours, "
            f"about 292 years), which Karpenter's controller cannot read; the most this setting takes is "
            f"{spoken(maximum)}" + (f" (or {NEVER})" if never else "")
        )
    if total > maximum:
        length = "" if spoken(total) == text else f" ({spoken(total)})"
        return (
            f"{show(text)}{length} is more than the {spoken(maximum)} ({maximum // 86400} days) this setting takes"
            + (f"; write {NEVER} to turn it off" if never else "")
        )
    if positive and total == 0:
        return f"{show(text)} is zero; write a duration of at least 1s in {UNITS}"
    return None


def Duration(maximum: int, *, never: bool = False, positive: bool = False) -> object:
    """A settings field holding a duration of at most `maximum` seconds (and `Never` when `never`)."""

    def check(value: str) -> str:
        if err := duration_error(value, maximum, never=never, positive=positive):
            raise ValueError(err)
        return value

    return Annotated[str, AfterValidator(check)]
