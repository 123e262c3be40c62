"""Refusals read as a user needs them: escaped look-alikes, suggestions, no internal tags, no echoes."""

from __future__ import annotations

import ast
import re

import pytest

from mlplatform_core.model.config import ConfigError, read_stack_file
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

BASE = {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}


def problems(raw: dict, stack: str = "dev") -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        validate_stack(raw, stack)
    return {p.path: p.message for p in info.value.problems}


def test_a_key_with_a_look_alike_character_is_shown_escaped_with_the_setting_it_resembles():
    found = problems({**BASE, "ml-platform-eks:nodeGroups": {"jobs": {"m\u0430xSize": 3}}})
    path = "ml-platform-eks:nodeGroups.jobs.m\\u0430xSize"
    assert path in found, found
    assert "\\u0430" in found[path] and "did you mean maxSize?" in found[path]


def test_a_value_with_a_look_alike_character_is_shown_escaped():
    found = problems({**BASE, "ml-platform-eks:workloads": {"preemptionMode": "pr\u0435vent"}})
    assert "'pr\\u0435vent'" in found["ml-platform-eks:workloads.preemptionMode"]


@pytest.mark.parametrize("key,near", [("minsize", "minSize"), ("instanceType", "instanceTypes")])
def test_an_unknown_key_gets_a_did_you_mean(key, near):
    found = problems({**BASE, "ml-platform-eks:nodeGroups": {"jobs": {key: 3}}})
    assert f"did you mean {near}?" in found[f"ml-platform-eks:nodeGroups.jobs.{key}"]


@pytest.mark.parametrize("written", ["karpentr", "Karpenter", "autoscaler"])
def test_an_invalid_provisioner_is_the_only_problem_it_causes(written):
    raw = read_stack_file(ROOT / "stacks" / "Pulumi.dev-karpenter.yaml")
    raw["ml-platform-eks:provisioner"] = written
    found = problems(raw, "dev-karpenter")
    assert list(found) == ["ml-platform-eks:provisioner"], found
    # a problem of its own, independent of the provisioner, is still reported in the same run
    raw["ml-platform-eks:nodeGroups"]["jupyter"] = {"minSize": 5, "maxSize": 2}
    assert "ml-platform-eks:nodeGroups.jupyter.minSize" in problems(raw, "dev-karpenter")


def test_an_invalid_provisioner_gets_a_did_you_mean():
    found = problems({**BASE, "ml-platform-eks:provisioner": "karpentr"})
    assert "did you mean karpenter?" in found["ml-platform-eks:provisioner"]


def _message_strings(path):
    """String literals of a module that can reach a user: every constant but docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_internal_tags_in_user_messages():
    """References such as "(seed 003)" name the project's own research notes, which users never see."""
    tag = re.compile(r"\bseeds? 0\d\d\b")
    found = []
    for package in ("mlplatform", "mlplatform_core", "mlplatform_program", "policies/mlplatform_policies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            found += [f"{path.relative_to(ROOT)}:{line}" for line, text in _message_strings(path) if tag.search(text)]
    for path in sorted((ROOT / "policies" / "mlplatform_policies").glob("*.json")):
        if tag.search(path.read_text(encoding="utf-8")):
            found.append(str(path.relative_to(ROOT)))
    assert found == []
