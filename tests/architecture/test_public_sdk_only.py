"""The repository reaches the Pulumi SDKs (and asyncio) through public names only, except in two adapter modules.

mlplatform/engine/pulumi_internals.py (the offline engine) and policies/mlplatform_policies/
pulumi_policy_internals.py (the policy pack run offline) hold every use of an SDK's internals, each pinned
by a test on the installed SDK (docs/internals.md lists them). Anywhere else in the product, the tooling,
the programs, the pack, bench/ and scripts/, this test refuses:

- an import of a module or name the SDK does not export: `pulumi` and `pulumi_policy` declare their API in
  `__all__` (pulumi.runtime exports no `settings`, `stack`, `mocks` or `proto`; pulumi_policy exports no
  `proxy` or `policy` module); in every SDK, names with a leading underscore;
- `pulumi.runtime.rpc`: exported, but the SDK's wire format (how values are serialized to and from the engine),
  which only the seams read;
- the same reached through attributes (`pulumi.runtime.settings.SETTINGS`) or named in a string
  (`importlib.import_module("pulumi.runtime.settings")`);
- a copy of an SDK's private constant (the opaque signatures and sentinels of its wire format);
- patching an SDK module (setattr, attribute assignment), and, in a module that uses an SDK, private
  attributes of other objects (`loop._ready`).

bench/RESULTS.md gives the measured reason each former private hook of the engine was removed.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT

ADAPTERS = {
    ROOT / "mlplatform" / "engine" / "pulumi_internals.py",
    ROOT / "policies" / "mlplatform_policies" / "pulumi_policy_internals.py",
}
TREES = ("mlplatform", "mlplatform_core", "mlplatform_program", "policies", "kubernetes-layer", "bench", "scripts")
SOURCES = sorted(
    {ROOT / "__main__.py", ROOT / "bench" / "run"}
    | {p for tree in TREES for p in (ROOT / tree).rglob("*.py") if "venv" not in p.parts} - ADAPTERS
)
SDK = ("pulumi", "pulumi_policy", "pulumi_aws", "pulumi_eks", "pulumi_kubernetes", "asyncio")
DECLARED_API = ("pulumi", "pulumi_policy")  # packages whose __all__ is their public API
# NamedTuple's public methods carry a leading underscore only to keep clear of field names.
NAMEDTUPLE_API = {"_asdict", "_replace", "_fields", "_make", "_field_defaults"}
# Exported, yet the SDK's wire format: what a value looks like on its way to the engine is the seams' business.
WIRE_FORMAT = ("pulumi.runtime.rpc",)
MODULE_PATH = re.compile(r"^(pulumi|pulumi_policy)(\.[A-Za-z_][A-Za-z0-9_]*)+$")
OPAQUE = re.compile(r"^[0-9a-f][0-9a-f-]{15,}$")  # signatures and sentinels: hex digests, UUIDs


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in NAMEDTUPLE_API


def public(dotted: str) -> bool:
    """Whether the SDK path `dotted` (module path, then attributes) is part of the SDK's public API."""
    if any(dotted == m or dotted.startswith(f"{m}.") for m in WIRE_FORMAT):
        return False
    parts = dotted.split(".")
    obj: object = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        if private(part):
            return False
        if not isinstance(obj, ModuleType):
            return True  # an attribute of a public class or object: only the underscore rule applies
        exported = getattr(obj, "__all__", None)
        if parts[0] in DECLARED_API and exported is not None and part not in exported:
            return False
        child = getattr(obj, part, None)
        if child is None:
            try:
                child = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return True  # not a module: a name the checker cannot resolve statically
        obj = child
    return True


