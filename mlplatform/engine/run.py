"""Run the Pulumi program in-process under mocks and record what it registers.

No Pulumi CLI, no provider plugins, no cloud account. Every resource the
program registers is recorded with its inputs and options (parent, protect,
ignoreChanges), and the stack outputs are resolved, secrets marked. The mocks
answer with plausible outputs (ids, ARNs, auto-names, an ASG per node group)
so that programs which read outputs run to the end.
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pulumi

from mlplatform_core.errors import InputError

from ..project import Project, project_root
from .collector_and_pump import Freezer, Pump, young_collections_only
from .mocks import Mocks
from .ordering import ConstructionOrder
from .pulumi_internals import Monitor, drop_leftover_outputs, reset_root_resource, wait_for_registrations
from .recording import Invoke, ProgramRun, Recorded, StackRun

CONFIG_ENV = "PULUMI_CONFIG"
ORGANIZATION = "organization"  # what pulumi.get_organization() answers offline (and on a DIY backend)
_lock = threading.Lock()  # the Pulumi runtime is process-global: one program run at a time
# The mlplatform command enables it: it runs its programs and exits (see Freezer).
FREEZER = Freezer()


def _event_loop() -> asyncio.AbstractEventLoop:
    """The thread's event loop, the one the SDK schedules its registrations on (created if there is none)."""
    with warnings.catch_warnings():  # Python 3.12+ warns when get_event_loop creates the loop itself
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # Python 3.14+: no implicit loop
            loop = None
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
    return loop


def run_program(
    stack: str,
    raw_config: Mapping[str, Any],
    program: Path | None = None,
    *,
    project: str | None = None,
    references: Mapping[str, ProgramRun] | None = None,
    pump: bool = True,
) -> ProgramRun:
    """Run the Pulumi program for `stack` with the given stack config mapping (as in Pulumi.<stack>.yaml).

    `program` is the project folder holding __main__.py (default: the project of the working directory),
    `project` its Pulumi project name (default: the cluster program's), `references` the runs StackReferences
    read, by fully qualified name. `pump=False` runs without the Pump (same recording, more memory: tests
    compare the two).
    """
    # Imported here, not at the top: the engine itself stays importable without the settings model
    # (pydantic), so that bench/floor.py can run replays through the very same engine.
    from mlplatform_core.model.config import PROJECT, REGION_KEY, to_pulumi_config

    run = execute(
        stack,
        to_pulumi_config(raw_config),
        project=project or PROJECT,
        region=str(raw_config.get(REGION_KEY, "us-west-2")),
        program=program or project_root(),
        raw_config=raw_config,
        references=references,
        pump=pump,
    )
    run.directory = "." if program is None else program.name
    return run


def run_stack(
    stack: str,
    raw_config: Mapping[str, Any],
    root: Path | Project | None = None,
    *,
    pump: bool = True,
    separate: bool | None = None,
) -> StackRun:
    """Every program `stack` deploys, in order: the cluster program, then the Kubernetes layer when the stack's
    Kubernetes layer is separate, its StackReference answered with the cluster run's outputs.

    `root` is a Project (its programs under their own project names) or a folder laid out as this
    repository (its kubernetes-layer/, the default project names); default: the working directory's project.
    `separate`: whether the Kubernetes layer is separate, when the caller has validated the settings already.
    """
    from mlplatform_core.model.config import PROJECT, ConfigError, kubernetes_layer_of, parse
    from mlplatform_core.model.deployment import KUBERNETES_DIRECTORY, KUBERNETES_PROJECT, cluster_stack_reference

    if isinstance(root, Project):
        cluster_dir, cluster_project = root.cluster.run_path, root.name
        layer = root.kubernetes_layer
        layer_dir, layer_project = (layer.run_path, layer.name) if layer else (None, KUBERNETES_PROJECT)
    else:
        cluster_dir, cluster_project = root or project_root(), PROJECT
        layer_dir, layer_project = cluster_dir / KUBERNETES_DIRECTORY, KUBERNETES_PROJECT
    cluster = run_program(stack, raw_config, cluster_dir, project=cluster_project, pump=pump)
    cluster.directory = "."
    if separate is None:
        try:
            separate = kubernetes_layer_of(parse(raw_config)) == "separate"
        except ConfigError:  # the program itself refused the settings, so this line is never reached for bad ones
            separate = False
    if not separate or layer_dir is None:
        return StackRun.of((cluster,))
    reference = cluster_stack_reference(ORGANIZATION, stack, cluster_project)
    kubernetes = run_program(
        stack,
        raw_config,
        layer_dir,
        project=layer_project,
        references={reference: cluster},
        pump=pump,
    )
    kubernetes.directory = KUBERNETES_DIRECTORY
    return StackRun.of((cluster, kubernetes))


