"""The command line itself: `--version`, exit codes in `--help`, and `--stack NAME` for a `--config-file`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import mlplatform
from mlplatform.cli import main
from mlplatform.documents import SCHEMA_VERSION
from tests.conftest import ROOT, STACKS
from tests.mlplatform.conftest import EXAMPLES


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_names_the_release_and_the_plan_documents_schema_version():
    """The release (pyproject.toml reads mlplatform.__version__, so pip reports the same: test_wheel checks it on
    a built wheel) and the schema version of the documents: what decides whether a saved plan is a BEFORE."""
    proc = subprocess.run(
        [sys.executable, "-m", "mlplatform", "--version"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"mlplatform {mlplatform.__version__} (plan document schema {SCHEMA_VERSION})\n"
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", mlplatform.__version__)  # semantic


@pytest.mark.parametrize(
    ("argv", "codes"),
    [
        ([], {"0 success", "1 the command ran and found a failure", "2 bad input"}),
        (["plan"], {"0 the plan was made", "2 bad input"}),
        (["check"], {"0 every stack passed", "1 a mandatory violation", "2 bad input"}),
        (["place"], {"0 the manifest was placed", "2 bad input"}),
    ],
)
def test_help_lists_the_exit_codes(argv, codes, capsys):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the epilog
    assert "exit codes:" in text
    for code in codes:
        assert code in text, code


def copy_of_dev(tmp_path, name: str = "Pulumi.copy.yaml"):
    path = tmp_path / name
    path.write_text((STACKS / "Pulumi.dev.yaml").read_text())
    return path


def test_stack_names_the_stack_of_a_config_file(tmp_path, capsys):
    path = copy_of_dev(tmp_path, "some-file.yaml")
    code, out, err = run_cli(capsys, "plan", "--config-file", str(path), "--stack", "research", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["stack"] == "research" and doc["stackNamedBy"] == "argument" and err == ""
    assert doc["clusterName"] == "mlp-research"
    assert doc["deployment"]["clusterStackReference"] == "<organization>/ml-platform-eks/research"
    assert doc["exports"]["clusterStack"].endswith("/ml-platform-eks/research")
    assert "pulumi up --stack research --cwd ." in {p["command"] for p in doc["deployment"]["programs"]}


def test_stack_picks_the_policy_config(tmp_path, capsys):
    path = copy_of_dev(tmp_path)
    code, out, _ = run_cli(capsys, "check", "--config-file", str(path), "--stack", "dev", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["policyConfig"] == "policies/config/dev.json"
    assert {r["name"]: r["level"] for r in doc["rules"]}["eks-endpoint-private"] == "advisory"  # dev's relaxation
    code, out, _ = run_cli(capsys, "check", "--config-file", str(path), "--json")  # named "copy": no policy config
    assert code == 0 and json.loads(out)["policyConfig"] is None


def test_a_name_from_the_file_name_is_said(tmp_path, capsys):
    path = copy_of_dev(tmp_path, "Pulumi.research.yaml")
    said = "stack name 'research' taken from the file name Pulumi.research.yaml"
    for command in (["plan"], ["check"], ["place", "-f", str(EXAMPLES / "mlrun-jobs.yaml")]):
        code, out, err = run_cli(capsys, *command, "--config-file", str(path))
        assert code == 0, err
        assert said in " ".join(out.split()) and "--stack NAME" in out, command
        code, out, err = run_cli(capsys, *command, "--config-file", str(path), "--json")
        assert code == 0 and said in err and json.loads(out)["stack"] == "research", command
    code, out, _ = run_cli(capsys, "plan", "--config-file", str(path), "--json")
    assert json.loads(out)["stackNamedBy"] == "fileName"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("team a", "'team a' is not a Pulumi stack name: 1 to 100 letters, digits, '-', '_' or '.'"),
        ("dév", "'dév' is not a Pulumi stack name"),
        ("x" * 101, f"{'x' * 101!r} is not a Pulumi stack name"),
        ("", "'' is not a Pulumi stack name"),
        ("a/b/c/d", "'a/b/c/d' has 4 parts; Pulumi names a stack STACK, ORG/STACK or ORG/PROJECT/STACK"),
        ("org/pro ject/dev", "'pro ject' in 'org/pro ject/dev' is not a Pulumi project name"),
        ("org/dev!", "'dev!' is not a Pulumi stack name"),
    ],
)
def test_a_bad_stack_name_exits_2_naming_option_and_value(name, why, tmp_path, capsys):
    path = copy_of_dev(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["plan", "--config-file", str(path), "--stack", name])
    assert info.value.code == 2
    assert f"argument --stack: {why}" in capsys.readouterr().err


def test_stack_without_config_file_is_the_stack_argument(capsys):
    code, out, _ = run_cli(capsys, "plan", "--stack", "prod", "--json")
    assert code == 0 and json.loads(out)["clusterName"] == "mlp-prod"
    code, _, err = run_cli(capsys, "plan", "dev", "--stack", "prod")
    assert code == 2 and "name the stack once: as STACK or with --stack NAME" in err
    code, _, err = run_cli(capsys, "check", "--all", "--stack", "prod")
    assert code == 2 and "--all runs every stack" in err
