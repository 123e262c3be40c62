#!/usr/bin/env python3
"""The SDK floor of a plan: the same imports and registrations as a recorded run, with no program logic.

  floor.py record (--stack NAME | --config-file PATH) OUT.json   run the real program once (through
      mlplatform's engine) and write what it did: every Pulumi SDK module it loaded, and every
      registration of each program the stack deploys, in order (type, name, parent, custom/remote,
      inputs, protect, ignoreChanges, provider, dependencies), its exports and what its
      StackReferences read.
  floor.py replay RECORDING.json   the floor itself, in a fresh process: import the same SDK modules
      (pulumi, pulumi_aws, pulumi_eks, pulumi_kubernetes: exactly those the real run loaded), then, as
      each program, register the same resources with the same inputs and options in the same order,
      one run per program as the plan does, through the same engine: the same mocks and mock monitor
      (mlplatform.engine.execute), the same collector settings, freeze and pump. Nothing else of the
      project is imported: no settings model (pydantic), layout, placement, program or reports.

What a plan costs above the floor is this project's own: reading and validating the stack, the layout,
workloads and placement proof, the components' logic and the report. Registrations are replayed through
the SDK's generic CustomResource / ComponentResource / ProviderResource with the wire-format inputs, so
the generated provider classes' thin constructors are not in the floor (a slightly lower floor, i.e. a
stricter ratio). bench/run drives it with the project's .venv.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from pathlib import Path

SDK_PACKAGES = ("pulumi", "pulumi_aws", "pulumi_eks", "pulumi_kubernetes")
STATE_MODULE = "mlplatform_bench_floor"  # where the replay program finds this module (runpy swaps __main__)
REPLAY_PROGRAM = f"import sys\nsys.modules[{STATE_MODULE!r}].replay_registrations()\n"
RECORDING: dict = {}


def _program(run, references: dict, sent: dict) -> dict:
    """One program's recording: its registrations in order, its exports, the StackReferences it read."""
    from importlib.metadata import version

    resources = [
        {
            "type": r.type,
            "name": r.name,
            "urn": r.urn,
            "parent": r.parent,
            "custom": r.custom,
            "remote": r.remote,
            "inputs": sent.get(r.urn, r.inputs),
            "protect": r.protect,
            "ignoreChanges": r.ignore_changes,
            "provider": r.provider.rsplit("::", 1)[0] if r.provider else None,
            "dependencies": r.dependencies,
            "createdBy": r.created_by,  # built by a remote component's provider: the replay does not send it
            # a remote component names its provider plugin's version (pulumi_eks: the engine models some)
            "version": version(f"pulumi_{r.type.split(':')[0]}") if r.remote else None,
        }
        for r in run.resources
    ]
    return {"project": run.project, "resources": resources, "exports": run.exports, "references": references}


def record(stack: str | None, config_file: str | None, out: str) -> None:
    from mlplatform.engine import remote
    from mlplatform.engine.recording import clean
    from mlplatform.engine.run import ORGANIZATION
    from mlplatform.plan import build_plan  # only the recording step imports the project's model

    # A remote component is recorded as the engine's state sees it (pulumi-eks sends no properties);
    # the replay must send what the program sent, so keep those inputs by URN while recording.
    sent: dict[str, dict] = {}
    model_record = remote.record

    def keep_sent(request, inputs, **kw):
        sent[kw["urn"]] = clean(dict(inputs))
        return model_record(request, inputs, **kw)

    remote.record = keep_sent
    try:
        plan = build_plan(stack, config_file)
    finally:
        remote.record = model_record
    modules = [m for m in list(sys.modules) if m.split(".")[0] in SDK_PACKAGES]
    programs, before = [], {}
    for run in plan.run.programs:  # each program is its own `pulumi up`, reading the ones before it
        programs.append(_program(run, dict(before), sent))
        before[f"{ORGANIZATION}/{run.project}/{plan.stack}"] = run.exports
    doc = {
        "stack": plan.stack,
        "region": str(plan.run.config.get("aws:region", "us-east-1")),
        "modules": modules,
        "programs": programs,
    }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, default=str)


