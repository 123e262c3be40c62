"""Write the JSON Schemas shipped in the wheel (mlplatform_core/schemas/*.schema.json) from their models.

stack.schema.json from the settings model (mlplatform_core/model/config/json_schema.py), plan.schema.json from the
typed plan document (mlplatform_core/model/plan_document); the same files go into docs/schemas/ for the site.
Generated from this repository's own code, not from upstream: no pins, nothing to fetch. `make generate` runs it
(scripts/regenerate.py, MODEL_GENERATORS); `mlplatform schema stack|plan` prints the same text.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mlplatform_core.schemas import schema_texts  # noqa: E402

# The package's copy (in the wheel), and the documentation site's (docs/json.md links it for download).
OUT = (ROOT / "mlplatform_core" / "schemas", ROOT / "docs" / "schemas")


def main() -> int:
    for folder in OUT:
        folder.mkdir(exist_ok=True)
        for name, text in schema_texts().items():
            path = folder / name
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