@cache
def private_constants() -> frozenset[str]:
    """The opaque string constants the SDKs bind only privately (private names or unexported modules)."""
    bound: dict[str, bool] = {}  # value -> has a public binding
    for root in ("pulumi", "pulumi_policy"):
        package = importlib.import_module(root)
        names = [root] + [m.name for m in pkgutil.walk_packages(package.__path__, f"{root}.")]
        for name in names:
            if name.endswith("__main__") or ".automation" in name or ".provider" in name:
                continue  # entry points run when imported; the Automation API and providers are not used
            try:
                module = importlib.import_module(name)
            except Exception:  # an optional submodule whose dependencies are not installed
                continue
            for attr, value in vars(module).items():
                if isinstance(value, str) and OPAQUE.match(value):
                    bound[value] = bound.get(value, False) or public(f"{name}.{attr}")
    return frozenset(v for v, is_public in bound.items() if not is_public)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    bound: dict[str, str] = {}  # local name -> the SDK path it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in SDK:
                    if not public(alias.name):
                        found.append(f"{where}:{node.lineno} imports {alias.name}")
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] in SDK:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if not public(target):
                    found.append(f"{where}:{node.lineno} imports {target}")
                bound[alias.asname or alias.name] = target
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}  # checked with their chain
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            dotted = _dotted(node)
            head = dotted.split(".")[0] if dotted else None
            if head in bound and not public(bound[head] + dotted[len(head) :]):
                found.append(f"{where}:{node.lineno} uses {dotted}")
            elif (
                bound
                and private(node.attr)
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                # In a module that uses an SDK, any private attribute may be one of an SDK object (`loop._ready`).
                found.append(f"{where}:{node.lineno} uses .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if MODULE_PATH.match(node.value) and not public(node.value):
                found.append(f"{where}:{node.lineno} names {node.value}")
            elif node.value in private_constants():
                found.append(f"{where}:{node.lineno} copies the SDK's private constant {node.value}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            target = node.args[0] if node.args else None
            if isinstance(target, ast.Name) and target.id in bound:
                found.append(f"{where}:{node.lineno} patches {target.id}")
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                root = t
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(t, ast.Attribute) and isinstance(root, ast.Name) and root.id in bound:
                    found.append(f"{where}:{node.lineno} assigns {ast.unparse(t)}")
    return sorted(set(found))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_sdk_name_is_used_or_patched_outside_the_adapters(path):
    assert offences(path) == []


def test_the_guard_covers_the_whole_repository():
    covered = {p.relative_to(ROOT).parts[0] for p in SOURCES}
    assert set(TREES) <= covered and (ROOT / "kubernetes-layer" / "__main__.py") in SOURCES
    assert all(p.exists() for p in ADAPTERS)


def test_the_adapters_are_where_the_private_uses_are():
    # Without the exemption, both adapters would fail: they are where the private uses live.
    for adapter in ADAPTERS:
        assert offences(adapter), adapter


def test_the_check_catches_private_imports_attributes_strings_and_copies(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import asyncio\n"
        "import importlib\n"
        "import pulumi\n"
        "import pulumi.runtime.settings\n"  # 1: a module pulumi.runtime does not export
        "from pulumi.runtime import mocks as pulumi_mocks\n"  # 2
        "from pulumi.runtime.stack import wait_for_rpcs\n"  # 3
        "from pulumi.runtime.sync_await import _sync_await\n"  # 4
        "from pulumi_policy.proxy import UnknownValueError\n"  # 5: pulumi_policy does not export proxy
        "from pulumi_policy.policy import _NotApplicableError\n"  # 6
        "from pulumi.runtime import set_mocks, Mocks\n"  # public
        "from pulumi.runtime import rpc\n"  # 15: exported, but the wire format
        "loop = asyncio.new_event_loop()\n"
        "pulumi_mocks._sync_await = _sync_await\n"  # 7: assigns, 8: uses ._sync_await
        "setattr(pulumi_mocks, 'x', 1)\n"  # 9
        "loop._default_executor = None\n"  # 10
        "while loop._ready: pass\n"  # 11
        "pulumi.runtime.stack.wait_for_rpcs\n"  # 12: through attributes
        "importlib.import_module('pulumi.runtime.settings')\n"  # 13: named in a string
        "SIG = '4dabf18193072939515e22adb298388d'\n"  # 14: rpc._special_sig_key, copied
        "rpc.is_rpc_secret({})\n"  # 16
        "UNKNOWN = rpc.UNKNOWN\n"  # 17
        "pulumi.runtime.rpc.serialize_property\n"  # 18: through attributes
    )
    found = offences(bad)
    assert len(found) == 18, "\n".join(found)
    wire = {f.split(" ", 1)[1] for f in found if "rpc" in f and "wait_for_rpcs" not in f}
    assert wire == {
        "imports pulumi.runtime.rpc",
        "uses rpc.is_rpc_secret",
        "uses rpc.UNKNOWN",
        "uses pulumi.runtime.rpc.serialize_property",
    }
