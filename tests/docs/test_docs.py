"""Docs that cannot go stale: every command output shown is what the command prints today (regenerated with
a fixed date), the configuration reference covers every key with examples that validate, the README stays
short, and the Mermaid diagrams are well formed."""

from __future__ import annotations

import re

import pytest
import yaml

from mlplatform_core.model.config import PROJECT, REGION_KEY, ConfigError, read_stack_document
from mlplatform_core.model.validation import validate_stack
from scripts.docs import config_reference, generate_docs
from tests.conftest import ROOT

pytestmark = pytest.mark.docs


def test_every_generated_block_is_what_the_command_prints(capsys):
    """`make docs` regenerates them; this fails when a change altered an output the docs show."""
    code = generate_docs.main(["--check"])
    out, err = capsys.readouterr()
    assert code == 0, f"{out}{err}"


def test_the_readme_is_short_and_keeps_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert "make plan" in readme and "make test" in readme and "mlplatform init" in readme
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), link


def test_every_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs").glob("*.md"):
        assert f": {page.name}" in nav, page.name


def test_every_setting_is_in_the_reference():
    assert config_reference.undocumented() == []
    page = (ROOT / "docs" / "configuration.md").read_text()
    for key in config_reference.settings():
        shown = REGION_KEY if key.path == "region" else f"{PROJECT}:{key.path}"
        assert f"### `{shown}`" in page, key.path


# Group settings only a NodePool takes (with provisioner nodeGroups they are refused, as they should be).
NODE_POOL_ONLY = {"nodeGroups.<group>.staticNodes"}
# Settings the reference documents as refused until a dependency can apply them, and what the refusal names.
REFUSED_FOR_NOW = {"scheduler": "pulumi-eks"}


@pytest.mark.parametrize("key", [k.path for k in config_reference.settings()])
def test_every_example_in_the_reference_is_a_valid_setting(key, tmp_path):
    """Each example as a user pastes it into a stack file, read as `plan` reads the file."""
    example = yaml.safe_load(config_reference.MEANINGS[key].example)
    config = config_reference.minimal_stack(example.pop("environment", "dev"))
    config[REGION_KEY] = example.pop(REGION_KEY, "us-east-1")
    config.update({f"{PROJECT}:{k}": v for k, v in example.items()})
    if key.startswith("karpenter") or key in NODE_POOL_ONLY:
        config[f"{PROJECT}:provisioner"] = "karpenter"
    if key.startswith("autoMode"):
        config[f"{PROJECT}:provisioner"] = "autoMode"
        if "keepKarpenter" in config[f"{PROJECT}:autoMode"]:  # migrating: the Karpenter it keeps
            config[f"{PROJECT}:karpenter"] = {"replicas": 1}
    if "publicAccess: true" in config_reference.MEANINGS[key].example:
        config[f"{PROJECT}:kubernetesLayer"] = "inline"
    stack_file = tmp_path / "Pulumi.docs.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}, sort_keys=False), encoding="utf-8")
    document = read_stack_document(stack_file, "the reference's example")
    if key.split(".")[0] in REFUSED_FOR_NOW:  # documented as refused: the example gets the refusal, not silence
        with pytest.raises(ConfigError, match=REFUSED_FOR_NOW[key.split(".")[0]]):
            validate_stack(document.config, "docs", "the reference's example", document)
        return
    validate_stack(document.config, "docs", "the reference's example", document)


MERMAID_LABEL = re.compile(r'\["([^"]*)"\]|\[\("([^"]*)"\)\]|\|"([^"]*)"\|')


