"""The offline engine's only uses of the Pulumi SDK beyond its public API, each in one place.

Everything else in the toolkit uses public names only (tests/architecture/test_public_sdk_only.py): `pulumi`,
the names `pulumi.runtime` exports (set_mocks, Mocks, MockResourceArgs, MockCallArgs, set_all_config,
get_root_resource, register_stack_transformation). Running a whole program in-process under mocks, one run
after another, needs seven things more. Each touchpoint names the SDK file it
depends on (read at pulumi 3.272) and tests/mlplatform/test_pulumi_internals.py pins its behaviour on the
installed SDK, so an SDK bump that changes one fails there first, with the touchpoint's name.

1. reset_root_resource      pulumi/runtime/settings.py set_root_resource: a fresh root Stack per run
2. wait_for_registrations   pulumi/runtime/stack.py wait_for_rpcs: every registration and apply done
3. drop_leftover_outputs    pulumi/runtime/settings.py SETTINGS.outputs and SETTINGS.lock: a failed run's
                            apply tasks, which set_mocks does not clear
4. Monitor                  pulumi/runtime/mocks.py MockMonitor: its gRPC handlers SupportsFeature and
                            GetDeploymentInfo (no resource references), RegisterResource (the request, read
                            as a Registration) and make_urn (the engine's URNs)
5. Registration             pulumi/runtime/proto/resource_pb2.py RegisterResourceRequest: the fields read
6. Monitor.reference        pulumi/runtime/mocks.py MockMonitor.resources (the getResource invoke answers from
                            it) and pulumi/runtime/rpc.py _special_sig_key/_special_resource_sig: a reference
                            to a resource a remote component created
7. is_secret                pulumi/runtime/rpc.py is_rpc_secret: a recorded input the program marked secret
                            (rpc is exported, but it is the SDK's wire format: read here only)
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.proto import resource_pb2
from pulumi.runtime.settings import set_root_resource
from pulumi.runtime.stack import wait_for_rpcs

from .urn import make_urn

# --- 1. the root stack resource ------------------------------------------------------------------


def reset_root_resource() -> None:
    """Forget the previous run's root Stack, so the next run's program registers its own.

    pulumi/runtime/settings.py: set_root_resource (a ContextVar the SDK's Stack sets when a program starts;
    set_mocks does not reset it).
    """
    set_root_resource(None)  # type: ignore[arg-type]


# --- 2. waiting for the program's registrations ------------------------------------------------------


def wait_for_registrations(loop: asyncio.AbstractEventLoop) -> None:
    """Run the loop until every registration, invoke and apply the program started has finished.

    pulumi/runtime/stack.py: wait_for_rpcs, what the SDK's run_in_stack awaits after a program body.
    """
    loop.run_until_complete(wait_for_rpcs())


# --- 3. a failed run's apply tasks --------------------------------------------------------------------


def _tracked_outputs() -> tuple[Any, set] | None:
    """The SDK's set of apply tasks and its lock, or None when this SDK keeps them elsewhere.

    pulumi/runtime/settings.py: SETTINGS (a module-level Settings, not exported) with `outputs` and `lock`.
    Looked up, not imported, so that an SDK without it skips the clean-up instead of failing every plan.
    """
    settings = getattr(importlib.import_module("pulumi.runtime.settings"), "SETTINGS", None)
    outputs, lock = getattr(settings, "outputs", None), getattr(settings, "lock", None)
    return (lock, outputs) if isinstance(outputs, set) and lock is not None else None


def tracks_outputs() -> bool:
    """Whether this SDK keeps its apply tasks where drop_leftover_outputs cleans them up."""
    return _tracked_outputs() is not None


def drop_leftover_outputs(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel and forget the Output tasks a failed run leaves behind.

    The SDK tracks every apply's task in SETTINGS.outputs, which set_mocks does not replace (its
    MockSettings has no `outputs`; pulumi/runtime/mocks.py, settings.py `configure`), and wait_for_rpcs
    awaits them all: the next run would raise the failed run's error. pulumi.runtime.mocks.test clears
    the same set before each test.
    """
    tracked = _tracked_outputs()
    if tracked is None:
        return
    lock, outputs = tracked
    with lock:
        leftover = list(outputs)
        outputs.clear()
    for task in leftover:
        task.cancel()
    if leftover:
        loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))


# --- 4 and 5. the mock resource monitor and what it is asked ---------------------------------------


