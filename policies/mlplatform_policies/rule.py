"""A policy rule declared as data, and the pulumi-policy Policy the pack serves for it.

Every rule is declared in rules.yaml: its name, the resource types it reads (or `stack`: the whole
stack), its enforcement in each environment, severity, description, remediation, settings (a JSON
schema and a default each) and the check function, named `<module>.<function>` of this package.
The area modules (layout.py, security.py, ...) hold the checks and nothing else; this module turns a
declaration into a Policy, and `rule_table` into the reference table of docs/policies.md.

Enforcement per environment: pulumi-policy gives a policy one enforcement level, so a rule has one
level, and each environment either enforces it at that level or leaves it out (`disabled`). A resource
rule does not run on a resource of an environment that leaves it out; a stack rule drops what it
reports there (a violation's environment is that of the resource it names, else the stack's). The
environment is the `mlplatform.io/environment` tag or label the toolkit puts on every resource; only
an explicit `dev` gets dev's enforcement, anything else prod's.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

from .groups import GROUPS, group_types
from .props import environment, stack_environment

DECLARATIONS = Path(__file__).resolve().parent / "rules.yaml"
# The toolkit's environments (mlplatform_core/model/config/stack.py `environment`; a test keeps them equal).
ENVIRONMENTS = ("dev", "prod")
STACK = "stack"  # `resources: stack`: the rule reads the whole stack
_LEVELS = {level.value: level for level in EnforcementLevel if level != EnforcementLevel.REMEDIATE}
_SEVERITIES = {severity.value: severity for severity in Severity}
_KEYS = {
    "name", "check", "resources", "enforcement", "severity", "description", "remediation", "settings",
    "environmentsSetting", "tags",
}  # fmt: skip
_REQUIRED = ("name", "check", "resources", "enforcement", "severity", "description", "remediation")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_TYPE_TOKEN = re.compile(r"^[A-Za-z0-9_.-]+:[^:\s]*:[A-Za-z0-9_]+$")
_CHECK = re.compile(r"^([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$")

ResourceCheck = Callable[[ResourceValidationArgs, Mapping[str, Any]], Iterable[str]]
StackCheck = Callable[[StackValidationArgs, Mapping[str, Any]], Iterable["tuple[str, str | None]"]]


class DeclarationError(ValueError):
    """A rule declaration the pack cannot serve (raised when the pack is imported)."""


@dataclass(frozen=True)
class Setting:
    """A setting of a rule in the policy config: its JSON schema and its default."""

    schema: Mapping[str, Any]
    default: Any


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    remediation: str
    severity: Severity
    enforcement: Mapping[str, EnforcementLevel]  # per environment; DISABLED: not run there
    check: Callable[..., Iterable[Any]]
    resource_types: tuple[str, ...] = ()  # empty: a stack rule
    settings: Mapping[str, Setting] = field(default_factory=dict)
    # A setting whose value (a list of environments) replaces the environments the rule runs in.
    environments_setting: str | None = None
    tags: tuple[str, ...] = ()

    @property
    def stack_rule(self) -> bool:
        return not self.resource_types

    @property
    def level(self) -> EnforcementLevel:
        """The rule's one enforcement level (that of every environment that runs it)."""
        return next(lvl for lvl in self.enforcement.values() if lvl != EnforcementLevel.DISABLED)

    def runs_in(self, env: str | None, settings: Mapping[str, Any]) -> bool:
        env = "dev" if env == "dev" else "prod"
        if self.environments_setting is not None:
            return env in {str(e) for e in settings[self.environments_setting]}
        return self.enforcement[env] != EnforcementLevel.DISABLED

    def policy(self) -> Policy:
        """The pulumi-policy Policy for this rule, as the pack serves it and `mlplatform check` runs it."""
        common = {
            "name": self.name,
            "description": self.description,
            "enforcement_level": self.level,
            "severity": self.severity,
            "remediation_steps": self.remediation,
            "config_schema": self._schema(),
            "tags": list(self.tags),
        }
        if self.stack_rule:
            return StackValidationPolicy(validate=self._validate_stack, **common)
        return ResourceValidationPolicy(validate=self._validate_resource, **common)

    def _schema(self) -> PolicyConfigSchema | None:
        if not self.settings:
            return None
        return PolicyConfigSchema(properties={k: {**s.schema, "default": s.default} for k, s in self.settings.items()})

    def _settings(self, args: Any) -> dict[str, Any]:
        # The CLI fills schema defaults in, but only for policies the stack configures: apply them here too.
        given = dict(args.get_config() or {})
        return {k: _as_schema_types(given.get(k, s.default), s.schema) for k, s in self.settings.items()}

    def _validate_resource(self, args: ResourceValidationArgs, report: ReportViolation) -> None:
        if args.resource_type not in self.resource_types:
            return
        settings = self._settings(args)
        if not self.runs_in(environment(args.props), settings):
            return
        for message in self.check(args, settings):
            report(message, None)

    def _validate_stack(self, args: StackValidationArgs, report: ReportViolation) -> None:
        settings = self._settings(args)
        by_urn = {r.urn: r for r in args.resources}
        stack_env: list[str | None] = []  # computed once, when a violation needs it

        def env_of(urn: str | None) -> str | None:
            resource = by_urn.get(urn or "")
            own = environment(resource.props) if resource is not None else None
            if own is None and not stack_env:
                stack_env.append(stack_environment(args.resources))
            return own if own is not None else stack_env[0]

        for message, urn in self.check(args, settings):
            if self.runs_in(env_of(urn), settings):
                report(message, urn)


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


