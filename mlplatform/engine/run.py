"""Run the Pulumi program in-process under mocks and record what it registers.

No Pulumi CLI, no provider plugins, no cloud account. Every resource the
program registers is recorded with its inputs and options (parent, protect,
ignoreChanges), and the stack outputs are resolved, secrets marked. The mocks
answer with plausible outputs (ids, ARNs, auto-names, an ASG per node group)
so that programs which read outputs run to the end.
"""

from __future__ import annotations

import gc
import runpy
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime.settings import set_root_resource
from pulumi.runtime.stack import wait_for_rpcs
from pulumi.runtime.sync_await import _ensure_event_loop, _sync_await

from mlplatform_core.model.config import PROJECT, REGION_KEY, ConfigError, kubernetes_layer_of, parse, to_pulumi_config
from mlplatform_core.model.deployment import KUBERNETES_DIRECTORY, KUBERNETES_PROJECT, cluster_stack_reference

from ..project import project_root
from .mocks import Mocks
from .monitor import Monitor
from .recording import Invoke, ProgramRun, Recorded, StackRun
from .sdk_shortcuts import sdk_shortcuts

ORGANIZATION = "organization"  # what pulumi.get_organization() answers offline (and on a DIY backend)
_lock = threading.Lock()  # the Pulumi runtime is process-global: one program run at a time
# Set by a process that runs one program and exits (the mlplatform command): the runtime leaves a
# run's objects in reference cycles, and the first collection after the run (then the one at exit)
# would walk all of them, seconds for 500 node groups. Frozen, the collector skips them.
FREEZE_AFTER_RUN = False
_frozen = False  # whether a run left its objects frozen; the next run makes them collectable again


def run_program(
    stack: str,
    raw_config: Mapping[str, Any],
    program: Path | None = None,
    *,
    project: str = PROJECT,
    references: Mapping[str, ProgramRun] | None = None,
) -> ProgramRun:
    """Run the Pulumi program for `stack` with the given stack config mapping (as in Pulumi.<stack>.yaml).

    `program` is the project folder holding __main__.py (default: the project of the working directory),
    `project` its Pulumi project name, `references` the runs StackReferences read, by fully qualified name.
    Run as Pulumi's Python language host runs it: the host passes the entry point (the project folder, ".")
    and its exec shim calls runpy.run_path on it (pulumi/pulumi sdk/python/cmd/pulumi-language-python/main.go,
    `args = append(args, req.Info.EntryPoint)`; sdk/python/cmd/pulumi-language-python-exec), so the folder is
    on sys.path while the program runs and __main__.py imports components/ from it.
    """
    program_dir = program or project_root()
    with _lock:
        local = threading.local()
        record: list[Recorded] = []
        invokes: list[Invoke] = []
        monitor_ref: list = []
        outputs = {name: (dict(run.exports), sorted(run.secret_exports)) for name, run in (references or {}).items()}
        region = str(raw_config.get(REGION_KEY, "us-west-2"))
        mocks = Mocks(region, local, record, monitor_ref, stack_outputs=outputs, invokes=invokes)
        monitor = Monitor(mocks, local)
        monitor_ref.append(monitor)
        set_root_resource(None)  # type: ignore[arg-type]
        pulumi.runtime.set_mocks(
            mocks, project=project, stack=stack, preview=False, monitor=monitor, organization=ORGANIZATION
        )
        pulumi.runtime.set_all_config(to_pulumi_config(raw_config), [])
        # A run allocates a few hundred thousand futures, tasks and protobuf objects that live until it
        # ends. Full collections would rescan them again and again (about half the run time of a stack
        # of 500 node groups); young-generation collections alone still free the short-lived cycles
        # the SDK makes for every registration, and never look at the survivors again.
        global _frozen
        if _frozen:
            gc.unfreeze()
            _frozen = False
            gc.collect()
        thresholds = gc.get_threshold()
        gc.set_threshold(thresholds[0] or 700, 10**9, 10**9)
        try:
            with sdk_shortcuts(_ensure_event_loop()):
                runpy.run_path(str(program_dir), run_name="__main__")
                _sync_await(wait_for_rpcs())
            root = pulumi.runtime.get_root_resource()
            exports: dict[str, Any] = {}
            secrets: set[str] = set()
            for key, value in getattr(root, "outputs", {}).items():
                out = pulumi.Output.from_input(value)
                exports[key] = _sync_await(out.future())
                if _sync_await(out.is_secret()):
                    secrets.add(key)
        finally:
            gc.set_threshold(*thresholds)
            if FREEZE_AFTER_RUN:
                gc.freeze()
                _frozen = True
            pulumi.runtime.set_all_config({}, [])
            set_root_resource(None)  # type: ignore[arg-type]
    return ProgramRun(
        stack=stack,
        config=dict(raw_config),
        resources=record,
        exports=exports,
        secret_exports=secrets,
        project=project,
        directory="." if program is None else program_dir.name,
        invokes=invokes,
    )


def run_stack(stack: str, raw_config: Mapping[str, Any], root: Path | None = None) -> StackRun:
    """Every program `stack` deploys, in order: the cluster program, then kubernetes-layer/ when the stack's
    Kubernetes layer is separate, its StackReference answered with the cluster run's outputs."""
    root = root or project_root()
    cluster = run_program(stack, raw_config, root)
    cluster.directory = "."
    try:
        separate = kubernetes_layer_of(parse(raw_config)) == "separate"
    except ConfigError:  # the program itself refused the settings, so this line is never reached for bad ones
        separate = False
    if not separate:
        return StackRun.of((cluster,))
    reference = cluster_stack_reference(ORGANIZATION, stack)
    kubernetes = run_program(
        stack,
        raw_config,
        root / KUBERNETES_DIRECTORY,
        project=KUBERNETES_PROJECT,
        references={reference: cluster},
    )
    return StackRun.of((cluster, kubernetes))
