"""The offline engine: run the real Pulumi program in-process under mocks and record what it registers.

No Pulumi CLI, no provider plugins, no cloud account. Every resource the
program registers is recorded with its inputs and options (parent, protect,
ignoreChanges), and the stack outputs are resolved, secrets marked. The mocks
answer with plausible outputs (ids, ARNs, auto-names, an ASG per node group)
so that programs which read outputs run to the end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import hashlib
import inspect
import runpy
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pulumi
import pulumi.resource as resource_sdk
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import resource as resource_runtime
from pulumi.runtime import rpc
from pulumi.runtime.proto import source_pb2
from pulumi.runtime.proto import resource_pb2
from pulumi.runtime.settings import set_root_resource
from pulumi.runtime.stack import wait_for_rpcs
from pulumi.runtime.sync_await import _ensure_event_loop, _sync_await

from .config import PROJECT, REGION_KEY, to_pulumi_config

PROGRAM = Path(__file__).resolve().parent.parent / "__main__.py"
ACCOUNT = "123456789012"
SECRET = "[secret]"


@dataclass
class Recorded:
    urn: str
    type: str
    name: str
    parent: str | None
    custom: bool
    remote: bool
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    protect: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    provider: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "urn": self.urn, "parent": self.parent,
                "protect": self.protect, "ignoreChanges": self.ignore_changes, "inputs": self.inputs}


@dataclass
class ProgramRun:
    stack: str
    config: dict[str, Any]
    resources: list[Recorded]
    exports: dict[str, Any]
    secret_exports: set[str]

    def of_type(self, type_: str) -> list[Recorded]:
        return [r for r in self.resources if r.type == type_]

    def children(self, parent: Recorded) -> list[Recorded]:
        return [r for r in self.resources if r.parent == parent.urn]

    def one(self, type_: str, name: str) -> Recorded:
        found = [r for r in self.resources if r.type == type_ and r.name == name]
        if len(found) != 1:
            raise KeyError(f"{len(found)} resources of type {type_} named {name}")
        return found[0]

    def public_exports(self) -> dict[str, Any]:
        return {k: (SECRET if k in self.secret_exports else v) for k, v in self.exports.items()}


def _clean(value: Any) -> Any:
    """Recorded inputs as a user reads them: secrets masked, integral floats (the wire format) as ints."""
    if isinstance(value, dict):
        if rpc.is_rpc_secret(value):
            return SECRET
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _suffix(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:7]


class _Mocks(pulumi_mocks.Mocks):
    """Provider stand-ins: echo the inputs and add the outputs programs read."""

    def __init__(self, region: str, local: threading.local, record: list[Recorded], monitor_ref: list):
        self.region = region
        self.local = local
        self.record = record
        self.monitor_ref = monitor_ref

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        typ, name = args.typ, args.name
        physical = f"{name}-{_suffix(typ + name)}"
        service = typ.split(":")[1].split("/")[0] if typ.count(":") == 2 else "x"
        outputs: dict[str, Any] = {
            "arn": f"arn:aws:{service}:{self.region}:{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}",
        }
        if typ == "eks:index:Cluster":
            cluster = args.inputs.get("name", physical)
            issuer = f"oidc.eks.{self.region}.amazonaws.com/id/{_suffix(cluster).upper()}"
            outputs.update({
                "kubeconfigJson": '{"apiVersion": "v1", "kind": "Config", "clusters": [{"name": "%s"}]}' % cluster,
                "kubeconfig": {"apiVersion": "v1", "kind": "Config"},
                "oidcProviderArn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer}",
                "oidcProviderUrl": f"https://{issuer}",
                "oidcIssuer": issuer,
            })
        elif typ == "aws:eks/nodeGroup:NodeGroup":
            outputs["nodeGroupName"] = args.inputs.get("nodeGroupName", physical)
            outputs["resources"] = [{"autoscalingGroups": [{"name": f"eks-{physical}"}]}]
        elif typ == "aws:ec2/launchTemplate:LaunchTemplate":
            outputs["latestVersion"] = 1
        elif typ in ("aws:iam/role:Role", "aws:iam/policy:Policy"):
            outputs["arn"] = f"arn:aws:iam::{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}"
        if "name" not in args.inputs:
            outputs["name"] = physical
        state = {**args.inputs, **outputs}

        request = getattr(self.local, "request", None)
        if request is not None and request.name == name and request.type == typ:
            monitor = self.monitor_ref[0]
            self.record.append(Recorded(
                urn=monitor.make_urn(request.parent, typ, name),
                type=typ,
                name=name,
                parent=request.parent or None,
                custom=bool(request.custom),
                remote=bool(request.remote),
                inputs=_clean(args.inputs),
                outputs=outputs,
                protect=bool(request.protect),
                ignore_changes=list(request.ignoreChanges),
                provider=args.provider or None,
            ))
        return f"{physical}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        if args.token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            letters = "abcdef"
            return {"names": [f"{self.region}{c}" for c in letters],
                    "zoneIds": [f"usw2-az{i + 1}" for i in range(len(letters))], "id": self.region}
        if args.token == "aws:index/getRegion:getRegion":
            return {"name": self.region, "id": self.region}
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": ACCOUNT, "arn": f"arn:aws:iam::{ACCOUNT}:user/offline", "userId": "offline"}
        return {}


class _Monitor(pulumi_mocks.MockMonitor):
    """A mock monitor that does not announce resource references.

    With references on, a resource passed to a multi-language component
    (pulumi_eks) is rebuilt on another thread's event loop and the run fails
    with "attached to a different loop"; without them it travels as its id.
    """

    def __init__(self, mocks: _Mocks, local: threading.local):
        super().__init__(mocks)
        self.local = local

    def SupportsFeature(self, request):
        has = request.id not in ("outputValues", "resourceReferences")
        return type("SupportsFeatureResponse", (object,), {"hasSupport": has})

    def GetDeploymentInfo(self, request):
        info = super().GetDeploymentInfo(request)
        features = [f for f in info.supportedFeatures if f != resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES]
        return resource_pb2.DeploymentInfo(supportedFeatures=features)

    def RegisterResource(self, request):
        self.local.request = request
        try:
            return super().RegisterResource(request)
        finally:
            self.local.request = None


class _InlineExecutor(concurrent.futures.ThreadPoolExecutor):
    """Runs the SDK's monitor calls on the calling thread.

    The SDK sends every registration to a worker thread and back through the event loop's
    self-pipe; the mocks answer at once, so that round trip is pure overhead (about a sixth of
    the run time of a large stack).
    """

    def __init__(self) -> None:
        super().__init__(max_workers=1)

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting SDK code as before
            future.set_exception(exc)
        return future


def _run_now(awaitable):
    """MockMonitor's _sync_await on the loop's own thread: finish a coroutine that never suspends
    (serializing the mocks' plain state) without re-entering the running event loop."""
    if not inspect.iscoroutine(awaitable):
        return _sync_await(awaitable)
    try:
        awaitable.send(None)
    except StopIteration as done:
        return done.value
    awaitable.close()
    raise RuntimeError("offline engine: serializing mock state waited on the event loop; mocks must return plain values")


def _no_stack_trace() -> source_pb2.StackTrace:
    return source_pb2.StackTrace()


_PUMP_EVERY = 32  # registrations between two turns of the event loop while the program body runs


def _pumping(loop: asyncio.AbstractEventLoop, register_resource):
    """register_resource that lets queued registrations finish while the program body still runs.

    The program body constructs every resource before the event loop turns, so each one's pending
    registration (inputs, output futures, tasks) would be alive at once: half the peak memory of a
    stack of 500 node groups. Turning the loop every few registrations keeps only a few in flight.
    """
    count = 0

    def register(*args, **kwargs):
        nonlocal count
        result = register_resource(*args, **kwargs)
        count += 1
        if count % _PUMP_EVERY == 0 and not loop.is_running():
            for _ in range(1000):
                if not getattr(loop, "_ready", None):
                    break
                loop.run_until_complete(asyncio.sleep(0))
        return result

    return register


@contextlib.contextmanager
def _sdk_shortcuts(loop: asyncio.AbstractEventLoop):
    """Skip SDK work the mocks never need (measured in bench/RESULTS.md), restored afterwards.

    These reach into SDK internals, so each applies only where this SDK version has the hook:
    without one a run is slower, never different.
    """
    patches = [
        # MockMonitor serializes the mocks' plain state on the loop's thread without re-entering it.
        (pulumi_mocks, "_sync_await", lambda original: _run_now),
        # The SDK walks the Python stack of every registration for the source position the Pulumi CLI
        # shows; the mocks never read it (a tenth of the run time and ~40 KB per node group).
        (resource_runtime, "_get_stack_trace", lambda original: _no_stack_trace),
        (resource_sdk, "register_resource", lambda original: _pumping(loop, original)),
    ]
    saved = []
    for module, name, make in patches:
        if callable(getattr(module, name, None)):
            original = getattr(module, name)
            saved.append((module, name, original))
            setattr(module, name, make(original))
    executor = getattr(loop, "_default_executor", None)
    loop.set_default_executor(_InlineExecutor())
    try:
        yield
    finally:
        for module, name, original in reversed(saved):
            setattr(module, name, original)
        loop._default_executor = executor  # type: ignore[attr-defined]


_lock = threading.Lock()  # the Pulumi runtime is process-global: one program run at a time
# Set by a process that runs one program and exits (the mlplatform command): the runtime leaves a
# run's objects in reference cycles, and the first collection after the run (then the one at exit)
# would walk all of them, seconds for 500 node groups. Frozen, the collector skips them.
FREEZE_AFTER_RUN = False
_frozen = False  # whether a run left its objects frozen; the next run makes them collectable again


def run_program(stack: str, raw_config: Mapping[str, Any], program: Path = PROGRAM) -> ProgramRun:
    """Run the Pulumi program for `stack` with the given stack config mapping (as in Pulumi.<stack>.yaml)."""
    with _lock:
        local = threading.local()
        record: list[Recorded] = []
        monitor_ref: list = []
        mocks = _Mocks(str(raw_config.get(REGION_KEY, "us-west-2")), local, record, monitor_ref)
        monitor = _Monitor(mocks, local)
        monitor_ref.append(monitor)
        set_root_resource(None)  # type: ignore[arg-type]
        pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor)
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
            with _sdk_shortcuts(_ensure_event_loop()):
                runpy.run_path(str(program), run_name="__main__")
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
    return ProgramRun(stack=stack, config=dict(raw_config), resources=record, exports=exports, secret_exports=secrets)
