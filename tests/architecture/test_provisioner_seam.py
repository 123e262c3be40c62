"""The provisioners are a seam, not `if`s: outside mlplatform_core/model/provisioners/ no product code tests which
provisioner a stack has (a comparison with a provisioner's name, `cfg.provisioner in (...)`, the former
`on_auto_mode()` / `uses_karpenter()`); callers ask the provisioner (registry `provisioner_of(cfg)`, `of(layout)`).

Two validators of the stack file's `provisioner` value stay in model/config, which sits below the provisioners
(they import it): Auto Mode's regions and whether the stack may install the mirrored charts (imageRegistry). They
are named here, so a new test anywhere else fails.
"""

from __future__ import annotations

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


def provisioner_tests() -> list[str]:
    found = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if SEAM in path.parents:
                continue
            rel = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if TEST.search(line) and (rel, line.strip()) not in ALLOWED:
                    found.append(f"{rel}:{number}: {line.strip()}")
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


def test_the_allowed_validators_are_still_there():
    """An allowance for a line that no longer exists would hide a new one written the same way."""
    for rel, text in ALLOWED:
        assert text in (ROOT / rel).read_text(encoding="utf-8"), (rel, text)
