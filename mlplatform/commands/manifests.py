"""`mlplatform manifests`: every Kubernetes object a stack deploys, as YAML files a scanner reads (`make scan`).

Per stack, into OUT/<stack>/: `objects.yaml`, the toolkit's own objects (priority classes, namespaces, limit
ranges, config maps, Karpenter's custom resources, as the offline plan records them), and one file per Helm
release as its chart renders: for a shipped stack the committed rendering (tests/data/rendered, made by
scripts/generators/render_charts.py with helm; refused when the stack's values or chart versions moved since), for any
other stack `helm template` with `--helm PATH` (reads the chart repositories), else the charts are left out
with a note.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlplatform_core.errors import InputError

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK
from ..stack_names import add_project_option, stack_argument

if TYPE_CHECKING:
    from mlplatform_core.model.addons.releases import Release

    from ..project import Project

HELP = "write every Kubernetes object a stack deploys (its objects and its charts as rendered) for a scanner"
EXIT_CODES = {
    EXIT_OK: "written",
    EXIT_BAD_INPUT: "bad input (invalid configuration, stale renderings, a --helm that is not a program or whose "
    "`helm template` fails, an --out that is not a folder, bad arguments)",
}
RENDERED = Path("tests") / "data" / "rendered"


class StaleRendering(InputError):
    """A committed rendering whose values or chart version no longer match the stack's."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "stacks", nargs="*", metavar="STACK", type=stack_argument, help="stack names (the project's stack files)"
    )
    parser.add_argument("--all", action="store_true", help="every stack of the project")
    parser.add_argument(
        "--config-file",
        action="append",
        default=[],
        metavar="PATH",
        help="a stack file outside the project's stacks (named after the file); repeatable",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write <stack>/*.yaml into")
    parser.add_argument("--helm", metavar="PATH", help="a helm binary to render the charts of stacks not shipped")
    add_project_option(parser)


def values_hash(values: Any) -> str:
    """The hash scripts/generators/render_charts.py records a rendering's values with."""
    text = json.dumps(json.loads(json.dumps(values)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _committed(root: Path, stack: str, release: Release) -> Path | None:
    """The committed rendering of the release, if it is of these values and this chart version."""
    index = root / RENDERED / "index.json"
    if not index.is_file():
        return None
    entry = json.loads(index.read_text()).get("stacks", {}).get(stack, {}).get(release.name)
    if entry is None:
        return None
    if entry["version"] != release.chart.version or entry["valuesSha256"] != values_hash(release.values):
        raise StaleRendering(
            f"{stack}: the committed rendering of {release.name} is stale; run scripts/generators/render_charts.py"
        )
    return root / RENDERED / stack / f"{release.name}.yaml"


def _helm_template(helm: str, release: Release, kube: str) -> str:
    chart = release.chart
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(json.loads(json.dumps(release.values)), f)
        f.flush()
        ref = [f"{chart.repo}/{chart.name}"] if chart.oci else [chart.name, "--repo", chart.repo]
        cmd = [helm, "template", release.name, *ref, "--version", chart.version, "-n", chart.namespace, "-f", f.name]
        try:
            done = subprocess.run(cmd + ["--kube-version", f"{kube}.0"], check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as err:  # e.g. a chart repository it cannot reach
            raise InputError(
                f"helm template of chart {chart.name} {chart.version} ({chart.repo}) failed: {err.stderr.strip()}"
            ) from None
        return done.stdout


def write_stack(stack: str, path: Path, out: Path, helm: str | None, project: Project) -> list[str]:
    """The stack's files; the notes of what was left out."""
    # The settings model, the engine and YAML: imported once the command runs (--help stays light).
    import yaml

    from mlplatform_core.model.addons.kueue import kueue_release
    from mlplatform_core.model.addons.releases import DeployTimeValues, stack_releases
    from mlplatform_core.model.config import read_stack_document
    from mlplatform_core.model.validation import prove_charts, validate_stack

    from ..documents import shown_path
    from ..engine import run_stack
    from ..reports.workload_layer import kubernetes_section

    root = project.root
    shown = shown_path(path, root)  # as plan and check name the stack file
    document = read_stack_document(path, shown)
    valid = validate_stack(document.config, stack, shown, document)
    prove_charts(valid, shown, document)  # charts that do not prove are refused, as plan refuses them
    cfg, layout = valid.config, valid.layout
    at_deploy = DeployTimeValues(cfg.region, cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas)
    # Charts first: a stale committed rendering is refused before the (slower) program run.
    charts: dict[str, str] = {}
    notes = []
    # A stack with teams installs Kueue too (model/addons/kueue.py).
    team_release = kueue_release(layout, valid.teams, cfg.image_registry)
    for release in (*stack_releases(layout, at_deploy), *([team_release] if team_release else [])):
        if release.chart.name == "karpenter-crd":
            continue  # CustomResourceDefinitions only: nothing a scanner checks
        committed = _committed(root, stack, release)
        if committed is not None:
            charts[release.name] = committed.read_text()
        elif helm:
            charts[release.name] = _helm_template(helm, release, cfg.kubernetes_version)
        else:
            notes.append(f"{stack}: chart {release.chart.name} {release.chart.version} left out (give --helm PATH)")
    target = out / stack
    target.mkdir(parents=True, exist_ok=True)
    objects = kubernetes_section(run_stack(stack, document.config, project)).objects
    (target / "objects.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))
    for name, text in charts.items():
        (target / f"{name}.yaml").write_text(text)
    return notes


def run(args: argparse.Namespace) -> int:
    from ..project import find_project
    from ..stacks import resolve_stack, select_stacks

    project = find_project(args.project_dir)
    assert project is not None
    if not args.stacks and not args.all and not args.config_file:
        raise InputError("name a stack (e.g. dev), give --all or --config-file PATH")
    names = []
    if args.stacks or args.all:
        names = [t.stack for t in select_stacks(project, args.stacks, None, args.all)]  # as plan and check take them
    helm = args.helm
    if helm is not None and not (Path(helm).is_file() and os.access(helm, os.X_OK)):
        raise InputError(f"--helm {helm}: not an executable file; give the path of a helm binary")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file, not a folder; give a folder to write <stack>/*.yaml into")
    stacks = [resolve_stack(project, stack, None) for stack in names]  # every name is bad input before any runs
    stacks += [resolve_stack(project, None, path) for path in args.config_file]
    for name, path in stacks:
        try:
            notes = write_stack(name, path, out, helm, project)
        except OSError as err:  # the folder cannot be written
            raise InputError(f"--out {out}: cannot write {err.filename}: {err.strerror or err}") from None
        for note in notes:
            print(note, file=sys.stderr)
    print(f"wrote {', '.join(name for name, _ in stacks)} into {out}")
    return EXIT_OK
