"""`mlplatform --help`, `--version` and argument errors start fast: they import no Pulumi SDK, no settings
model, no rich, no Kubernetes schema (bench/run measures the time: under 0.25 s)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

HEAVY = (
    "pulumi",
    "pulumi_aws",
    "pulumi_eks",
    "pulumi_kubernetes",
    "pulumi_policy",
    "pydantic",
    "rich",
    "yaml",
    "kubernetes_validate",
    "jsonschema",
    "referencing",
)
IMPORTS_AFTER = """
import json, sys
from mlplatform.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1].split(",")))), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["plan", "--help"],
        ["check", "--help"],
        ["place", "--help"],
        ["init", "--help"],
        ["plan", "--bogus"],
        ["bogus"],
        ["plan", "a/b/c/d"],
    ],
)
def test_help_version_and_argument_errors_import_no_sdk(argv):
    proc = subprocess.run(
        [sys.executable, "-c", IMPORTS_AFTER, ",".join(HEAVY), *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == [], proc.stderr