def replay_registrations() -> None:
    """The replay program: every recorded registration, in order, with its options; then the exports."""
    import pulumi

    built: dict[str, pulumi.Resource] = {}
    for r in RECORDING["program"]["resources"]:
        if r["createdBy"]:
            continue
        deps = [built[d] for d in r["dependencies"] if d in built]
        opts = pulumi.ResourceOptions(
            parent=built.get(r["parent"]) if r["parent"] else None,
            protect=r["protect"] or None,
            ignore_changes=r["ignoreChanges"] or None,
            provider=built.get(r["provider"]) if r["provider"] else None,
            depends_on=deps or None,
            version=r.get("version"),
        )
        if r["type"].startswith("pulumi:providers:"):
            res = pulumi.ProviderResource(r["type"].split(":")[2], r["name"], r["inputs"], opts)
        elif r["custom"]:
            res = pulumi.CustomResource(r["type"], r["name"], r["inputs"], opts)
        else:
            props = r["inputs"] if r["remote"] else None
            res = pulumi.ComponentResource(r["type"], r["name"], props, opts, r["remote"])
            if not r["remote"]:
                res.register_outputs({})
        built[r["urn"]] = res
    for key, value in RECORDING["program"]["exports"].items():
        pulumi.export(key, value)


# The engine itself reads the AWS region list (its pulumi-eks model answers aws.getPartition from it, as
# the provider does from the AWS SDK's data): data, not program logic, so the floor may load it.
ENGINE_DATA = {"mlplatform_core", "mlplatform_core.model", "mlplatform_core.model.regions"}


def program_logic(modules) -> list[str]:
    """The project's own modules (settings model, layout, placement, components) among `modules`."""
    roots = {"mlplatform_core", "pydantic", "mlplatform_program"}
    return sorted(m for m in modules if m.split(".")[0] in roots and m not in ENGINE_DATA)


def replay(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        RECORDING.update(json.load(fh))
    for name in RECORDING["modules"]:  # the same SDK modules, in the order the real run loaded them
        importlib.import_module(name)
    from mlplatform.engine import run as engine  # the same mocks, monitor, collector settings and pump
    from mlplatform.engine.recording import ProgramRun

    engine.FREEZER.enabled = True  # as the mlplatform command does
    sys.modules[STATE_MODULE] = sys.modules[__name__]
    replayed, recorded = [], []
    for program in RECORDING["programs"]:  # one run per program, as the plan runs them
        RECORDING["program"] = program
        references = {
            name: ProgramRun(RECORDING["stack"], {}, [], exports, set())
            for name, exports in program["references"].items()
        }
        with tempfile.TemporaryDirectory(prefix="mlplatform-floor-") as folder:
            (Path(folder) / "__main__.py").write_text(REPLAY_PROGRAM)
            run = engine.execute(
                RECORDING["stack"], {}, program["project"], RECORDING["region"], Path(folder), references=references
            )
        replayed += [(r.type, r.name, r.parent) for r in run.resources]
        recorded += [(r["type"], r["name"], r["parent"]) for r in program["resources"]]
    # The floor is only a floor if it did the same work: every registration replayed, same imports.
    missing = [m for m in RECORDING["modules"] if m not in sys.modules]
    if replayed != recorded or missing:
        raise SystemExit(
            f"floor: replay differs from the recording ({len(replayed)} vs {len(recorded)} "
            f"registrations), modules not loaded: {missing[:5]}"
        )
    leaked = program_logic(sys.modules)
    if leaked:
        raise SystemExit(f"floor: imported program logic: {leaked}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="run the real program once and write the recording")
    rec.add_argument("--stack")
    rec.add_argument("--config-file")
    rec.add_argument("out")
    rep = sub.add_parser("replay", help="the floor: replay a recording in this process")
    rep.add_argument("recording")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.stack, args.config_file, args.out)
    else:
        replay(args.recording)
    return 0


if __name__ == "__main__":
    sys.exit(main())