# --- reading the declarations -------------------------------------------------------------------


def load_rules(path: Path = DECLARATIONS) -> tuple[Rule, ...]:
    """Every rule declared in `path`, in order. Raises DeclarationError naming the rule and the key."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise DeclarationError(f"{path.name}: not valid YAML ({exc})") from None
    if not isinstance(doc, list):
        raise DeclarationError(f"{path.name}: must be a list of rule declarations")
    rules = tuple(_rule(entry, f"{path.name}[{i}]") for i, entry in enumerate(doc))
    names = [r.name for r in rules]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DeclarationError(f"{path.name}: rule names must be unique; repeated: {', '.join(repeated)}")
    return rules


def _rule(entry: Any, where: str) -> Rule:
    if not isinstance(entry, dict):
        raise DeclarationError(f"{where}: a rule declaration is a mapping of {', '.join(_REQUIRED)}, ...")
    name = entry.get("name")
    where = f"{where} ({name})" if isinstance(name, str) else where
    problems = [f"unknown key {k!r}" for k in entry if k not in _KEYS]
    problems += [f"missing {k}" for k in _REQUIRED if k not in entry]
    if problems:
        raise DeclarationError(f"{where}: {'; '.join(problems)}; valid keys: {', '.join(sorted(_KEYS))}")
    if not isinstance(name, str) or not _NAME.match(name):
        raise DeclarationError(f"{where}: name {name!r} must be lowercase words joined by '-'")
    for key in ("description", "remediation"):
        if not isinstance(entry[key], str) or not entry[key].strip():
            raise DeclarationError(f"{where}: {key} must be a non-empty text")
    severity = _SEVERITIES.get(entry["severity"])
    if severity is None:
        raise DeclarationError(f"{where}: severity {entry['severity']!r} is not one of {', '.join(_SEVERITIES)}")
    settings = _settings(entry.get("settings") or {}, where)
    enforcement = _enforcement(entry["enforcement"], where)
    envs_setting = entry.get("environmentsSetting")
    if envs_setting is not None:
        enabled = sorted(env for env, lvl in enforcement.items() if lvl != EnforcementLevel.DISABLED)
        if envs_setting not in settings or sorted(settings[envs_setting].default) != enabled:
            raise DeclarationError(
                f"{where}: environmentsSetting {envs_setting!r} must name a setting whose default lists the "
                f"environments the enforcement enables ({', '.join(enabled)})"
            )
    tags = entry.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise DeclarationError(f"{where}: tags must be a list of words")
    return Rule(
        name=name,
        description=" ".join(entry["description"].split()),
        remediation=" ".join(entry["remediation"].split()),
        severity=severity,
        enforcement=enforcement,
        check=_check(entry["check"], where),
        resource_types=_resource_types(entry["resources"], where),
        settings=settings,
        environments_setting=envs_setting,
        tags=tuple(tags),
    )


def _enforcement(value: Any, where: str) -> dict[str, EnforcementLevel]:
    if not isinstance(value, dict) or set(value) != set(ENVIRONMENTS):
        raise DeclarationError(f"{where}: enforcement must give a level for each of {', '.join(ENVIRONMENTS)}")
    levels = {}
    for env in ENVIRONMENTS:
        if value[env] not in _LEVELS:
            raise DeclarationError(f"{where}: enforcement.{env} {value[env]!r} is not one of {', '.join(_LEVELS)}")
        levels[env] = _LEVELS[value[env]]
    on = {lvl for lvl in levels.values() if lvl != EnforcementLevel.DISABLED}
    if len(on) != 1:
        raise DeclarationError(
            f"{where}: enforcement must enable the rule in at least one environment, at one level for all "
            "(pulumi-policy reports every violation of a policy at the policy's one level)"
        )
    return levels


def _resource_types(value: Any, where: str) -> tuple[str, ...]:
    if value == STACK:
        return ()
    if value == GROUPS:  # every provisioner's groups, read alike (groups.py)
        return group_types()
    if not isinstance(value, list) or not value or not all(isinstance(t, str) and _TYPE_TOKEN.match(t) for t in value):
        raise DeclarationError(
            f"{where}: resources must be `stack`, `groups` or a list of type tokens such as aws:eks/nodeGroup:NodeGroup"
        )
    return tuple(value)


def _settings(value: Any, where: str) -> dict[str, Setting]:
    if not isinstance(value, dict):
        raise DeclarationError(f"{where}: settings must map each setting's name to its schema and default")
    out = {}
    for key, spec in value.items():
        if not isinstance(spec, dict) or set(spec) != {"schema", "default"} or not isinstance(spec["schema"], dict):
            raise DeclarationError(f"{where}: settings.{key} must have exactly a schema (a mapping) and a default")
        out[key] = Setting(spec["schema"], spec["default"])
    return out


def _check(value: Any, where: str) -> Callable[..., Iterable[Any]]:
    match = _CHECK.match(value) if isinstance(value, str) else None
    if not match:
        raise DeclarationError(f"{where}: check {value!r} must name a function as <module>.<function>")
    module = importlib.import_module(f"{__package__}.{match[1]}")
    check = getattr(module, match[2], None)
    if not callable(check):
        raise DeclarationError(f"{where}: check {value!r}: {module.__name__} has no function {match[2]}")
    return check


# --- the reference table ------------------------------------------------------------------------


def rule_table(rules: Iterable[Rule]) -> list[dict[str, Any]]:
    """One row per rule, as docs/policies.md shows them: name, level per environment ("disabled" where the
    environment leaves the rule out), what it reads, severity, description, settings."""
    return [
        {
            "name": r.name,
            "levels": {env: lvl.value for env, lvl in r.enforcement.items()},
            "resources": list(r.resource_types) or [STACK],
            "severity": r.severity.value,
            "description": r.description,
            "remediation": r.remediation,
            "settings": {k: {"schema": dict(s.schema), "default": s.default} for k, s in r.settings.items()},
            "environmentsSetting": r.environments_setting,
        }
        for r in rules
    ]
