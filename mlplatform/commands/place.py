"""`mlplatform place`: on which node groups the pods of a manifest can land, with the scheduler's rules."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from ..stack_names import add_stack_options, stack_argument

if TYPE_CHECKING:
    from mlplatform_core.placement.filters import PodPlacement
    from mlplatform_core.placement.manifests import ManifestPod

HELP = "show on which node groups the pods of a manifest can land"
_SPOOL_BYTES = 16 * 2**20  # output held in memory up to this, then in a temporary file
EXIT_CODES = {
    EXIT_OK: "the manifest was placed, even if a pod fits nowhere or the API server would reject it (read the "
    "verdicts), unless --fail-unplaceable",
    EXIT_FAILED: "with --fail-unplaceable: a pod the API server would reject or no node group can run",
    EXIT_BAD_INPUT: "bad input (invalid configuration, a manifest it cannot read or with fields the API server "
    "would refuse, bad arguments, no project)",
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
        help="YAML with Pods, Deployments, StatefulSets, Jobs, CronJobs, DaemonSets, Lists or bare PodSpecs, or "
        "operators' workloads (Kubeflow training jobs, KubeRay, JobSet, LeaderWorkerSet, SparkApplication, Dask, "
        "Argo Workflows: each role with its replica count); "
        "every object is first checked against the stack's Kubernetes schema and the API server's validation of "
        "the fields placement reads, as kubectl apply checks it; "
        "objects without pods (Services, ConfigMaps, ...) are skipped and other custom resources noted "
        "('-' reads standard input)",
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


def _open(filename: str) -> IO[str]:
    from mlplatform_core.placement.manifests import ManifestError

    try:
        return sys.stdin if filename == "-" else open(filename, encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"cannot read {filename}: {exc.strerror or exc}") from None


class _Unplaceable:
    """Counts, as the results stream by, the pods that the API server rejects or no group can run."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, results: Iterable[PodPlacement]) -> Iterator[PodPlacement]:
        for result in results:
            self.count += bool(result.rejected or not result.reachable)
            yield result