def test_the_diagrams_in_the_docs_are_well_formed():
    """Labels quoted with Mermaid's entity codes (no raw quotes or angle brackets), edges between declared
    nodes. (The docs' diagrams also parse with mermaid 11's own parser, checked when they were written.)"""
    blocks = [
        b
        for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
        for b in re.findall(r"```mermaid\n(.*?)```", page.read_text(), re.S)
    ]
    assert len(blocks) >= 4
    for block in blocks:
        lines = block.splitlines()
        assert lines[0] in ("flowchart LR", "flowchart TB")
        declared = set(re.findall(r"^\s*(\w+)\[", block, re.M)) | set(re.findall(r"subgraph (\w+)\[", block))
        for line in lines[1:]:
            for label in MERMAID_LABEL.findall(line):
                text = "".join(label)
                assert not set(text) & set('<>"') or (
                    "<br/>" in text and not set(text.replace("<br/>", "")) & set('<>"')
                ), line
            edge = re.match(r"^\s*(\w+) (?:-->|-\.->|==>)(?:\|\"[^\"]*\"\|)? (\w+)$", line)
            chain = re.match(r"^\s*\w+( --> \w+)+$", line)
            if edge:
                assert {edge.group(1), edge.group(2)} <= declared, line
            elif chain:
                assert set(re.findall(r"\w+", line)) <= declared, line


def test_product_text_points_to_the_docs_page_not_the_readme():
    """The README is a short overview; what it used to hold (IAM permissions, prices, upstream data, destroy)
    moved to docs/. Text the tool shows or its code cites points to the page that has it."""
    stale = re.compile(r"in the README|README[:,] ")
    found = []
    for package in ("mlplatform", "mlplatform_core", "mlplatform_program", "policies", "scripts", "stacks", "examples"):
        for path in (ROOT / package).rglob("*"):
            if path.suffix not in {".py", ".json", ".yaml", ".txt"} or "scaffold" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in stale.finditer(text)]
    assert found == []
    assert "## IAM permissions for whoever runs `pulumi up`" in (ROOT / "docs/deploying.md").read_text()
    assert "Prices for every region" in (ROOT / "docs/development.md").read_text()


def test_the_diff_examples_are_command_outputs():
    """docs/diff.md's JSON and Markdown examples are what `mlplatform diff` prints for a real edit of the
    prod stack (generated, so they follow the diff's keys and actions), not hand-written."""
    page = (ROOT / "docs" / "diff.md").read_text()
    outside = generate_docs.BLOCK.sub("", page)
    assert '"nodeGroups"' not in outside and "### mlplatform diff" not in outside  # outputs, not input
    specs = [m.group("spec") for m in generate_docs.BLOCK.finditer(page)]
    assert any(s.startswith("diff ") and "--json" in s for s in specs)
    assert any(s.startswith("diff ") and "--format markdown" in s for s in specs)


def test_generated_blocks_can_edit_a_stack_and_save_a_before_document():
    """`save` and `edit` make the files a command reads in a temporary folder; the output names them as the
    command does."""
    spec = (
        'diff --config-file edited/Pulumi.dev.yaml --against dev.json --json | save dev.json "plan dev --json" '
        '| edit edited/Pulumi.dev.yaml stacks/Pulumi.dev.yaml "maxSize: 5" "maxSize: 6" | json-keys counts '
        "resources | fence json"
    )
    with generate_docs.fixed_world():
        body = generate_docs.generate(spec)
    assert body.startswith("```json\n{")
    doc = yaml.safe_load(body.removeprefix("```json\n").removesuffix("```\n"))
    assert doc["counts"]["update"] == 1 and [r["fields"] for r in doc["resources"]] == [["scalingConfig.maxSize"]]
    assert "/tmp" not in body


@pytest.mark.parametrize("stack", ["prod", "dev-automode"])
def test_json_page_names_every_key_of_a_plan_document(stack):
    """docs/json.md lists the plan document's keys; a key added to the document is added to the page."""
    from tests.mlplatform.test_automode_report import document

    page = (ROOT / "docs" / "json.md").read_text()
    doc = document(stack)
    support, deployment = doc["kubernetesSupport"], doc["deployment"]
    keys = set(doc) | {k for g in doc["nodeGroups"][:1] for k in g} | set(doc["resources"][0]) | set(support)
    keys |= set(support["upgradePolicy"]) | set(deployment) | set(deployment["programs"][0])
    assert sorted(k for k in keys if f"`{k}`" not in page) == []
