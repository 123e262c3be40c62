"""`mlplatform place`: on which node groups the pods of a manifest can land, with the scheduler's rules."""

from __future__ import annotations

import argparse
import json
import sys

from rich.markup import escape

from mlplatform_core.model.config import read_stack_document
from mlplatform_core.model.validation import validate_stack
from mlplatform_core.placement.filters import place
from mlplatform_core.placement.manifests import MAX_MANIFEST_BYTES, ManifestError, read_manifests

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK
from ..reports.console import make_console
from ..reports.placement import place_document, render_place
from ..stacks import resolve_stack

HELP = "show on which node groups the pods of a manifest can land"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("stack", nargs="?", help="stack name; reads stacks/Pulumi.<stack>.yaml")
    parser.add_argument(
        "-f",
        "--filename",
        required=True,
        metavar="MANIFEST",
        help="YAML with Pods, Deployments, StatefulSets, Jobs, CronJobs, DaemonSets or bare PodSpecs "
        "('-' reads standard input)",
    )
    parser.add_argument(
        "--config-file", metavar="PATH", help="a stack file to use instead of stacks/Pulumi.<stack>.yaml"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")


def _read_text(filename: str) -> str:
    try:
        if filename == "-":
            return sys.stdin.read(MAX_MANIFEST_BYTES + 1)
        with open(filename, encoding="utf-8") as fh:
            return fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ManifestError(f"cannot read {filename}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ManifestError(f"{filename} is not UTF-8 text") from None


def run(args: argparse.Namespace) -> int:
    """Exit 0 when the manifest was placed (even if some pod fits nowhere), 2 on bad input."""
    name, path = resolve_stack(args.stack, args.config_file)
    document = read_stack_document(path)
    valid = validate_stack(document.config, name, str(path), document)
    cfg, layout = valid.config, valid.layout
    try:
        pods = [m.pod() for m in read_manifests(_read_text(args.filename))]
    except ManifestError as err:
        print(f"error: {args.filename}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    results = [place(pod, layout) for pod in pods]
    if args.json:
        print(json.dumps(place_document(results), indent=2))
    else:
        console = make_console()
        console.print(f"[bold]Placement on stack {escape(name)}[/bold] ({cfg.environment}) from {escape(str(path))}\n")
        render_place(results, console)
    return EXIT_OK
