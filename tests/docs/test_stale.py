"""Docs that name things of the repository name things that exist: every command of the CLI on the commands
page (and no command that is gone), every path and make target, every data file in the development page's
table, and no provisioner the toolkit builds called a design note."""

from __future__ import annotations

import argparse
import re

import pytest

from mlplatform import cli
from mlplatform_core.model.config.karpenter_settings import PROVISIONERS
from scripts.docs.generate_docs import BLOCK, pages
from tests.conftest import ROOT
from tests.docs.snippets import SHELL

pytestmark = pytest.mark.docs

TOP = (
    r"scripts|mlplatform_core|mlplatform_program|mlplatform|policies|tests|examples|stacks|kubernetes-layer|bench|scan"
    r"|docs"
)
PATH = re.compile(rf"(?<![\w/.-])((?:{TOP}|\.ci|\.github)/[\w./<>*-]*)")
# Paths the docs tell the reader to make, not files of the repository.
MADE_BY_THE_READER = {"policies/venv": "docs/policy.md: python -m venv policies/venv"}
CODE = re.compile(r"```(\w*)\n(.*?)```|`([^`\n]+)`", re.S)


def _commands() -> set[str]:
    """What `mlplatform --help` lists."""
    parser = cli.build_parser()
    return set(next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices)


def _code(text: str) -> str:
    """The commands of a page: its shell blocks and inline code (not outputs, generated or quoted)."""
    return "\n".join(body if lang in SHELL else inline for lang, body, inline in CODE.findall(BLOCK.sub("", text)))


def test_the_commands_page_lists_every_command_of_the_cli():
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    overview = re.search(r"```bash\n(.*?)```", page, re.S).group(1)
    commands = _commands()
    assert {"plan", "check", "manifests"} <= commands  # read from the parser, not typed here
    assert sorted(c for c in commands if not re.search(rf"^mlplatform {c}\b", overview, re.M)) == []
    helps = {
        m.group("spec").removesuffix(" --help") for m in BLOCK.finditer(page) if m.group("spec").endswith("--help")
    }
    assert sorted(commands - helps) == []  # each command's options: a generated `COMMAND --help`


def test_no_page_shows_a_command_the_cli_does_not_have():
    commands = _commands()
    shown = {
        (str(page.relative_to(ROOT)), word)
        for page in pages()
        for word in re.findall(r"(?:^|[\s|(])(?:\.venv/bin/)?mlplatform ([a-z][\w-]*)", _code(page.read_text()), re.M)
    }
    assert sorted((page, word) for page, word in shown if word not in commands) == []


def test_every_repository_path_the_docs_name_exists():
    missing = []
    for page in pages():
        for path in PATH.findall(page.read_text(encoding="utf-8")):
            path = path.rstrip(".")
            made = any(path == p or path.startswith(f"{p}/") for p in MADE_BY_THE_READER)
            if re.search(r"[<*]|\b[A-Z]{2,}\b", path) or made:
                continue  # a placeholder (stacks/Pulumi.<stack>.yaml, policies/config/NAME.json)
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []


def test_every_make_target_the_docs_show_exists():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    shown = {
        (str(page.relative_to(ROOT)), target)
        for page in pages()
        for target in re.findall(r"(?:^|[\s`])make ([a-z][\w-]*)", _code(page.read_text()), re.M)
    }
    assert {t for _, t in shown} >= {"plan", "test"}
    assert sorted((page, t) for page, t in shown if t not in targets) == []


def test_every_data_file_is_in_the_development_pages_table_with_its_generator():
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)`[^|]*\| `(scripts/[^`]+)` \|", page, re.M)
    data = ROOT / "mlplatform_core" / "data"
    for name, generator in rows:
        assert (ROOT / generator).is_file(), generator
        assert list(data.glob(name)), f"{name}: no such file in mlplatform_core/data"
    listed = {p for name, _ in rows for p in data.glob(name)}
    assert sorted(str(p.relative_to(data)) for p in data.rglob("*.json") if p not in listed) == []


def test_no_page_calls_a_provisioner_the_toolkit_builds_a_design_note():
    named = {"nodeGroups": "node group", "karpenter": "Karpenter", "autoMode": "Auto Mode"}
    assert set(named) == set(PROVISIONERS)
    notes = [
        f"{page.relative_to(ROOT)}: {heading}"
        for page in pages()
        for heading in re.findall(r"^#+ .*design note.*$", page.read_text(), re.M | re.I)
        if any(name.lower() in heading.lower() for name in named.values())
    ]
    assert notes == []
