"""Why a pod cannot land on a group, as the filters say it (filters.py, dra_filter.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    """Why a pod cannot land on a group: the scheduler's wording plus detail, and a short form for tables."""

    kind: str  # taint | affinity | resources | devices | claims
    message: str
    short: str

    def __str__(self) -> str:
        return self.message
