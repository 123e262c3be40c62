"""Rule constructors: every rule carries a stable name, description, severity, default level and remediation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

MANDATORY = EnforcementLevel.MANDATORY
ADVISORY = EnforcementLevel.ADVISORY
LOW, MEDIUM, HIGH, CRITICAL = Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL

ResourceCheck = Callable[[ResourceValidationArgs, Mapping[str, Any]], Iterable[str]]
StackCheck = Callable[[StackValidationArgs, Mapping[str, Any]], Iterable["tuple[str, str | None]"]]


def _schema(defaults: Mapping[str, tuple[dict, Any]] | None) -> PolicyConfigSchema | None:
    if not defaults:
        return None
    return PolicyConfigSchema(properties={k: {**spec, "default": d} for k, (spec, d) in defaults.items()})


def _settings(args: Any, defaults: Mapping[str, tuple[dict, Any]] | None) -> dict[str, Any]:
    # The CLI fills schema defaults in, but only for policies the stack configures: apply them here too.
    given = dict(args.get_config() or {})
    return {k: _as_schema_types(given.get(k, d), spec) for k, (spec, d) in (defaults or {}).items()}


def _as_schema_types(value: Any, spec: Mapping[str, Any]) -> Any:
    """The CLI sends policy config as a protobuf Struct, where every number is a float (3 arrives as 3.0):
    integral numbers become the integers the schema asks for, so messages say "at least 3", not 3.0."""
    types = spec.get("type")
    if isinstance(value, float) and value.is_integer() and "integer" in (types if isinstance(types, list) else [types]):
        return int(value)
    if isinstance(value, list) and "items" in spec:
        return [_as_schema_types(v, spec["items"]) for v in value]
    if isinstance(value, dict) and "properties" in spec:
        return {k: _as_schema_types(v, spec["properties"].get(k, {})) for k, v in value.items()}
    return value


def resource_rule(
    name: str,
    description: str,
    *,
    types: Iterable[str],
    level: EnforcementLevel,
    severity: Severity,
    remediation: str,
    check: ResourceCheck,
    config: Mapping[str, tuple[dict, Any]] | None = None,
    tags: list[str] | None = None,
) -> ResourceValidationPolicy:
    """A rule on single resources of the given types; `check` yields one message per violation."""
    wanted = frozenset(types)

    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        if args.resource_type in wanted:
            for message in check(args, _settings(args, config)):
                report(message, None)

    return ResourceValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        enforcement_level=level,
        severity=severity,
        remediation_steps=remediation,
        config_schema=_schema(config),
        tags=tags,
    )


def stack_rule(
    name: str,
    description: str,
    *,
    level: EnforcementLevel,
    severity: Severity,
    remediation: str,
    check: StackCheck,
    config: Mapping[str, tuple[dict, Any]] | None = None,
    tags: list[str] | None = None,
) -> StackValidationPolicy:
    """A rule over the whole stack; `check` yields (message, urn or None) per violation."""

    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        for message, urn in check(args, _settings(args, config)):
            report(message, urn)

    return StackValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        enforcement_level=level,
        severity=severity,
        remediation_steps=remediation,
        config_schema=_schema(config),
        tags=tags,
    )