def finished(manifest_pod: ManifestPod, result: PodPlacement, keys: frozenset[str]) -> PodPlacement:
    """`result` with the replica count of an operator's role, the notes of how its spec was read, and a
    did-you-mean for each toleration or selector key close to one of the stack's own (`keys`)."""
    from mlplatform_core.placement.key_typos import key_warnings

    if typos := key_warnings(result.pod, keys):
        result = dataclasses.replace(
            result, pod=dataclasses.replace(result.pod, warnings=(*result.pod.warnings, *typos))
        )
    if manifest_pod.replicas is None and not manifest_pod.notes:
        return result
    notes = (*manifest_pod.notes, *result.notes)
    return dataclasses.replace(result, replicas=manifest_pod.replicas, notes=notes)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when the manifest was placed (even if some pod fits nowhere, unless --fail-unplaceable), 2 on bad
    input."""
    import shutil
    import tempfile

    name, source, valid, note = _validated_stack(args)
    if note and args.json:
        print(f"note: {note}", file=sys.stderr)
    unplaceable = _Unplaceable()
    # Pods are read, admitted, placed and written one at a time (memory stays flat for any manifest); the output
    # is held in a spool (memory, then a temporary file) until the whole manifest has been read, so a manifest
    # that turns out bad at its last document still prints nothing but the error.
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8") as spool:
        error = _place_into(spool, args, (name, source, note), valid, unplaceable)
        if error is not None:
            print(f"error: {args.filename}: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout)
    return EXIT_FAILED if args.fail_unplaceable and unplaceable.count else EXIT_OK


def _validated_stack(args: argparse.Namespace) -> tuple[str, str, Any, str | None]:
    """The stack's name, its file as shown, the stack validated (charts proven, as plan proves them) and the
    note on a name taken from the file name."""
    # The settings model: imported once the command runs (never the Pulumi SDK).
    from mlplatform_core.model.config import read_stack_document
    from mlplatform_core.model.validation import prove_charts, validate_stack

    from ..documents import shown_path
    from ..plan import project_for
    from ..stacks import NAMED_BY_FILE, file_name_note, named_by, resolve_stack

    if args.stack_name is not None and args.stack is not None:
        raise InputError("name the stack once: as STACK or with --stack NAME, not both")
    stack = args.stack_name if args.stack_name is not None else args.stack
    project = project_for(args.project_dir, args.config_file)
    name, path = resolve_stack(project, stack, args.config_file)
    source = shown_path(path, project.root)
    document = read_stack_document(path, source)
    valid = validate_stack(document.config, name, source, document)
    prove_charts(valid, source, document)  # charts that do not prove are refused, as plan refuses them
    note = file_name_note(name, source) if named_by(stack, args.config_file) == NAMED_BY_FILE else None
    return name, source, valid, note


def _write_report(
    spool: IO[str], as_json: bool, shown: tuple[str, str, str | None], environment: str, results: Any, manifest: Any
) -> None:
    """The placement report, JSON or for people, to `spool` (results are read as it is written)."""
    from rich.markup import escape

    from ..reports.console import make_console
    from ..reports.placement import render_place, write_place_document

    name, source, note = shown

    def notes() -> list[str]:
        return manifest.notes

    if as_json:
        write_place_document(results, notes, name, spool)
        return
    console = make_console(spool)
    console.print(f"[bold]Placement on stack {escape(name)}[/bold] ({environment}) from {escape(source)}")
    if note:
        console.print(f"  [yellow]note[/yellow] {escape(note)}")
    console.print()
    render_place(results, console, notes)


def _place_into(
    spool: IO[str], args: argparse.Namespace, shown: tuple[str, str, str | None], valid: Any, unplaceable: _Unplaceable
) -> str | None:
    """Read, admit and place the manifest's pods, writing the report to `spool`; the error (the manifest cannot
    be read) or None. `shown`: the stack's name, its file as shown and the note on its name."""
    import contextlib

    # The scheduler's filters: imported once the command runs (never the Pulumi SDK).
    from mlplatform_core.model.workloads import manifests
    from mlplatform_core.placement.admission import ClusterObjects
    from mlplatform_core.placement.filters import place_admitted
    from mlplatform_core.placement.key_typos import stack_keys
    from mlplatform_core.placement.manifests import ManifestError, ManifestStream
    from mlplatform_core.placement.queues import place_workloads
    from mlplatform_core.placement.schema import KubernetesSchema
    from mlplatform_core.placement.templates import node_templates

    name, source, note = shown
    cfg, layout, teams = valid.config, valid.layout, valid.teams
    # The API server admits a pod against the stack's own objects (namespaces, LimitRanges, PriorityClasses).
    cluster = ClusterObjects.from_manifests(manifests(valid.workloads))
    templates = node_templates(layout)
    keys = stack_keys(templates)  # the taint and label keys of the stack's nodes, for typos in tolerations
    # Every object is checked against the OpenAPI schema of the stack's minor, then the values placement reads
    # against the API server's validation (placement/validation.py), as kubectl apply would have them checked.
    schema = KubernetesSchema.for_version(cfg.kubernetes_version)
    manifest = None
    try:
        with contextlib.ExitStack() as stack_of_files:
            stream = _open(args.filename)
            if stream is not sys.stdin:
                stack_of_files.enter_context(stream)
            manifest = ManifestStream(stream, schema)
            # Kueue's answer per workload (a stack with teams), then where its pods land (placement/queues.py).
            placed = place_workloads(
                manifest, lambda m: m.admit(cluster, args.namespace), lambda a: place_admitted(a, templates), teams
            )
            results = unplaceable(finished(m, result, keys) for m, result in placed)

            _write_report(spool, args.json, (name, source, note), cfg.environment, results, manifest)
    except UnicodeDecodeError:
        return f"{args.filename} is not UTF-8 text"
    except ManifestError as err:
        return str(manifest.with_problems(err) if manifest else err)
    return None
