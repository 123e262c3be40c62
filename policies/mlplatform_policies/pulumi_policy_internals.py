"""The policy pack's only uses of pulumi-policy beyond its public API, each in one place.

The rules use the names `pulumi_policy` exports (EnforcementLevel, Severity, the policy and argument
classes); `mlplatform check` (offline.py) runs them as the analyzer would, which needs what the analyzer
server itself uses internally. Each touchpoint names the SDK file it depends on (read at pulumi-policy 1.21)
and tests/policies/test_pulumi_policy_internals.py pins its behaviour on the installed SDK, so an SDK bump
that changes one fails there first, with the touchpoint's name.

1. UnknownValueError, unknown_checking_proxy, UNKNOWN_STRING
       pulumi_policy/proxy.py (a module the package does not export): in a preview the analyzer wraps every
       resource's properties in proxies that raise UnknownValueError on a value not known yet; the engine
       sends such a value as the UNKNOWN_STRING sentinel
2. NotApplicableError
       pulumi_policy/policy.py _NotApplicableError: what `args.not_applicable()` raises; the analyzer reports
       the policy as not applicable instead of failing it
3. resource_args, stack_args, policy_resource, resource_options
       pulumi_policy/policy.py ResourceValidationArgs, StackValidationArgs, PolicyResource,
       PolicyResourceOptions, PolicyCustomTimeouts: the argument objects the analyzer's Analyze and
       AnalyzeStack build for the validate callbacks (built here by keyword, as they do)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

__all__ = [
    "UNKNOWN_STRING",
    "NotApplicableError",
    "UnknownValueError",
    "policy_resource",
    "resource_args",
    "resource_options",
    "stack_args",
    "unknown_checking_proxy",
]

# --- 1. values unknown during a preview -------------------------------------------------------------

UNKNOWN_STRING = UNKNOWN_STRING_VALUE  # pulumi_policy/proxy.py (the engine's rpc.UNKNOWN)

# --- 2. a policy that does not apply -------------------------------------------------------------------

NotApplicableError = _NotApplicableError  # pulumi_policy/policy.py, raised by args.not_applicable()

# --- 3. the arguments the analyzer hands a policy ------------------------------------------------------


def resource_options(*, protect: bool, ignore_changes: Iterable[str], parent: str | None) -> PolicyResourceOptions:
    """A resource's options as the analyzer reads them from the engine's request (pulumi_policy/policy.py
    _get_resource_options): no delete-before-replace, aliases, custom timeouts or secret outputs offline."""
    return PolicyResourceOptions(
        protect=protect,
        ignore_changes=list(ignore_changes),
        delete_before_replace=None,
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(create_seconds=0, update_seconds=0, delete_seconds=0),
        additional_secret_outputs=[],
        parent=parent,
    )


def resource_args(
    *,
    resource_type: str,
    props: Mapping[str, Any],
    urn: str,
    name: str,
    opts: PolicyResourceOptions,
    config: Mapping[str, Any],
) -> ResourceValidationArgs:
    """What Analyze hands a resource policy (pulumi_policy/policy.py _PolicyAnalyzerServicer.Analyze)."""
    return ResourceValidationArgs(
        resource_type=resource_type, props=props, urn=urn, name=name, opts=opts, provider=None, config=config
    )


def policy_resource(
    *, resource_type: str, props: Mapping[str, Any], urn: str, name: str, opts: PolicyResourceOptions
) -> PolicyResource:
    """One resource of a stack as AnalyzeStack builds it; the caller links `parent` once all exist."""
    return PolicyResource(
        resource_type=resource_type,
        props=props,
        urn=urn,
        name=name,
        opts=opts,
        provider=None,
        parent=None,
        dependencies=[],
        property_dependencies={},
    )


def stack_args(*, resources: list[PolicyResource], config: Mapping[str, Any]) -> StackValidationArgs:
    """What AnalyzeStack hands a stack policy (pulumi_policy/policy.py _PolicyAnalyzerServicer.AnalyzeStack)."""
    return StackValidationArgs(resources=resources, config=config)
