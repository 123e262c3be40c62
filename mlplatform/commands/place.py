"""`mlplatform place`: on which node groups the pods of a manifest can land, with the scheduler's rules."""

from __future__ import annotations

import argparse
import sys

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from ..stack_names import add_stack_options, stack_argument

HELP = "show on which node groups the pods of a manifest can land"
EXIT_CODES = {
    EXIT_OK: "the manifest was placed, even if a pod fits nowhere or the API server would reject it (read the "
    "verdicts), unless --fail-unplaceable",
    EXIT_FAILED: "with --fail-unplaceable: a pod the API server would reject or no node group can run",
    EXIT_BAD_INPUT: "bad input (invalid configuration, a manifest it cannot read, bad arguments, no project)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "stack", nargs="?", type=stack_argument, help="stack name; reads the project's Pulumi.<stack>.yaml"
    )
    parser.add_argument(
        "-f",
        "--filename",
        required=True,
        metavar="MANIFEST",
        help="YAML with Pods, Deployments, StatefulSets, Jobs, CronJobs, DaemonSets, Lists or bare PodSpecs; "
        "objects without pods (Services, ConfigMaps, ...) are skipped ('-' reads standard input)",
    )
    parser.add_argument(
        "-n",
        "--namespace",
        metavar="NAMESPACE",
        help="namespace of objects that name none, as kubectl apply -n (default: default)",
    )
    add_stack_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "--fail-unplaceable",
        action="store_true",
        help="exit 1 when a pod would be rejected by the API server or fits no node group (for CI)",
    )


def _read_text(filename: str, limit: int) -> str:
    from mlplatform_core.placement.manifests import ManifestError

    try:
        if filename == "-":
            return sys.stdin.read(limit + 1)
        with open(filename, encoding="utf-8") as fh:
            return fh.read(limit + 1)
    except OSError as exc:
        raise ManifestError(f"cannot read {filename}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ManifestError(f"{filename} is not UTF-8 text") from None


def run(args: argparse.Namespace) -> int:
    """Exit 0 when the manifest was placed (even if some pod fits nowhere), 2 on bad input."""
    # The settings model and the scheduler's filters: imported once the command runs (never the Pulumi SDK).
    from rich.markup import escape

    from mlplatform_core.model.config import read_stack_document
    from mlplatform_core.model.validation import validate_stack
    from mlplatform_core.model.workloads import manifests
    from mlplatform_core.placement.admission import ClusterObjects
    from mlplatform_core.placement.filters import place_admitted
    from mlplatform_core.placement.manifests import MAX_MANIFEST_BYTES as limit
    from mlplatform_core.placement.manifests import ManifestError, read_manifest
    from mlplatform_core.placement.templates import node_templates

    from ..documents import shown_path
    from ..plan import project_for
    from ..reports.console import make_console
    from ..reports.json_stream import write_json
    from ..reports.placement import place_document, render_place
    from ..stacks import NAMED_BY_FILE, file_name_note, named_by, resolve_stack

    if args.stack_name is not None and args.stack is not None:
        raise InputError("name the stack once: as STACK or with --stack NAME, not both")
    stack = args.stack_name if args.stack_name is not None else args.stack
    project = project_for(args.project_dir, args.config_file)
    name, path = resolve_stack(project, stack, args.config_file)
    source = shown_path(path, project.root)
    document = read_stack_document(path, source)
    valid = validate_stack(document.config, name, source, document)
    note = file_name_note(name, source) if named_by(stack, args.config_file) == NAMED_BY_FILE else None
    if note and args.json:
        print(f"note: {note}", file=sys.stderr)
    cfg, layout = valid.config, valid.layout
    # The API server admits a pod against the stack's own objects (namespaces, LimitRanges, PriorityClasses).
    cluster = ClusterObjects.from_manifests(manifests(valid.workloads))
    try:
        manifest = read_manifest(_read_text(args.filename, limit))
        admissions = [m.admit(cluster, args.namespace) for m in manifest.pods]
    except ManifestError as err:
        print(f"error: {args.filename}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    templates = node_templates(layout)
    results = [place_admitted(a, templates) for a in admissions]
    notes = [manifest.note] if manifest.note else []
    if args.json:
        write_json(place_document(results, notes, stack=name))
    else:
        console = make_console()
        console.print(f"[bold]Placement on stack {escape(name)}[/bold] ({cfg.environment}) from {escape(source)}")
        if note:
            console.print(f"  [yellow]note[/yellow] {escape(note)}")
        console.print()
        render_place(results, console, notes)
    unplaceable = [r for r in results if r.rejected or not r.reachable]
    return EXIT_FAILED if args.fail_unplaceable and unplaceable else EXIT_OK
