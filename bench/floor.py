#!/usr/bin/env python3
"""The SDK floor of a plan: the same imports, registrations and invokes as a recorded run, through the public
Pulumi SDK alone.

  floor.py record (--stack NAME | --config-file PATH) OUT.json   run the real program once (through
      mlplatform's engine) and write what it did: every Pulumi SDK module it loaded, and for each program
      the stack deploys every registration in order (type, name, parent, custom/remote, inputs, protect,
      ignoreChanges, provider, dependencies) with the outputs the mocks answered, every invoke with its
      result, its exports and what its StackReferences read.
  floor.py replay RECORDING.json   the floor itself, in a fresh process: import the same SDK modules
      (pulumi, pulumi_aws, pulumi_eks, pulumi_kubernetes: exactly those the real run loaded), then for each
      program set the SDK's own mocks (pulumi.runtime.set_mocks with a Mocks that answers the recorded
      outputs) and, as a unit test of the SDK does (@pulumi.runtime.test), make the same invokes and register
      the same resources with the same inputs and options in the same order. Nothing of this project is
      imported: not its engine (mocks, monitor, pulumi-eks model, recording, collector settings, pump), not
      its settings model, layout, placement, program or reports.

What a plan costs above the floor is this project's own: its engine, reading and validating the stack, the
layout, workloads and placement proof, the components' logic and the report. Registrations go through the
SDK's generic CustomResource / ComponentResource / ProviderResource with the wire-format inputs, so the
generated provider classes' thin constructors are not in the floor (a slightly lower floor, i.e. a stricter
ratio); a remote component's children, which the engine's pulumi-eks model builds, are not registered.
bench/run drives it with the project's .venv.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import sys

SDK_PACKAGES = ("pulumi", "pulumi_aws", "pulumi_eks", "pulumi_kubernetes")
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
            "outputs": r.outputs,  # what the mocks answered: the floor's mocks answer the same
        }
        for r in run.resources
    ]
    invokes = [{"token": i.token, "args": i.args, "result": i.result} for i in run.invokes]
    return {
        "project": run.project,
        "resources": resources,
        "invokes": invokes,
        "exports": run.exports,
        "references": references,
    }


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


def _invoke_key(token: str, args: dict) -> tuple[str, str]:
    return token, json.dumps(args, sort_keys=True, default=str)


def _mocks(program: dict):
    """The SDK's Mocks answering each registration and invoke with what the real run's mocks answered."""
    import pulumi

    outputs = {(r["type"], r["name"]): r["outputs"] for r in program["resources"]}
    results = {_invoke_key(i["token"], i["args"]): i["result"] for i in program["invokes"]}

    class ReplayMocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs):
            return f"{args.name}-id", {**args.inputs, **outputs.get((args.typ, args.name), {})}

        def call(self, args: pulumi.runtime.MockCallArgs):
            return results.get(_invoke_key(args.token, args.args), {})

    return ReplayMocks()


def replay_program(program: dict) -> list[tuple[str, object]]:
    """One program's invokes and registrations, in order, with their options; then its exports."""
    import pulumi

    for invoke in program["invokes"]:
        pulumi.runtime.invoke(invoke["token"], invoke["args"])
    built: dict[str, pulumi.Resource] = {}
    for r in program["resources"]:
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
    for key, value in program["exports"].items():
        pulumi.export(key, value)
    names = {urn: urn.rsplit("::", 1)[-1] for urn in built}  # the resource's name ends its URN
    return [(names[urn], res) for urn, res in built.items()]


def project_modules(modules) -> list[str]:
    """This project's own modules (engine, settings model, layout, placement, components) among `modules`."""
    roots = {"mlplatform", "mlplatform_core", "mlplatform_program", "mlplatform_policies", "pydantic"}
    return sorted(m for m in modules if m.split(".")[0] in roots)


def replay(path: str, collector: bool = False) -> None:
    """`collector`: with the collector settings the engine uses (young-generation collections only during a
    run, gc.freeze after it; public Python APIs a program could use too), to see the engine's cost apart."""
    with open(path, encoding="utf-8") as fh:
        RECORDING.update(json.load(fh))
    for name in RECORDING["modules"]:  # the same SDK modules, in the order the real run loaded them
        importlib.import_module(name)
    import pulumi

    replayed, recorded = [], []
    for program in RECORDING["programs"]:  # one run per program, as the plan runs them
        pulumi.runtime.set_mocks(_mocks(program), project=program["project"], stack=RECORDING["stack"], preview=False)
        done: list = []

        @pulumi.runtime.test
        def run(program=program, done=done):
            done.extend(replay_program(program))
            return pulumi.Output.all(*(r.urn for _, r in done))  # every registration answered

        if collector:
            thresholds = gc.get_threshold()
            gc.set_threshold(thresholds[0] or 700, 10**9, 10**9)
        try:
            run()
        finally:
            if collector:
                gc.set_threshold(*thresholds)
                gc.freeze()
        replayed += [(name, program["project"]) for name, _ in done]
        recorded += [(r["name"], program["project"]) for r in program["resources"] if not r["createdBy"]]
    # The floor is only a floor if it did the same work: every registration replayed, same imports.
    missing = [m for m in RECORDING["modules"] if m not in sys.modules]
    if replayed != recorded or missing:
        raise SystemExit(
            f"floor: replay differs from the recording ({len(replayed)} vs {len(recorded)} "
            f"registrations), modules not loaded: {missing[:5]}"
        )
    leaked = project_modules(sys.modules)
    if leaked:
        raise SystemExit(f"floor: imported this project's code: {leaked}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record", help="run the real program once and write the recording")
    rec.add_argument("--stack")
    rec.add_argument("--config-file")
    rec.add_argument("out")
    rep = sub.add_parser("replay", help="the floor: replay a recording in this process")
    rep.add_argument("recording")
    rep.add_argument(
        "--collector", action="store_true", help="with the engine's collector settings (young collections, freeze)"
    )
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.stack, args.config_file, args.out)
    else:
        replay(args.recording, args.collector)
    return 0


if __name__ == "__main__":
    sys.exit(main())
