"""Exit codes that mean one thing, per command: 0 ok, 1 a failure found, 2 bad input, 3 a bug (one line, the
traceback in a file); a reader that closes the pipe ends the command without a traceback (141, never 1)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import mlplatform.plan
import mlplatform.scaffold
from mlplatform.cli import main
from tests.conftest import ROOT
from tests.mlplatform.conftest import DATA, EXAMPLES

INTERNAL = re.compile(
    r"^mlplatform: internal error \(a bug in mlplatform [^)]+, not in your input\): RuntimeError: boom; "
    r"the traceback is in (\S+); please report it with that file$"
)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def boom(*args, **kwargs):
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("argv", "patch"),
    [
        (["plan", "dev"], (mlplatform.plan, "build_plan")),
        (["check", "dev", "--json"], (mlplatform.plan, "build_plan")),
        (["place", "dev", "-f", str(EXAMPLES / "mlrun-jobs.yaml")], (mlplatform.plan, "project_for")),
        (["init", "somewhere"], (mlplatform.scaffold, "write_project")),
    ],
)
def test_an_internal_error_exits_3_with_one_line_and_the_traceback_in_a_file(argv, patch, capsys, monkeypatch):
    monkeypatch.setattr(*patch, boom)
    code, _, err = run_cli(capsys, *argv)
    assert code == 3
    (line,) = err.splitlines()
    match = INTERNAL.match(line)
    assert match, line
    report = Path(match.group(1)).read_text()
    assert "Traceback (most recent call last)" in report and "RuntimeError: boom" in report
    Path(match.group(1)).unlink()


def test_place_exits_1_for_an_unplaceable_pod_only_when_asked(capsys):
    manifest = str(EXAMPLES / "oversized-statefulset.yaml")
    assert run_cli(capsys, "place", "dev", "-f", manifest)[0] == 0
    assert run_cli(capsys, "place", "dev", "-f", manifest, "--fail-unplaceable")[0] == 1
    assert run_cli(capsys, "place", "dev", "-f", str(EXAMPLES / "gpu-training.yaml"), "--fail-unplaceable")[0] == 0
    code, _, err = run_cli(capsys, "place", "dev", "-f", str(DATA / "no-such-file.yaml"))
    assert code == 2 and "cannot read" in err


def test_init_exits_2_on_bad_input(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: mine\n")
    code, _, err = run_cli(capsys, "init", str(tmp_path))  # a project there already: named, never overwritten
    assert code == 2 and f"{tmp_path} holds the Pulumi project 'mine' ({tmp_path / 'Pulumi.yaml'})" in err
    assert (tmp_path / "Pulumi.yaml").read_text() == "name: mine\n"
    code, _, err = run_cli(capsys, "init", str(tmp_path), "--allow-nested")
    assert code == 2 and "already has Pulumi.yaml" in err and "never overwrites" in err
    assert (tmp_path / "Pulumi.yaml").read_text() == "name: mine\n"
    (tmp_path / "Pulumi.yaml").unlink()
    code, _, err = run_cli(capsys, "init", str(tmp_path / "x"), "--name", "no spaces")
    assert code == 2 and "--name 'no spaces' is not a Pulumi project name" in err
    code, _, err = run_cli(capsys, "init", str(tmp_path / "x"), "--region", "Oregon")
    assert code == 2 and "--region 'Oregon'" in err and "us-west-2" in err
    assert not (tmp_path / "x").exists()  # refused before anything was written


def test_format_and_json_together_mean_one_thing(capsys):
    code, _, err = run_cli(capsys, "plan", "dev", "--json", "--format", "markdown")
    assert code == 2 and "--json is --format json" in err


def test_a_closed_pipe_ends_the_command_without_a_traceback():
    """`mlplatform plan dev --json | head -1`: a shell reports 141 for a tool the closed pipe stopped."""
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {sys.executable} -m mlplatform plan dev --json | head -1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.stdout == "{\n"
    assert proc.returncode in (0, 141) and "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


def test_the_help_lists_every_exit_code_of_every_command(capsys):
    for argv in ([], ["plan"], ["check"], ["place"], ["init"]):
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "2 bad input" in text and "3 internal error, a bug in mlplatform" in text, argv