@dataclass(frozen=True)
class Registration:
    """What the program asked the engine to register (the RegisterResourceRequest fields the engine reads)."""

    type: str
    name: str
    parent: str | None
    custom: bool
    remote: bool
    protect: bool
    version: str
    ignore_changes: tuple[str, ...]
    replace_on_changes: tuple[str, ...]
    delete_before_replace: bool
    dependencies: tuple[str, ...]
    property_dependencies: Mapping[str, tuple[str, ...]]
    aliases: tuple[Mapping[str, str], ...] = ()  # URNs ({"urn"}) or specs with the fields they set (name, type, ...)

    @classmethod
    def of(cls, request: Any) -> Registration:
        # pulumi/runtime/proto/resource_pb2.py RegisterResourceRequest (pulumi's proto/pulumi/resource.proto).
        return cls(
            type=request.type,
            name=request.name,
            parent=request.parent or None,
            custom=bool(request.custom),
            remote=bool(request.remote),
            protect=bool(request.protect),
            version=request.version,
            ignore_changes=tuple(request.ignoreChanges),
            replace_on_changes=tuple(request.replaceOnChanges),
            delete_before_replace=bool(request.deleteBeforeReplace),
            dependencies=tuple(sorted(request.dependencies)),
            property_dependencies={k: tuple(sorted(v.urns)) for k, v in sorted(request.propertyDependencies.items())},
            aliases=_aliases(request),
        )


def _aliases(request: Any) -> tuple[Mapping[str, str], ...]:
    """RegisterResourceRequest's `aliasURNs` and `aliases` (Alias: `urn`, or `spec` with name, type, parentUrn)."""
    out: list[Mapping[str, str]] = [{"urn": urn} for urn in request.aliasURNs]
    for alias in request.aliases:
        if alias.urn:
            out.append({"urn": alias.urn})
        else:
            spec = alias.spec
            fields = {"name": spec.name, "type": spec.type, "parentUrn": spec.parentUrn}
            out.append({k: v for k, v in fields.items() if v})
    return tuple(out)


_NO_REFERENCES = ("outputValues", "resourceReferences")


class Monitor(MockMonitor):
    """The SDK's mock resource monitor with three changes, all to the handlers of pulumi/runtime/mocks.py:

    - no resource references (SupportsFeature, GetDeploymentInfo): with them, a resource passed to a
      multi-language component (pulumi_eks) is rebuilt on another thread's event loop and the run fails with
      "attached to a different loop"; without them it travels as its id;
    - the engine's URNs (make_urn, which RegisterResource calls), not MockMonitor's, which keep only the
      parent's last type;
    - the registration being handled is available to the mocks (`local.registration`), as a Registration.
    """

    def __init__(self, mocks: pulumi.runtime.Mocks, local: threading.local):
        super().__init__(mocks)
        self.local = local

    def SupportsFeature(self, request):
        has = request.id not in _NO_REFERENCES
        return type("SupportsFeatureResponse", (object,), {"hasSupport": has})

    def GetDeploymentInfo(self, request):
        info = super().GetDeploymentInfo(request)
        features = [f for f in info.supportedFeatures if f != resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES]
        return resource_pb2.DeploymentInfo(supportedFeatures=features)

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return make_urn(pulumi.get_stack(), pulumi.get_project(), parent, type_, name)

    def RegisterResource(self, request):
        self.local.registration = Registration.of(request)
        try:
            return super().RegisterResource(request)
        finally:
            self.local.registration = None

    # --- 6. references to resources a remote component created ---

    def reference(self, urn: str, id_: str, state: Mapping[str, Any]) -> dict[str, Any]:
        """A resource reference to a resource the engine recorded but the program never registered, as a remote
        component's output carries it; the SDK rebuilds the resource from its URN through a getResource invoke,
        which MockMonitor answers from `resources`."""
        self.resources[urn] = MockMonitor.ResourceRegistration(urn, id_, dict(state))
        return {rpc._special_sig_key: rpc._special_resource_sig, "urn": urn, "id": id_}


# --- 7. secrets in the wire format -------------------------------------------------------------------------


def is_secret(value: Any) -> bool:
    """Whether a recorded (serialized) input value is a secret: the wire format wraps it in a map signed with the
    secret signature (pulumi/runtime/rpc.py is_rpc_secret; pulumi/pulumi sdk/go/common/resource/sig/sig.go)."""
    return rpc.is_rpc_secret(value)
