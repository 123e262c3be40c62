"""The generated tables of docs/rehearsal.md (scripts/docs/generate_rehearsal_docs.py): the gaps and the mappings."""

from __future__ import annotations

from .gaps import NOT_IMPLEMENTED, table
from .replay import MAPPERS  # the mappers register when replay imports their modules


def mapping_table() -> str:
    """Each AWS type the rehearsal replays and the provider file its mapping follows."""
    rows = ["| Resource type | Follows (create function) | In moto |", "| --- | --- | --- |"]
    for type_, mapping in sorted(MAPPERS.items()):
        source = mapping.source.removeprefix("hashicorp/terraform-provider-aws ")
        rows.append(f"| `{type_}` | `{source}` | {'validated only' if type_ in NOT_IMPLEMENTED else 'created'} |")
    return "\n".join(rows) + "\n"


__all__ = ["mapping_table", "table"]
