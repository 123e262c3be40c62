"""The pack's requirements.txt installs everything the pack imports (the analyzer tests run it in a venv linked
to the test environment by default, so they would not notice a missing line)."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata

from packaging.requirements import Requirement

from tests.conftest import ROOT

PACK = ROOT / "policies"
PROJECT_PACKAGES = {"mlplatform_policies", "mlplatform_core"}


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _module_file(name: str):
    parts = name.split(".")
    base = PACK if parts[0] == "mlplatform_policies" else ROOT
    for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def pack_third_party_imports() -> set[str]:
    """Top-level names of what the pack imports outside the project and the stdlib, its core modules included."""
    seen, todo, third_party = set(), [PACK / "__main__.py", *sorted((PACK / "mlplatform_policies").glob("*.py"))], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            top = name.split(".")[0]
            if top in PROJECT_PACKAGES:
                for prefix in (name, name.rsplit(".", 1)[0]):
                    module = _module_file(prefix)
                    if module is not None:
                        todo.append(module)
                        # a package's __init__ runs on import of any of its modules
                        todo.extend(p / "__init__.py" for p in module.parents if (p / "__init__.py").is_file())
                        break
            elif top not in sys.stdlib_module_names and top != "__future__":
                third_party.add(top)
    return third_party


def _requirement_names() -> set[str]:
    names = set()
    for line in (PACK / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line == "-e ..":
            names.add("ml-platform-eks")
        elif line:
            names.add(re.split(r"[<>=!~ \[]", line)[0].lower())
    return names


def _provided(distribution: str, seen: set[str]) -> set[str]:
    """Top-level modules a distribution and its dependencies install."""
    if distribution in seen:
        return set()
    seen.add(distribution)
    dist = metadata.distribution(distribution)
    tops = {t for t in (dist.read_text("top_level.txt") or "").split() if t}
    tops |= {f.parts[0].removesuffix(".py") for f in dist.files or () if f.suffix == ".py" or len(f.parts) > 1}
    for line in dist.requires or ():
        req = Requirement(line)
        # an extra's, or another Python's (importlib-resources needs zipp only before 3.10): not installed here
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        tops |= _provided(req.name, seen)
    return tops


def test_requirements_name_what_the_pack_imports():
    requirements = _requirement_names()
    assert {"pulumi", "pulumi-policy", "ml-platform-eks"} <= requirements, requirements
    seen: set[str] = set()
    provided = set().union(*(_provided(name, seen) for name in requirements))
    missing = pack_third_party_imports() - provided
    assert not missing, f"the pack imports {sorted(missing)}, which policies/requirements.txt does not install"


def test_the_pack_imports_what_its_rules_need():
    # The walk really reaches the pack's SDK and the core (a walk that found nothing would pass the test above).
    assert {"pulumi_policy"} <= pack_third_party_imports()
