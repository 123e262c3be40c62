"""Run the pack's policies on recorded resources, the way the Pulumi CLI's analyzer would.

Same policy objects, same argument types (ResourceValidationArgs,
StackValidationArgs, PolicyResource), props wrapped in pulumi-policy's
unknown-checking proxies, and the CLI's enforcement-level rules: a level from
the policy config (per policy, else "all") wins over the policy's own, disabled
policies do not run, remediate counts as mandatory, and a value unknown during
a preview yields an advisory "can't run" diagnostic.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from inspect import isawaitable
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyResourceOptions,
    ResourceValidationPolicy,
    StackValidationPolicy,
)

from . import POLICIES

# The tooling reads policy configs through `offline` too (mlplatform check).
from .policy_config import LEVELS, PolicyConfigError, Setting, load_policy_config, resolve_config

__all__ = [
    "LEVELS",
    "PolicyConfigError",
    "Resource",
    "Setting",
    "Violation",
    "evaluate",
    "load_policy_config",
    "resolve_config",
]
from .pulumi_policy_internals import (
    NotApplicableError,
    UnknownValueError,
    policy_resource,
    resource_args,
    resource_options,
    stack_args,
    unknown_checking_proxy,
)


@dataclass(frozen=True)
class Resource:
    """One registered resource: inputs for resource policies, state (inputs + outputs) for stack policies."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    parent: str | None = None
    protect: bool = False
    ignore_changes: tuple[str, ...] = ()
    state: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str  # mandatory or advisory
    severity: str | None
    message: str
    urn: str | None
    resource_type: str | None
    resource_name: str | None
    description: str
    remediation: str | None

    @property
    def mandatory(self) -> bool:
        return self.level == EnforcementLevel.MANDATORY.value

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- evaluation ---------------------------------------------------------------------------------


def _options(r: Resource) -> PolicyResourceOptions:
    return resource_options(protect=r.protect, ignore_changes=r.ignore_changes, parent=r.parent)


def _run(result: Any) -> None:
    if isawaitable(result):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(result)
        finally:
            loop.close()


def evaluate(
    resources: Iterable[Resource], config: Mapping[str, Any] | None = None, policies: Sequence[Policy] = POLICIES
) -> list[Violation]:
    """Every violation the policies report on `resources` under the policy `config`, mandatory first."""
    settings = resolve_config(config, policies)
    resources = list(resources)
    run = _Run({r.urn: r for r in resources})
    active = _active(policies, settings)
    for r in resources:
        props = unknown_checking_proxy(copy.deepcopy(dict(r.props)))
        opts = _options(r)
        for policy, level in active:
            if isinstance(policy, ResourceValidationPolicy):
                args = resource_args(
                    resource_type=r.type,
                    props=props,
                    urn=r.urn,
                    name=r.name,
                    opts=opts,
                    config=settings[policy.name].properties,
                )
                run.attempt(
                    policy,
                    level,
                    r.urn,
                    lambda p=policy, a=args, lv=level, u=r.urn: p.validate(a, run.reporter(p, lv, u)),
                )
    stack = _stack_resources(resources)
    for policy, level in active:
        if isinstance(policy, StackValidationPolicy):
            args = stack_args(resources=stack, config=settings[policy.name].properties)
            run.attempt(
                policy, level, None, lambda p=policy, a=args, lv=level: p.validate(a, run.reporter(p, lv, None))
            )
    rank = {EnforcementLevel.MANDATORY.value: 0, EnforcementLevel.ADVISORY.value: 1}
    run.out.sort(key=lambda v: (rank.get(v.level, 2), v.policy, v.resource_name or "", v.message))
    return run.out


def _active(policies: Sequence[Policy], settings: Mapping[str, Any]) -> list[tuple[Policy, EnforcementLevel]]:
    """The policies that run and the level each reports at (remediate reports as mandatory offline)."""
    active = []
    for policy in policies:
        level = settings[policy.name].level
        if level == EnforcementLevel.DISABLED:
            continue
        active.append((policy, EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level))
    return active


def _stack_resources(resources: list[Resource]) -> list[Any]:
    """The resources as a stack policy sees them: their state (or inputs), each linked to its parent."""
    stack = [
        policy_resource(
            resource_type=r.type,
            props=unknown_checking_proxy(copy.deepcopy(dict(r.state if r.state is not None else r.props))),
            urn=r.urn,
            name=r.name,
            opts=_options(r),
        )
        for r in resources
    ]
    by_policy_urn = {pr.urn: pr for pr in stack}
    for pr, r in zip(stack, resources, strict=True):
        pr.parent = by_policy_urn.get(r.parent or "")
    return stack


class _Run:
    """One evaluation: the violations reported so far, each naming its resource."""

    def __init__(self, by_urn: Mapping[str, Resource]) -> None:
        self.by_urn = by_urn
        self.out: list[Violation] = []

    def reporter(self, policy: Policy, level: EnforcementLevel, default_urn: str | None):
        def report(message: str, urn: str | None = None) -> None:
            target = self.by_urn.get(urn or default_urn or "")
            self.out.append(
                Violation(
                    policy=policy.name,
                    level=level.value,
                    severity=policy.severity.value if policy.severity else None,
                    message=message or policy.description,
                    urn=urn or default_urn,
                    resource_type=target.type if target else None,
                    resource_name=target.name if target else None,
                    description=policy.description,
                    remediation=policy.remediation_steps,
                )
            )

        return report

    def attempt(self, policy: Policy, level: EnforcementLevel, urn: str | None, call) -> None:
        try:
            _run(call())
        except UnknownValueError as exc:  # what the CLI shows when a value is unknown during a preview
            self.reporter(policy, EnforcementLevel.ADVISORY, urn)(f"can't run policy during preview: {exc.message}")
        except NotApplicableError:
            pass
        # Any other exception is a bug in the rule: it propagates, as it fails the analyzer's RPC (and the
        # preview) in a real run (pulumi_policy/policy.py Analyze catches only these two).
