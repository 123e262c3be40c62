"""Each touchpoint of mlplatform_policies/pulumi_policy_internals.py behaves on the installed pulumi-policy as the
offline evaluation needs: the way the analyzer server treats a policy is what `mlplatform check` reproduces.

A pulumi-policy release that changes one fails here, naming the touchpoint and the SDK file.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version

import pytest
from pulumi.runtime import rpc
from pulumi_policy import ResourceValidationArgs, StackValidationArgs
from pulumi_policy.policy import _PolicyAnalyzerServicer

from mlplatform_policies import pulumi_policy_internals as sdk
from mlplatform_policies.props import UNKNOWN, get, require

SDK = f"pulumi-policy {version('pulumi-policy')}"


def test_1_a_preview_proxy_raises_on_an_unknown_value():
    assert sdk.UNKNOWN_STRING == rpc.UNKNOWN, f"{SDK}: pulumi_policy/proxy.py's unknown sentinel is not the engine's"
    props = sdk.unknown_checking_proxy({"known": "x", "nested": {"arn": sdk.UNKNOWN_STRING}, "list": [1]})
    assert props["known"] == "x" and props["list"][0] == 1
    with pytest.raises(sdk.UnknownValueError) as err:
        props["nested"]["arn"]
    assert err.value.message == "string value at .nested.arn can't be known during preview", (
        f"{SDK}: pulumi_policy/proxy.py UnknownValueError.message changed"
    )
    # What the rules make of it: `get` reads it as UNKNOWN, `require` lets the analyzer's error through.
    assert get(props, "nested", "arn") is UNKNOWN
    with pytest.raises(sdk.UnknownValueError):
        require(props, "nested")


def test_2_not_applicable_raises_the_error_the_analyzer_catches():
    args = sdk.resource_args(resource_type="t:m:T", props={}, urn="u", name="n", opts=_opts(), config={})
    with pytest.raises(sdk.NotApplicableError):
        args.not_applicable("no such thing here")
    for method in (_PolicyAnalyzerServicer.Analyze, _PolicyAnalyzerServicer.AnalyzeStack):
        assert "except _NotApplicableError" in inspect.getsource(method), (
            f"{SDK}: pulumi_policy/policy.py {method.__name__} no longer treats not_applicable as such"
        )


def _opts():
    return sdk.resource_options(protect=True, ignore_changes=("a",), parent="urn:parent")


def test_3_the_arguments_are_built_as_the_analyzer_builds_them():
    opts = _opts()
    assert (opts.protect, opts.ignore_changes, opts.parent) == (True, ["a"], "urn:parent")
    args = sdk.resource_args(
        resource_type="t:m:T", props={"a": 1}, urn="u", name="n", opts=opts, config={"minNodes": 2}
    )
    assert isinstance(args, ResourceValidationArgs)
    assert (args.resource_type, args.props, args.urn, args.name, args.provider) == ("t:m:T", {"a": 1}, "u", "n", None)
    assert args.get_config() == {"minNodes": 2}
    resource = sdk.policy_resource(resource_type="t:m:T", props={"a": 1}, urn="u", name="n", opts=opts)
    assert (resource.parent, resource.dependencies, resource.property_dependencies) == (None, [], {})
    stack = sdk.stack_args(resources=[resource], config={"x": 1})
    assert isinstance(stack, StackValidationArgs) and stack.resources == [resource] and stack.get_config() == {"x": 1}
    # The analyzer builds them with the same parameters (pulumi_policy/policy.py Analyze, AnalyzeStack).
    for cls, names in (
        (ResourceValidationArgs, {"resource_type", "props", "urn", "name", "opts", "provider", "config"}),
        (StackValidationArgs, {"resources", "config"}),
    ):
        assert names <= set(inspect.signature(cls).parameters), f"{SDK}: {cls.__name__}'s parameters changed"
