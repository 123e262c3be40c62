"""The toolkit reaches the Pulumi SDK (and asyncio) through public names only, and patches none of them.

A private name (`_sync_await`, `loop._ready`, `loop._default_executor`, `_get_stack_trace`) can change
in any SDK release and turn the next `pip install` into a broken `mlplatform`. bench/RESULTS.md gives
the measured reason each former private hook was removed. This test fails if one comes back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

SOURCES = [
    *sorted((ROOT / "mlplatform").rglob("*.py")),
    ROOT / "__main__.py",
    *sorted((ROOT / "mlplatform_program").rglob("*.py")),
    ROOT / "kubernetes-layer" / "__main__.py",
]
SDK = ("pulumi", "pulumi_aws", "pulumi_eks", "pulumi_kubernetes", "asyncio")


# NamedTuple's public methods carry a leading underscore only to keep clear of field names.
NAMEDTUPLE_API = {"_asdict", "_replace", "_fields", "_make", "_field_defaults"}


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE_API


def offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    sdk_names = set()  # local names bound to SDK modules or objects
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in SDK:
                    sdk_names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in SDK:
            for alias in node.names:
                if private(alias.name):
                    found.append(f"{path.name}:{node.lineno} imports {node.module}.{alias.name}")
                sdk_names.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{path.name}:{node.lineno} uses .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            target = node.args[0] if node.args else None
            if isinstance(target, ast.Name) and target.id in sdk_names:
                found.append(f"{path.name}:{node.lineno} patches {target.id}")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                root = t
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(t, ast.Attribute) and isinstance(root, ast.Name) and root.id in sdk_names:
                    found.append(f"{path.name}:{node.lineno} assigns {ast.unparse(t)}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_sdk_name_is_used_or_patched(path):
    assert offences(path) == []


def test_the_check_catches_the_hooks_that_were_removed(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import asyncio\n"
        "from pulumi.runtime import mocks as pulumi_mocks\n"
        "from pulumi.runtime.sync_await import _sync_await\n"
        "loop = asyncio.new_event_loop()\n"
        "pulumi_mocks._sync_await = _sync_await\n"
        "setattr(pulumi_mocks, 'x', 1)\n"
        "loop._default_executor = None\n"
        "while loop._ready: pass\n"
    )
    found = offences(bad)
    assert len(found) == 6, found
