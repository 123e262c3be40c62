"""The published JSON Schemas (stack.schema.json: a stack file), generated from the models and shipped in the wheel.

`mlplatform schema stack --out mlplatform_core/schemas/stack.schema.json` regenerates the file; a test fails when
it differs from what the model produces.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

STACK_SCHEMA_FILE = "stack.schema.json"


def render(schema: dict[str, Any]) -> str:
    """A schema as it is shipped and printed: indented JSON, keys in the model's order, one final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stack_schema_text() -> str:
    """The stack file schema from the settings model (what the shipped file must equal)."""
    from mlplatform_core.model.config.json_schema import stack_file_schema

    return render(stack_file_schema())


def plan_schema_text() -> str:
    """The schema of the plan document's typed parts (model/plan_document.py)."""
    from mlplatform_core.model.plan_document import plan_document_schema

    return render(plan_document_schema())


def shipped(name: str) -> str:
    """The text of a schema file shipped in the package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
