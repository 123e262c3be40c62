"""`make generate`: every upstream pin is read by a declared generator, every data file has one, the development
page's table is what the declaration and scripts/upstream.json write, and a generator whose pinned inputs are not
at hand is reported as needing --fetch (exit 3) instead of being skipped, while a cached pin is read offline."""

from __future__ import annotations

import importlib
import io
import json
import re
import subprocess

import pytest

from tests.conftest import ROOT
from tests.scripts.test_generators import load, path_of

SCRIPTS = ROOT / "scripts"
DATA = ROOT / "mlplatform_core" / "data"


@pytest.fixture(scope="module")
def regenerate():
    return importlib.import_module("scripts.regenerate")


@pytest.fixture
def upstream(monkeypatch, tmp_path):
    monkeypatch.setenv("MLP_UPSTREAM_CACHE", str(tmp_path / "cache"))
    return load("upstream")


def _source_of(script: str) -> str:
    """A generator's source and that of the scripts/ modules it imports (where some read their pins)."""
    text = (SCRIPTS / "generators" / script).read_text(encoding="utf-8")
    helpers = set(re.findall(r"^(?:import|from) (\w+)", text, re.M))
    folders = [SCRIPTS / "generators", SCRIPTS / "lib"]
    return text + "".join((f / f"{h}.py").read_text() for h in helpers for f in folders if (f / f"{h}.py").is_file())


def test_every_pin_is_read_by_a_declared_generator_that_names_it(regenerate, upstream):
    pins = upstream.manifest()
    declared = {role for gen in regenerate.GENERATORS for role in gen.roles}
    assert sorted(set(pins) - declared) == []
    assert sorted(declared - set(pins)) == []
    for gen in regenerate.GENERATORS:
        source = _source_of(gen.script)
        assert [r for r in gen.roles if f'"{r}"' not in source] == [], gen.script


def test_every_data_file_and_generator_script_is_declared(regenerate):
    listed = {p for gen in regenerate.GENERATORS for p in DATA.glob(gen.outputs[0])}
    assert all(DATA.glob(gen.outputs[0]) for gen in regenerate.GENERATORS)
    assert sorted(str(p.relative_to(DATA)) for p in DATA.rglob("*.json") if p not in listed) == []
    generators = {p.name for p in (SCRIPTS / "generators").glob("generate_*.py")} | {"render_charts.py"}
    declared = {g.script for g in regenerate.GENERATORS} | set(regenerate.MODEL_GENERATORS)
    assert sorted(generators - declared) == []
    assert all((SCRIPTS / "generators" / s).is_file() for s in declared)
    doc_generators = {p.name for p in (SCRIPTS / "docs").glob("generate_*.py")}
    assert sorted(doc_generators ^ {*regenerate.DOC_GENERATORS, regenerate.DOC_LAST}) == []
    # Scripts sit in their folders (generators, docs, lib): at the top, only the entry point and the shell helper.
    assert sorted(p.name for p in SCRIPTS.glob("*.py")) == ["regenerate.py"]
    for gen in regenerate.GENERATORS:  # the snapshot's own record names the generator that wrote it
        for path in DATA.glob(gen.outputs[0]):
            recorded = json.loads(path.read_text()).get("generator")
            assert recorded in (None, f"scripts/generators/{gen.script}"), path
            assert recorded is None or path_of(gen.script.removesuffix(".py")) == ROOT / recorded


def test_the_development_pages_data_table_is_what_the_declaration_writes(regenerate):
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    block = regenerate.TABLE.search(page)
    assert block is not None
    assert block.group(2) == regenerate.table()
    assert "`scripts/generators/generate_regions.py` | botocore-endpoints: `botocore==" in block.group(2)


def test_a_generator_without_its_pinned_inputs_is_listed_as_needing_fetch(regenerate, monkeypatch, tmp_path, capfd):
    monkeypatch.setenv("MLP_UPSTREAM_CACHE", str(tmp_path / "empty"))
    regions = next(g for g in regenerate.GENERATORS if g.script == "generate_regions.py")
    monkeypatch.setattr(regenerate, "GENERATORS", (regions,))
    before = (DATA / "regions.json").read_bytes()
    done, needs_fetch, failed = regenerate.run_data(fetch=False, ref=None)
    assert (done, needs_fetch, failed) == ([], ["generate_regions.py"], [])
    assert "botocore-endpoints: give a local copy" in capfd.readouterr().err
    assert (DATA / "regions.json").read_bytes() == before


def test_a_fetch_at_the_pin_is_cached_and_read_offline_later(upstream, monkeypatch):
    calls = []

    def urlopen(url, timeout):
        calls.append(url)
        return io.BytesIO(b"the pinned file")

    monkeypatch.setattr(upstream.urllib.request, "urlopen", urlopen)
    with pytest.raises(SystemExit) as exit_:
        upstream.read("eks-ami-instance-info", None, fetch=False)
    assert exit_.value.code == upstream.NEEDS_FETCH == 3
    text, record = upstream.read("eks-ami-instance-info", None, fetch=True)
    assert text == "the pinned file" and calls[0].endswith("/nodeadm/internal/kubelet/instance-info.jsonl")
    assert upstream.read("eks-ami-instance-info", None, fetch=False) == (text, record)
    assert len(calls) == 1  # offline: from the cache
    upstream.read("eks-ami-instance-info", None, fetch=True, ref="main")  # a moving ref is never cached...
    with pytest.raises(SystemExit):
        upstream.read("karpenter-vpc-limits", None, fetch=False)  # ...and another pin is not this one's cache
    assert "/main/" in calls[1]


def test_check_fails_when_a_committed_output_differs(regenerate, monkeypatch, tmp_path):
    repo = tmp_path / "clone"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "page.md").write_text("as generated\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "generated"], check=True)
    monkeypatch.setattr(regenerate, "ROOT", repo)
    monkeypatch.setattr(regenerate, "run_data", lambda fetch, ref: ([], [], []))
    monkeypatch.setattr(regenerate, "run_docs", lambda: [])
    monkeypatch.setattr(regenerate, "outputs", lambda: ["docs"])
    assert regenerate.main(["--check"]) == 0
    (repo / "docs" / "page.md").write_text("edited by hand\n")
    assert regenerate.main([]) == 0  # without --check: regenerated, nothing compared
    assert regenerate.main(["--check"]) == 1


def test_make_generate_and_generate_check_run_the_entry_point():
    dry = subprocess.run(["make", "-n", "generate-check", "FETCH=1", "REF=main"], cwd=ROOT, capture_output=True)
    assert b"scripts/regenerate.py --check --fetch --ref main" in dry.stdout
    dry = subprocess.run(["make", "-n", "docs"], cwd=ROOT, capture_output=True, text=True)
    assert "scripts/regenerate.py --docs-only" in dry.stdout
