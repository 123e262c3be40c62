"""`mlplatform schema stack|plan`: the JSON Schema of a stack file (editors, CI validators) or of the plan
document (`mlplatform plan --json`, which the tooling writes from the same typed model); both ship in the wheel
(mlplatform_core/schemas)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK

HELP = "print the JSON Schema of a stack file (stacks/Pulumi.<stack>.yaml) or of the plan document"
DESCRIPTION = (
    "Print a JSON Schema (2020-12). stack: a stack file, generated from the settings model: `config:` with "
    "aws:region and the ml-platform-eks:<key> settings (strict), other namespaces left to their providers. "
    "Editors with yaml-language-server read it from the `# yaml-language-server: $schema=PATH` line at the top "
    "of a stack file (mlplatform init writes both). Checks across settings stay with `mlplatform plan`. plan: "
    "the document of `mlplatform plan STACK --json`, from the typed model the plan is written from (what `diff` "
    "and `check --against` read back); parts that hold a provider's own properties (resource inputs, Kubernetes "
    "objects, chart values) are open, and every part allows keys of another release."
)
EXIT_CODES = {EXIT_OK: "printed or written", EXIT_BAD_INPUT: "an --out it cannot write, bad arguments"}
DOCUMENTS = ("stack", "plan")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("document", choices=DOCUMENTS, help="stack: a stack file; plan: a plan document")
    parser.add_argument("--out", metavar="FILE", help="write the schema into FILE instead of printing it")


def run(args: argparse.Namespace) -> int:
    from mlplatform_core.schemas import plan_schema_text, stack_schema_text

    text = stack_schema_text() if args.document == "stack" else plan_schema_text()
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"--out {args.out}: cannot write it ({err.strerror or err})") from None
    return EXIT_OK
