"""docs/rehearsal.md lists what moto lacks exactly as the code does (scripts/docs/generate_rehearsal_docs.py)."""

from __future__ import annotations

from mlplatform.rehearsal import MAPPERS, NOT_IMPLEMENTED, tables
from tests.conftest import ROOT


def test_the_docs_table_is_the_gap_list():
    page = (ROOT / "docs" / "rehearsal.md").read_text()
    assert tables.table() in page, "run `make docs` (scripts/docs/generate_rehearsal_docs.py)"
    assert tables.mapping_table() in page, "run `make docs` (scripts/docs/generate_rehearsal_docs.py)"


def test_every_type_moto_lacks_still_has_its_request_mapping():
    """Validated only is not skipped: the request is built from the inputs and checked by botocore."""
    assert set(NOT_IMPLEMENTED) <= set(MAPPERS)


def test_every_mapper_cites_the_provider_file_it_follows():
    for type_, mapping in MAPPERS.items():
        assert mapping.source.startswith("hashicorp/terraform-provider-aws internal/service/"), type_
        assert ".go" in mapping.source, type_
