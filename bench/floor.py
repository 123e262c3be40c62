#!/usr/bin/env python3
"""The SDK floor of a plan: the same imports and registrations as a recorded run, with no program logic.

  floor.py record (--stack NAME | --config-file PATH) OUT.json   run the real program once (through
      mlplatform's engine) and write what it did: every Pulumi SDK module it loaded, and every
      registration in order (type, name, parent, custom/remote, inputs, protect, ignoreChanges,
      provider, dependencies) with the state the mocks answered, and the stack exports.
  floor.py replay RECORDING.json   the floor itself, in a fresh process: import the same SDK modules
      (pulumi, pulumi_aws, pulumi_eks, pulumi_kubernetes: exactly those the real run loaded), then
      register the same resources with the same inputs and options, in the same order, against a mock
      monitor with the same features that answers each registration with the state the run's mocks
      answered. It uses the same public-API collector settings as mlplatform (young generation only
      during the run, gc.freeze after it), and imports nothing of this project.

What a plan costs above the floor is this project's own: reading and validating the stack
(pydantic), the layout, workloads and placement proof, the components' logic, the engine's recording
and the report. Registrations are replayed through the SDK's generic CustomResource /
ComponentResource / ProviderResource with the wire-format inputs, so the generated provider classes'
thin constructors are not in the floor (a slightly lower floor, i.e. a stricter ratio).
Standard library + the Pulumi SDK only; bench/run drives it with the project's .venv.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import sys

SDK_PACKAGES = ("pulumi", "pulumi_aws", "pulumi_eks", "pulumi_kubernetes")


def record(stack: str | None, config_file: str | None, out: str) -> None:
    from mlplatform.plan import build_plan  # only the recording step imports the project

    plan = build_plan(stack, config_file)
    modules = [m for m in list(sys.modules) if m.split(".")[0] in SDK_PACKAGES]
    resources = [
        {
            "type": r.type,
            "name": r.name,
            "urn": r.urn,
            "parent": r.parent,
            "custom": r.custom,
            "remote": r.remote,
            "inputs": r.inputs,
            "state": {**r.inputs, **r.outputs},
            "protect": r.protect,
            "ignoreChanges": r.ignore_changes,
            "provider": r.provider.rsplit("::", 1)[0] if r.provider else None,
            "dependencies": r.dependencies,
        }
        for r in plan.run.resources
    ]
    doc = {"stack": plan.stack, "modules": modules, "resources": resources, "exports": plan.run.public_exports()}
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, default=str)


def replay(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    for name in doc["modules"]:  # the same SDK modules, in the order the real run loaded them
        importlib.import_module(name)

    import pulumi
    from pulumi.runtime import mocks
    from pulumi.runtime.proto import resource_pb2
    from pulumi.runtime.stack import wait_for_rpcs

    answers: dict[tuple[str, str], list[dict]] = {}
    for r in doc["resources"]:
        answers.setdefault((r["type"], r["name"]), []).append(r)

    class ReplayMocks(pulumi.runtime.Mocks):
        def new_resource(self, args):
            r = answers[(args.typ, args.name)].pop(0)
            return f"{r['name']}-id", r["state"]

        def call(self, args):
            return {}

    class Monitor(mocks.MockMonitor):  # the features mlplatform's mock monitor announces
        def SupportsFeature(self, request):
            has = request.id not in ("outputValues", "resourceReferences")
            return type("SupportsFeatureResponse", (object,), {"hasSupport": has})

        def GetDeploymentInfo(self, request):
            info = super().GetDeploymentInfo(request)
            off = resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES
            return resource_pb2.DeploymentInfo(supportedFeatures=[f for f in info.supportedFeatures if f != off])

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    replay_mocks = ReplayMocks()
    project = doc["resources"][0]["urn"].split("::")[1] if doc["resources"] else "project"
    pulumi.runtime.set_mocks(
        replay_mocks, project=project, stack=doc["stack"], preview=False, monitor=Monitor(replay_mocks)
    )
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0] or 700, 10**9, 10**9)
    built: dict[str, pulumi.Resource] = {}
    for r in doc["resources"]:
        deps = [built[d] for d in r["dependencies"] if d in built]
        opts = pulumi.ResourceOptions(
            parent=built.get(r["parent"]) if r["parent"] else None,
            protect=r["protect"] or None,
            ignore_changes=r["ignoreChanges"] or None,
            provider=built.get(r["provider"]) if r["provider"] else None,
            depends_on=deps or None,
        )
        if r["type"].startswith("pulumi:providers:"):
            res = pulumi.ProviderResource(r["type"].split(":")[2], r["name"], r["inputs"], opts)
        elif r["custom"]:
            res = pulumi.CustomResource(r["type"], r["name"], r["inputs"], opts)
        else:
            res = pulumi.ComponentResource(r["type"], r["name"], r["inputs"] if r["remote"] else None, opts, r["remote"])
            if not r["remote"]:
                res.register_outputs({})
        built[r["urn"]] = res
    for key, value in doc["exports"].items():
        pulumi.export(key, value)
    loop.run_until_complete(wait_for_rpcs())
    gc.set_threshold(*thresholds)
    gc.freeze()
    # The floor is only a floor if it did the same work: every recorded registration answered, same imports.
    left = sum(len(v) for v in answers.values())
    missing = [m for m in doc["modules"] if m not in sys.modules]
    if left or missing:
        raise SystemExit(f"floor: {left} recorded registrations not replayed, modules not loaded: {missing[:5]}")


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
