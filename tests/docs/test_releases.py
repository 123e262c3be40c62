"""Releases: semantic versions, a Keep a Changelog CHANGELOG.md whose newest release is the package's version,
and every breaking change with its edit in docs/upgrading.md; a stack refused because of a breaking change of
the settings names the release, the edit and that section (breaking_changes.py)."""

from __future__ import annotations

import itertools
import re

import pytest

import mlplatform
from mlplatform.cli import main
from mlplatform.documents import SCHEMA_VERSION
from mlplatform_core.model.config import ConfigError, Problem
from mlplatform_core.model.config.breaking_changes import BREAKING_CHANGES, UPGRADE_GUIDE, with_release_notes
from tests.conftest import ROOT

CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
UPGRADING = (ROOT / UPGRADE_GUIDE).read_text(encoding="utf-8")
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
# Keep a Changelog's kinds of change, and Breaking first (what docs/upgrading.md has an edit for).
KINDS = {"Breaking", "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def semver(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def released_sections() -> dict[str, str]:
    """{version: its text} of every released version in CHANGELOG.md."""
    marks = list(RELEASE.finditer(CHANGELOG))
    return {
        m.group(1): CHANGELOG[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(CHANGELOG)]
        for i, m in enumerate(marks)
    }


def kind(section: str, name: str) -> str:
    found = re.search(rf"^### {name}\n(.*?)(?=^### |\Z)", section, re.M | re.S)
    return found.group(1) if found else ""


def test_the_changelog_keeps_a_changelog_and_its_newest_release_is_the_package_version():
    assert CHANGELOG.startswith("# Changelog\n") and "keepachangelog.com" in CHANGELOG and "semver.org" in CHANGELOG
    headings = re.findall(r"^## (.+)$", CHANGELOG, re.M)
    assert headings[0] == "[Unreleased]", "Unreleased comes first, for what is merged but not released"
    assert all(RELEASE.match(f"## {h}") for h in headings[1:]), headings
    versions = [semver(v) for v in released_sections()]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert ".".join(map(str, versions[0])) == mlplatform.__version__
    dates = [m.group(2) for m in RELEASE.finditer(CHANGELOG)]
    assert dates == sorted(dates, reverse=True)
    assert set(re.findall(r"^### (.+)$", CHANGELOG, re.M)) <= KINDS


def test_every_breaking_change_of_a_release_has_its_edit_in_the_upgrade_guide():
    for version, section in released_sections().items():
        entries = re.findall(r"^- ", kind(section, "Breaking"), re.M)
        guide = re.search(rf"^## {re.escape(version)}\n(.*?)(?=^## |\Z)", UPGRADING, re.M | re.S)
        if not entries:
            continue
        assert guide, f"docs/upgrading.md has no section ## {version}"
        edits = re.split(r"^### .+\{#[a-z0-9-]+\}$", guide.group(1), flags=re.M)[1:]
        assert len(edits) == len(entries), f"{version}: {len(entries)} breaking changes, {len(edits)} edits"
        for edit in edits:  # the edit is shown: before and after, each in a code block
            assert "before" in edit.lower() and "after" in edit.lower() and edit.count("```") >= 4, edit[:200]
    # While the major version is 0, a release with a breaking change bumps the minor version.
    versions = sorted(released_sections(), key=semver)
    for before, after in itertools.pairwise(versions):
        if kind(released_sections()[after], "Breaking").strip() and semver(after)[0] == 0:
            assert semver(after)[1] > semver(before)[1], f"{after} breaks {before} without a minor bump"


def test_the_plan_document_schema_version_is_a_breaking_change_of_a_release():
    breaking = "".join(kind(s, "Breaking") for s in released_sections().values())
    assert f"schema version {SCHEMA_VERSION}" in breaking
    assert f'"schemaVersion": "{SCHEMA_VERSION}"' in UPGRADING


@pytest.mark.parametrize("change", BREAKING_CHANGES, ids=lambda c: c.anchor)
def test_each_breaking_config_change_names_a_release_and_a_section_that_exist(change):
    sections = released_sections()
    assert change.release in sections and semver(change.release) <= semver(mlplatform.__version__)
    assert change.path.split(":", 1)[1] in kind(sections[change.release], "Breaking")
    guide = re.search(rf"^## {re.escape(change.release)}\n(.*?)(?=^## |\Z)", UPGRADING, re.M | re.S)
    assert guide and f"{{#{change.anchor}}}" in guide.group(1)


def test_a_prod_stack_of_the_previous_release_is_refused_naming_the_release_and_the_edit(tmp_path, capsys):
    """A prod stack that planned with 0.1.0 (no upgradePolicy): exit 2, the key, the release, the edit, the link."""
    stack = tmp_path / "Pulumi.prod.yaml"
    stack.write_text("config:\n  aws:region: us-east-1\n  ml-platform-eks:environment: prod\n")
    code = main(["plan", "--config-file", str(stack)])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = [line for line in err.splitlines() if "upgradePolicy.supportType" in line]
    assert "required in prod" in line and "required since ml-platform-eks 0.2.0" in line
    assert "upgradePolicy: {supportType: EXTENDED}" in line
    assert "docs/upgrading.md#prod-stacks-choose-upgradepolicysupporttype" in line


def test_release_notes_are_added_by_the_error_whoever_raised_it_and_only_to_the_change_they_describe():
    (change,) = [c for c in BREAKING_CHANGES if c.anchor == "prod-stacks-choose-upgradepolicysupporttype"]
    caused = Problem(change.path, "required in prod (...)", line=4)
    other_value = Problem(change.path, "'SOMETIMES' is not one of STANDARD, EXTENDED", line=4)
    other_key = Problem("ml-platform-eks:kubernetesVersion", "required in prod (...)")
    error = ConfigError([caused, other_value, other_key])
    noted, kept_value, kept_key = error.problems
    assert noted.message.endswith(change.note()) and noted.line == 4 and change.release in str(error)
    assert kept_value == other_value and kept_key == other_key
    # Once only, however often the problems pass through an error.
    assert ConfigError(error.problems).problems == error.problems
    assert with_release_notes([caused], changes=()) == [caused]
