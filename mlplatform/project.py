"""Where the project is: the folder holding Pulumi.yaml, __main__.py and stacks/."""

from __future__ import annotations

from pathlib import Path

# The checkout this package was installed from (an editable install), the fallback project.
_CHECKOUT = Path(__file__).resolve().parent.parent


def project_root() -> Path:
    """The folder holding Pulumi.yaml: the working directory or one above it, else this checkout."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file():
            return folder
    return _CHECKOUT