def _input_error_in(err: BaseException) -> InputError | None:
    """The user's error a program raised inside an apply (e.g. a node group's availabilityZone with no subnet of
    the stack), under the SDK's "While processing input" wrappers (pulumi/runtime/rpc.py serialize_properties,
    resource.py do_register: `raise ValueError(...) from e`): `pulumi up` stops with its message, so the plan
    reports it as input (exit 2), not as a bug of the toolkit."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, InputError):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _install_mocks(
    stack: str,
    project: str,
    region: str,
    references: Mapping[str, ProgramRun] | None,
    record: list[Recorded],
    invokes: list[Invoke],
) -> None:
    """Fresh mocks and monitor for one run, recording its registrations in `record` and its invokes in
    `invokes`; `references`: the stacks its StackReferences read."""
    local = threading.local()
    monitor_ref: list = []
    outputs = {name: (dict(run.exports), sorted(run.secret_exports)) for name, run in (references or {}).items()}
    mocks = Mocks(region, local, record, monitor_ref, stack_outputs=outputs, invokes=invokes)
    monitor = Monitor(mocks, local)
    monitor_ref.append(monitor)
    reset_root_resource()
    pulumi.runtime.set_mocks(
        mocks, project=project, stack=stack, preview=False, monitor=monitor, organization=ORGANIZATION
    )


def _hand_over_config(pulumi_config: Mapping[str, str]) -> str | None:
    """The stack's config as `pulumi up` hands it over: the language host puts it in PULUMI_CONFIG
    (pulumi/pulumi sdk/python/cmd/pulumi-language-python/main.go, pulumiConfigVar) and the exec shim
    passes that to set_all_config (sdk/python/cmd/pulumi-language-python-exec). Returns PULUMI_CONFIG's
    value before, to restore when the run ends."""
    config_env = os.environ.get(CONFIG_ENV)
    os.environ[CONFIG_ENV] = json.dumps(dict(pulumi_config))
    pulumi.runtime.set_all_config(dict(pulumi_config), [])
    return config_env


def _stack_exports(loop: Any) -> tuple[dict[str, Any], set[str]]:
    """The stack's exports (the root resource's outputs), resolved, and the names of the secret ones."""
    root = pulumi.runtime.get_root_resource()
    exports: dict[str, Any] = {}
    secrets: set[str] = set()
    for key, value in getattr(root, "outputs", {}).items():
        out = pulumi.Output.from_input(value)
        exports[key] = loop.run_until_complete(out.future())
        if loop.run_until_complete(out.is_secret()):
            secrets.add(key)
    return exports, secrets


def execute(
    stack: str,
    pulumi_config: Mapping[str, str],
    project: str,
    region: str,
    program: Path,
    raw_config: Mapping[str, Any] | None = None,
    references: Mapping[str, ProgramRun] | None = None,
    pump: bool = True,
) -> ProgramRun:
    """Run the program folder `program` under the mocks with config in the engine's format, and record it.

    Run as Pulumi's Python language host runs it: the host passes the entry point (the project folder, ".")
    and its exec shim calls runpy.run_path on it (pulumi/pulumi sdk/python/cmd/pulumi-language-python/main.go,
    `args = append(args, req.Info.EntryPoint)`; sdk/python/cmd/pulumi-language-python-exec), so the folder is
    on sys.path while the program runs (a project's __main__.py calls the installed mlplatform_program).
    Runs follow one another in a process without sharing state: each gets fresh mocks, monitor,
    config and root stack resource, and config and root are reset when it ends, failed or not.
    """
    with _lock:
        FREEZER.before_run()
        loop = _event_loop()
        record: list[Recorded] = []
        invokes: list[Invoke] = []
        _install_mocks(stack, project, region, references, record, invokes)
        config_env = _hand_over_config(pulumi_config)
        order = ConstructionOrder()
        pulumi.runtime.register_stack_transformation(order)
        if pump:
            pulumi.runtime.register_stack_transformation(Pump(loop))
        try:
            with young_collections_only():
                runpy.run_path(str(program), run_name="__main__")
                try:
                    wait_for_registrations(loop)
                except Exception as err:
                    raise _input_error_in(err) or err from None
                exports, secrets = _stack_exports(loop)
                resources = order.sort(record, loop)
        finally:
            drop_leftover_outputs(loop)
            FREEZER.after_run()
            pulumi.runtime.set_all_config({}, [])
            if config_env is None:
                os.environ.pop(CONFIG_ENV, None)
            else:
                os.environ[CONFIG_ENV] = config_env
            reset_root_resource()
    return ProgramRun(
        stack=stack,
        config=dict(raw_config if raw_config is not None else pulumi_config),
        resources=resources,
        exports=exports,
        secret_exports=secrets,
        project=project,
        invokes=invokes,
    )
