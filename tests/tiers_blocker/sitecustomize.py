"""On PYTHONPATH, this makes a Python process in which Pulumi and the layers above the core cannot be imported, as
if they were not installed: `make test-core` runs the core tier in one, and tests/architecture/test_test_tiers.py
collects it in one. (Python imports `sitecustomize` from sys.path at start-up: site.py, execsitecustomize.)"""

from __future__ import annotations

import sys

BLOCKED = ("pulumi", "mlplatform", "mlplatform_program")


class _Blocked:
    """First on sys.meta_path, ahead of site-packages and the editable install's own finder."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition(".")[0]
        if top in BLOCKED or top.startswith("pulumi_"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: the core tier runs without it)", name=name)
        return None


sys.meta_path.insert(0, _Blocked())
