"""The published JSON Schemas, generated from the models and shipped in the wheel: stack.schema.json (a stack
file, from the settings model) and plan.schema.json (the document of `mlplatform plan STACK --json`, from the
typed plan document the tooling writes).

`make generate` (scripts/generators/generate_schemas.py) regenerates both files; a test fails when either differs from
what its model produces.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

STACK_SCHEMA_FILE = "stack.schema.json"
PLAN_SCHEMA_FILE = "plan.schema.json"


def render(schema: dict[str, Any]) -> str:
    """A schema as it is shipped and printed: indented JSON, keys in the model's order, one final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stack_schema_text() -> str:
    """The stack file schema from the settings model (what the shipped file must equal)."""
    from mlplatform_core.model.config.json_schema import stack_file_schema

    return render(stack_file_schema())


def plan_schema_text() -> str:
    """The schema of the plan document (model/plan_document)."""
    from mlplatform_core.model.plan_document import plan_document_schema

    return render(plan_document_schema())


def shipped(name: str) -> str:
    """The text of a schema file shipped in the package."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def schema_texts() -> dict[str, str]:
    """Each shipped schema file's name and the text its model produces."""
    return {STACK_SCHEMA_FILE: stack_schema_text(), PLAN_SCHEMA_FILE: plan_schema_text()}
