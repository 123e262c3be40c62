"""The provisioners are a seam, not `if`s: outside mlplatform_core/model/provisioners/ no product code tests which
provisioner a stack has (a comparison with a provisioner's name, `cfg.provisioner in (...)`, the former
`on_auto_mode()` / `uses_karpenter()`); callers ask the provisioner (registry `provisioner_of(cfg)`, `of(layout)`).

Two validators of the stack file's `provisioner` value stay in model/config, which sits below the provisioners
(they import it): Auto Mode's regions and whether the stack may install the mirrored charts (imageRegistry). They
are named here, so a new test anywhere else fails.

A table keyed by provisioner is the same test in another form, and so is a name derived from a group's marks:
outside the provisioners package no dict is keyed by a provisioner's constant (NODE_GROUPS, KARPENTER, AUTO_MODE)
or by two or more provisioner names, no table is indexed by a constant, no tuple lists two constants (but the
config's list of valid `provisioner` values) and no conditional expression yields a provisioner's name: the
provisioner holds the fact (e.g. `dra_problem`, `installs_dra_driver`, `group_kind`; `launcher(group).name`).
"""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

TREES = ("mlplatform_core", "mlplatform", "mlplatform_program", "policies", "kubernetes-layer")
SEAM = ROOT / "mlplatform_core" / "model" / "provisioners"
NAMES = r"(?:nodeGroups|karpenter|autoMode)"
CONSTANTS = r"(?:NODE_GROUPS|KARPENTER|AUTO_MODE)"
TEST = re.compile(
    r"provisioner\s*(?:==|!=)"
    r"|provisioner\s+(?:not\s+)?in\s*[\(\[\{]"
    r"|\bon_auto_mode\(|\buses_karpenter\("
    rf"|(?:==|!=)\s*{CONSTANTS}\b|\b{CONSTANTS}\s*(?:==|!=)"
    rf"|(?:==|!=)\s*[\"']{NAMES}[\"']|[\"']{NAMES}[\"']\s*(?:==|!=)"
)
# (file, the line's text) of the config validators of the `provisioner` value, below the provisioners' layer.
ALLOWED = {
    ("mlplatform_core/model/config/automode.py", "if provisioner != AUTO_MODE or region not in NO_AUTO_MODE_REGIONS:"),
    (
        "mlplatform_core/model/config/stack.py",
        "return cfg.provisioner != AUTO_MODE or cfg.auto_mode.keep_karpenter or cfg.auto_mode.keep_node_groups",
    ),
}


CONSTANT_NAMES = frozenset({"NODE_GROUPS", "KARPENTER", "AUTO_MODE"})
NAME_VALUES = frozenset({"nodeGroups", "karpenter", "autoMode"})
# The config's list of valid `provisioner` values (the stack file's Literal), below the provisioners' layer.
NAME_LIST = "mlplatform_core/model/config/karpenter_settings.py"


def _constant(node: ast.AST | None) -> bool:
    """A bare provisioner constant (`versions.KARPENTER`, a chart's name, is another thing)."""
    return isinstance(node, ast.Name) and node.id in CONSTANT_NAMES


def _name(node: ast.AST | None) -> bool:
    return _constant(node) or (isinstance(node, ast.Constant) and node.value in NAME_VALUES)


def _table_by_provisioner(node: ast.AST, rel: str) -> str | None:
    """Why the node chooses by provisioner, or None."""
    if isinstance(node, ast.Dict):
        if any(_constant(k) for k in node.keys):
            return "a dict keyed by a provisioner constant"
        if len({k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in NAME_VALUES}) >= 2:
            return "a dict keyed by provisioner names"
    if isinstance(node, ast.Subscript) and _constant(node.slice):
        return "a table indexed by a provisioner constant"
    if isinstance(node, ast.IfExp) and (_name(node.body) or _name(node.orelse)):
        return "a provisioner name derived from a condition"
    listed = isinstance(node, (ast.Tuple, ast.List, ast.Set)) and sum(_constant(e) for e in node.elts) >= 2
    if listed and rel != NAME_LIST:
        return "a list of provisioner constants"
    return None


def tables_by_provisioner(source: str, rel: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if why := _table_by_provisioner(node, rel):
            found.append(f"{rel}:{node.lineno}: {why}: {ast.unparse(node)[:100]}")
    return found


def provisioner_tests() -> list[str]:
    found = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if SEAM in path.parents:
                continue
            rel = path.relative_to(ROOT).as_posix()
            source = path.read_text(encoding="utf-8")
            for number, line in enumerate(source.splitlines(), 1):
                if TEST.search(line) and (rel, line.strip()) not in ALLOWED:
                    found.append(f"{rel}:{number}: {line.strip()}")
            found += tables_by_provisioner(source, rel)
    return found


def test_no_provisioner_test_outside_the_provisioner_modules():
    found = provisioner_tests()
    assert found == [], "ask the provisioner (model/provisioners) instead of testing which one it is:\n" + "\n".join(
        found
    )


def test_the_guard_sees_each_form_of_a_provisioner_test():
    for line in (
        'if cfg.provisioner == "autoMode":',
        "elif layout.provisioner != NODE_GROUPS:",
        "cfg.provisioner in (KARPENTER, AUTO_MODE)",
        "if on_auto_mode(layout):",
        "uses_karpenter(layout) or x",
        'return "karpenter" == name',
        "kept = AUTO_MODE == p",
    ):
        assert TEST.search(line), line
    for line in ("provisioner_of(cfg).run_by_aws", "named(name).flavor is not None", 'chart == "karpenter-crd"'):
        assert not TEST.search(line), line


def test_the_guard_sees_each_form_of_a_table_by_provisioner():
    for source in (
        "NEEDS = {NODE_GROUPS: f, KARPENTER: g, AUTO_MODE: h}",
        "INSTALLS_DRIVER = {\n    AUTO_MODE: False,\n}",
        'POOLS = {"karpenter": "Karpenter NodePools", "autoMode": "EKS Auto Mode NodePools"}',
        "x = INSTALLS_DRIVER[AUTO_MODE]",
        "p = AUTO_MODE if g.auto_mode else (KARPENTER if g.karpenter else NODE_GROUPS)",
        'name = "autoMode" if g.auto_mode else "nodeGroups"',
        "POOL_PROVISIONERS = (KARPENTER, AUTO_MODE)",
    ):
        assert tables_by_provisioner(source, "x.py"), source
    for source in (
        "CHARTS = {versions.KARPENTER: KUBE_SYSTEM}",  # a chart's name, not a provisioner
        'doc = {"nodeGroups": groups, "nodePools": pools}',  # a document's key
        "x = launcher(g).installs_dra_driver",
        "kind = launcher(g).group_kind",
    ):
        assert not tables_by_provisioner(source, "x.py"), source
    # The config's list of valid `provisioner` values is the one list allowed.
    assert not tables_by_provisioner("PROVISIONERS = (NODE_GROUPS, KARPENTER, AUTO_MODE)", NAME_LIST)


def test_the_allowed_validators_are_still_there():
    """An allowance for a line that no longer exists would hide a new one written the same way."""
    for rel, text in ALLOWED:
        assert text in (ROOT / rel).read_text(encoding="utf-8"), (rel, text)
