"""Each touchpoint of mlplatform/engine/pulumi_internals.py behaves on the installed Pulumi SDK as the engine needs.

The engine's only uses of the SDK beyond its public API sit in that module. A Pulumi release that changes
one of them fails here, naming the touchpoint and the SDK file, before it fails a plan.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from importlib.metadata import version

import pulumi
import pytest
from pulumi.runtime import rpc
from pulumi.runtime.proto import resource_pb2

from mlplatform.engine import pulumi_internals
from mlplatform.engine.pulumi_internals import Monitor, Registration
from tests.runs import shipped_run

SDK = f"pulumi {version('pulumi')}"


class EchoMocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        return f"{args.name}-id", args.inputs

    def call(self, args):
        return {}


def test_1_the_root_stack_resource_can_be_reset():
    from pulumi.runtime.settings import set_root_resource

    set_root_resource(object())  # what the SDK's Stack does when a program starts
    assert pulumi.runtime.get_root_resource() is not None
    pulumi_internals.reset_root_resource()
    assert pulumi.runtime.get_root_resource() is None, (
        f"{SDK}: pulumi/runtime/settings.py set_root_resource(None) no longer clears the root Stack resource"
    )


def test_2_waiting_for_registrations_is_a_coroutine_without_arguments():
    from pulumi.runtime.stack import wait_for_rpcs

    assert inspect.iscoroutinefunction(wait_for_rpcs), f"{SDK}: pulumi/runtime/stack.py wait_for_rpcs changed"
    unbound = [p for p in inspect.signature(wait_for_rpcs).parameters.values() if p.default is p.empty]
    assert unbound == [], f"{SDK}: pulumi/runtime/stack.py wait_for_rpcs now needs {unbound}"


def test_3_the_sdk_tracks_apply_tasks_where_the_engine_drops_a_failed_runs():
    # Otherwise the clean-up after a failed run is skipped, and the next run raises the failed run's error.
    assert pulumi_internals.tracks_outputs(), (
        f"{SDK}: pulumi/runtime/settings.py SETTINGS.outputs (a set) and SETTINGS.lock are gone"
    )
    loop = asyncio.new_event_loop()
    try:
        lock, outputs = pulumi_internals._tracked_outputs()
        task = loop.create_task(asyncio.sleep(3600))
        with lock:
            outputs.add(task)
        pulumi_internals.drop_leftover_outputs(loop)
        assert task.cancelled() and task not in outputs
    finally:
        loop.close()


def _monitor() -> Monitor:
    return Monitor(EchoMocks(), threading.local())


def test_4_the_monitor_announces_no_resource_references():
    monitor = _monitor()
    for feature in ("resourceReferences", "outputValues"):
        request = type("Request", (), {"id": feature})()
        assert monitor.SupportsFeature(request).hasSupport is False
    assert monitor.SupportsFeature(type("Request", (), {"id": "secrets"})()).hasSupport is True
    features = set(monitor.GetDeploymentInfo(None).supportedFeatures)
    assert resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES not in features
    assert resource_pb2.RESOURCE_MONITOR_FEATURE_SECRETS in features, (
        f"{SDK}: pulumi/runtime/mocks.py MockMonitor.GetDeploymentInfo no longer lists the monitor's features"
    )


def test_4_the_monitor_makes_the_engines_urns_and_the_sdk_calls_it():
    from pulumi.runtime.mocks import MockMonitor

    assert "self.make_urn(" in inspect.getsource(MockMonitor.RegisterResource), (
        f"{SDK}: pulumi/runtime/mocks.py MockMonitor.RegisterResource no longer names resources with make_urn"
    )
    pulumi.runtime.set_mocks(EchoMocks(), project="proj", stack="dev", preview=False)
    parent = "urn:pulumi:dev::proj::a:b:Outer$a:b:Inner::inner"
    assert _monitor().make_urn(parent, "c:d:Leaf", "leaf") == "urn:pulumi:dev::proj::a:b:Outer$a:b:Inner$c:d:Leaf::leaf"


def test_5_a_registration_reads_the_requests_fields():
    fields = set(resource_pb2.RegisterResourceRequest.DESCRIPTOR.fields_by_name)
    wanted = {"type", "name", "parent", "custom", "remote", "protect", "version", "ignoreChanges"}
    wanted |= {"dependencies", "propertyDependencies", "replaceOnChanges", "deleteBeforeReplace"}
    wanted |= {"aliasURNs", "aliases"}
    assert wanted <= fields, f"{SDK}: RegisterResourceRequest lost {sorted(wanted - fields)}"
    request = resource_pb2.RegisterResourceRequest(
        type="t:m:T", name="n", parent="", custom=True, ignoreChanges=["b", "a"], dependencies=["u2", "u1"]
    )
    request.propertyDependencies["vpcId"].urns.extend(["u3"])
    reg = Registration.of(request)
    assert (reg.parent, reg.custom, reg.remote, reg.ignore_changes) == (None, True, False, ("b", "a"))
    assert reg.dependencies == ("u1", "u2") and reg.property_dependencies == {"vpcId": ("u3",)}
    aliased = resource_pb2.RegisterResourceRequest(type="t:m:T", name="n", aliasURNs=["urn:old"])
    aliased.aliases.add().spec.name = "old-name"
    aliased.aliases.add().urn = "urn:older"
    assert Registration.of(aliased).aliases == ({"urn": "urn:old"}, {"name": "old-name"}, {"urn": "urn:older"})


def test_5_the_monitor_hands_the_mocks_the_registration_being_handled():
    seen = []

    class Mocks(EchoMocks):
        def new_resource(self, args):
            seen.append(local.registration)
            return "id", {}

    local = threading.local()
    pulumi.runtime.set_mocks(Mocks(), project="proj", stack="dev", preview=False)
    monitor = Monitor(Mocks(), local)
    monitor.RegisterResource(resource_pb2.RegisterResourceRequest(type="t:m:T", name="n", custom=True))
    assert [(r.type, r.name) for r in seen] == [("t:m:T", "n")] and local.registration is None


def test_6_a_reference_is_what_the_sdk_reads_as_a_resource_and_answers_get_resource():
    # The signature constants are the engine protocol's (pulumi/pulumi sdk/go/common/resource/sig/sig.go),
    # the same in every SDK: a changed value means a changed protocol.
    assert (rpc._special_sig_key, rpc._special_resource_sig) == (
        "4dabf18193072939515e22adb298388d",
        "5cf8f73096256a8f31e491e813e4eb8e",
    ), f"{SDK}: pulumi/runtime/rpc.py resource signature changed"
    monitor = _monitor()
    ref = monitor.reference("urn:pulumi:dev::p::aws:eks/cluster:Cluster::c", "c-name", {"name": "c-name"})
    assert ref["urn"].endswith("::c") and ref[rpc._special_sig_key] == rpc._special_resource_sig
    registration = monitor.get_registered_resources()[ref["urn"]]
    assert (registration.urn, registration.id, registration.state) == (ref["urn"], "c-name", {"name": "c-name"})


@pytest.mark.parametrize("stack", ["dev", "dev-karpenter"])
def test_6_programs_read_the_referenced_child_through_the_sdk(stack):
    # The cluster's `eksCluster` output reaches the program as the child's resource: its name is the child's.
    run = shipped_run(stack).programs[0]
    child = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    assert child.urn.endswith("$aws:eks/cluster:Cluster::cluster-eksCluster")


def test_7_a_secret_is_what_the_sdk_serializes_a_secret_output_as():
    async def serialized():
        return await rpc.serialize_property(pulumi.Output.secret("hunter2"), [], None, keep_output_values=False)

    loop = asyncio.new_event_loop()
    try:
        wire = loop.run_until_complete(serialized())
    finally:
        loop.close()
    assert pulumi_internals.is_secret(wire), f"{SDK}: pulumi/runtime/rpc.py secret wrapper changed: {wire}"
    assert not pulumi_internals.is_secret({"value": "hunter2"})
    assert not pulumi_internals.is_secret("hunter2")
