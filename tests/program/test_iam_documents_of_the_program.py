"""Every IAM document the program writes, as moto's emulator validates it (tests/core/model/iam/test_iam_documents.py:
the documents' grammar alone)."""

from __future__ import annotations

import json

import pytest

from mlplatform_core.model.iam.documents import document_problems
from mlplatform_core.model.iam.proof import documents_of
from tests.runs import shipped_run

validation = pytest.importorskip("moto.iam.policy_validation")


@pytest.mark.parametrize("stack", ["dev", "dev-karpenter", "dev-automode"])
def test_every_document_the_stacks_write_is_one_moto_accepts(stack):
    checked = 0
    for r in shipped_run(stack).resources:
        for _, doc, kind in documents_of(r.type, r.inputs):
            text = doc if isinstance(doc, str) else json.dumps(doc)
            if kind == "identity":
                validation.IAMPolicyDocumentValidator(text).validate()
            elif kind == "trust":
                validation.IAMTrustPolicyDocumentValidator(text).validate()
            assert document_problems(text, kind) == []
            checked += 1
    assert checked >= 5
