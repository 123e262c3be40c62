"""Executable docs: every YAML and shell block of README.md and docs/ is planned, refused as documented, or run
against a temporary project (tests/docs/snippets.py: the markers). A block without a marker fails, so a new
page cannot show a snippet nobody ran; a snippet the toolkit no longer accepts fails the suite."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from scripts.docs.generate_docs import pages
from tests.conftest import ROOT, stack_config
from tests.docs import runner, snippets

pytestmark = pytest.mark.docs

BLOCKS = snippets.blocks(ROOT, pages())
CHECKED = [b for b in BLOCKS if b.lang in snippets.CHECKED]


def _params(lang: set[str]) -> list:
    params = []
    for block in CHECKED:
        if block.lang not in lang:
            continue
        params.append(pytest.param(block, id=block.where))
    return params


def test_every_block_says_what_it_is():
    """A fence without a language cannot be checked; one that shows YAML or commands needs a marker."""
    problems = [f"{b.where}: a ``` block without a language (```text for output)" for b in BLOCKS if not b.lang]
    for block in CHECKED:
        try:
            snippets.parse_marker(block)
        except snippets.MarkerError as err:
            problems.append(str(err))
    assert problems == []
    assert len(CHECKED) >= 20  # the collector finds the docs' blocks (a broken fence pattern would find none)


@pytest.mark.parametrize("block", _params({"yaml"}))
def test_every_stack_snippet_plans_or_is_refused_as_documented(block, tmp_path):
    marker = snippets.parse_marker(block)
    if marker.skip:
        pytest.skip(marker.skip)
    base = marker.one("base", "dev")
    base_file = ROOT / (base if base.endswith(".yaml") else f"stacks/Pulumi.{base}.yaml")
    config = snippets.stack_config(block, marker, _base_config(base_file))
    stack_file = tmp_path / base_file.name  # the same stack name as the base
    stack_file.write_text(yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    result = runner.mlplatform(["plan", "--config-file", str(stack_file)], ROOT)
    if marker.one("expect") == "refused":
        assert result.code == 2 and marker.one("message") in result.err, str(result)
    else:
        assert result.code == 0, f"{block.where} (merged into {base}) does not plan:\n{result}"


def _base_config(path: Path) -> dict:
    if path.parent == ROOT / "stacks":
        return stack_config(path.name.removeprefix("Pulumi.").removesuffix(".yaml"))
    from mlplatform_core.model.config import read_stack_file

    return read_stack_file(path)


@pytest.mark.parametrize("block", _params(snippets.SHELL))
def test_every_shell_block_runs_as_documented(block, tmp_path):
    marker = snippets.parse_marker(block)
    if marker.skip:
        pytest.skip(marker.skip)
    runnable, not_run = snippets.commands(block.text, console=block.lang == "console")
    assert runnable, f"{block.where}: no mlplatform command runs here; mark it `skip: REASON`"
    assert bool(not_run) == ("not-run" in marker.options), (
        f"{block.where}: lines that do not run here {not_run} need not-run=REASON, and only they"
    )
    where = marker.one("in", "project")
    writes = [c.line for c in runnable if c.output or c.words[0] == "cd" or {"init", "--out"} & set(c.words)]
    assert where != "repo" or not writes, f"{block.where}: in=repo runs only commands that write nothing: {writes}"
    cwd = runner.start_folder(where, tmp_path)
    for given in marker.options.get("given", []):
        dest, _, source = given.partition(":")
        (cwd / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / source, cwd / dest)
    expected = int(marker.one("exit", "0"))
    for command in runnable:
        if command.words[0] == "cd":
            cwd = (cwd / command.words[1]).resolve()
            assert cwd.is_dir(), f"{block.where}: `{command.line}`: no folder {cwd}"
            continue
        result = runner.mlplatform(list(command.words[1:]), cwd)
        assert result.code == expected, f"{block.where}: `{command.line}` in {cwd}:\n{result}"
        if command.output:
            (cwd / command.output).write_text(result.out, encoding="utf-8")


# The collector and the markers themselves: a test that cannot fail proves nothing.


def test_an_unmarked_block_and_a_skip_without_reason_are_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```yaml\n  ml-platform-eks:gpu: {}\n```\n\n<!-- snippet: skip: -->\n```bash\npulumi up\n```\n"
        "<!-- mlplatform-docs: plan dev -->\n```yaml\ngenerated: true\n```\n<!-- /mlplatform-docs -->\n"
    )
    found = snippets.blocks(tmp_path, [page])
    assert [(b.line, b.lang) for b in found] == [(1, "yaml"), (6, "bash")]  # the generated block is not a snippet
    for block in found:
        with pytest.raises(snippets.MarkerError):
            snippets.parse_marker(block)


def test_a_fragment_merges_into_the_base_as_a_user_edits_the_file():
    base = {"aws:region": "us-east-1", "ml-platform-eks:nodeGroups": {"initial": {"minSize": 1}, "jobs": {"x": 1}}}
    block = snippets.Block("p.md", 1, "yaml", "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 4}\n", "")
    config = snippets.stack_config(block, snippets.Marker(), base)
    assert config["ml-platform-eks:nodeGroups"] == {"initial": {"minSize": 1}, "jobs": {"x": 1, "maxSize": 4}}
    item = snippets.Block("p.md", 1, "yaml", "    - name: train\n      gpu: true\n", "")
    marker = snippets.Marker(options={"under": ["ml-platform-eks:additionalNodeGroups"]})
    assert snippets.stack_config(item, marker, base)["ml-platform-eks:additionalNodeGroups"] == [
        {"name": "train", "gpu": True}
    ]


def test_shell_lines_that_run_and_lines_that_do_not():
    text = textwrap.dedent(
        """\
        mlplatform init my-platform && cd my-platform   # a comment
        .venv/bin/mlplatform plan prod --json > before.json
        pulumi up --stack dev
        kubectl get deploy my-fn -o yaml | mlplatform place dev -f -
        mlplatform manifests --all --out build --helm "$(command -v helm)"
        mlplatform check prod \\
            --json
        """
    )
    runnable, not_run = snippets.commands(text)
    assert [(c.words, c.output) for c in runnable] == [
        (("mlplatform", "init", "my-platform"), None),
        (("cd", "my-platform"), None),
        (("mlplatform", "plan", "prod", "--json"), "before.json"),
        (("mlplatform", "check", "prod", "--json"), None),
    ]
    assert [line.split()[0] for line in not_run] == ["pulumi", "kubectl", "mlplatform"]
    console = "$ mlplatform plan dev\nmlplatform plan: the output, not a command\n$ pulumi up\n"
    runnable, not_run = snippets.commands(console, console=True)
    assert [c.words for c in runnable] == [("mlplatform", "plan", "dev")] and not_run == ["pulumi up"]


def test_a_refused_snippet_is_caught(tmp_path):
    """The runner sees what a user sees: a snippet the toolkit refuses exits 2 with the setting named."""
    config = stack_config("dev")
    config["ml-platform-eks:nodeGroups"]["jobs"] = {"maxSize": "many"}
    stack_file = tmp_path / "Pulumi.dev.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}), encoding="utf-8")
    result = runner.mlplatform(["plan", "--config-file", str(stack_file)], ROOT)
    assert result.code == 2 and "nodeGroups.jobs.maxSize" in result.err, str(result)
