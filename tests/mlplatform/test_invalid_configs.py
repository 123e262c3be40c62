"""The corpus of invalid stack files: every one is refused with exit 2 and a short message naming the key.

Each file in tests/data/invalid_configs/ starts with `# expect: <key path>` (`{file}` stands for the
file's own path as messages show it, relative to the project, for problems with the file as a whole)
and optionally `# message: <text>`, a fragment the explanation must contain. Both `mlplatform plan`
and `mlplatform check` must refuse it the same way: exit code 2, the key and the explanation on
stderr, no traceback, one screen.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mlplatform.cli import main
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "data" / "invalid_configs"
FILES = sorted(CORPUS.glob("*.yaml"))
# Files that cannot carry their expectation in a comment.
SIDE_TABLE = {"01-empty-file.yaml": ("{file}", "is empty")}
SCREEN_LINES, SCREEN_CHARS = 25, 4000


def expectation(path: Path) -> tuple[str, str]:
    if path.name in SIDE_TABLE:
        key, message = SIDE_TABLE[path.name]
    else:
        text = path.read_text(encoding="utf-8")
        found = re.search(r"^# expect: (.+)$", text, re.M)
        assert found, f"{path.name} has no '# expect:' line"
        key = found.group(1).strip()
        hint = re.search(r"^# message: (.+)$", text, re.M)
        message = hint.group(1).strip() if hint else ""
    return key.replace("{file}", path.relative_to(ROOT).as_posix()), message


def assert_clean_refusal(code: int, out: str, err: str, path: Path) -> None:
    key, message = expectation(path)
    assert code == 2, f"exit {code}\n{err}"
    assert "Traceback" not in err and "Traceback" not in out
    assert err.startswith("error: invalid stack configuration"), err
    assert f"{key}:" in err, f"key {key!r} not named in:\n{err}"
    assert message in err, f"{message!r} not in:\n{err}"
    assert len(err.splitlines()) <= SCREEN_LINES and len(err) <= SCREEN_CHARS, f"more than a screen:\n{err}"
    assert out == "", "nothing on stdout when the input is refused"


def test_the_corpus_is_large_and_named():
    assert len(FILES) >= 40
    for path in FILES:
        assert re.match(r"^\d{2,3}-[a-z0-9-]+\.yaml$", path.name), path.name
        expectation(path)


@pytest.mark.parametrize("command", ["plan", "check"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_invalid_config_exits_2_naming_the_key(path: Path, command: str, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = main([command, "--config-file", str(path)])
    captured = capsys.readouterr()
    assert_clean_refusal(code, captured.out, captured.err, path)


@pytest.mark.parametrize("command", ["plan", "check"])
@pytest.mark.parametrize("name", ["06-top-level-typo.yaml", "29-min-greater-than-max.yaml"])
def test_invalid_config_through_the_installed_command(name: str, command: str):
    """The same refusal from a real process: exit status 2 reaches the shell and CI."""
    path = CORPUS / name
    proc = subprocess.run(
        [sys.executable, "-m", "mlplatform", command, "--config-file", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert_clean_refusal(proc.returncode, proc.stdout, proc.stderr, path)


def test_json_mode_refuses_the_same_way(capsys):
    path = CORPUS / "29-min-greater-than-max.yaml"
    code = main(["plan", "--config-file", str(path), "--json"])
    captured = capsys.readouterr()
    assert_clean_refusal(code, captured.out, captured.err, path)
