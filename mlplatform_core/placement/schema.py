"""The Kubernetes OpenAPI schema of the stack's minor, as the API server applies it to what `place` reads.

Since Kubernetes 1.27 `kubectl apply` asks for Strict field validation: the API server refuses an object with
an unknown or duplicated field (`strict decoding error: unknown field "spec.nodeSelectr"`) and one whose
field has the wrong type (`cannot unmarshal string into Go struct field ... of type int32`). `place` checks
every object it reads against the same schema first, so a misspelt `nodeSelectr` is bad input instead of a
pod shown placeable without its selector.

The schemas are kubernetes-validate's (generated from each minor's OpenAPI document, one per minor, the
"-strict" variant with `additionalProperties: false`); jsonschema, which it builds on, walks them. Imported
only when `place` runs (the package loads 1.5 MB of definitions per minor).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..model.config.errors import escaped, show
from ..model.config.messages import did_you_mean, kind_of
from .workload_kinds import OPERATOR_GROUPS


@dataclass(frozen=True)
class FieldProblem:
    """One field of one object the API server would refuse."""

    path: str  # e.g. spec.template.spec.nodeSelectr (non-ASCII escaped, list items as [i])
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _minor(version: str) -> tuple[int, int]:
    major, minor = re.match(r"v?(\d+)\.(\d+)", version).groups()  # type: ignore[union-attr]
    return int(major), int(minor)


def shipped_minors() -> list[tuple[int, int]]:
    """The Kubernetes minors kubernetes-validate ships a schema for, oldest first."""
    from kubernetes_validate.utils import all_versions

    return sorted({_minor(v) for v in all_versions()})


def pick_minor(wanted: str, shipped: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], str | None]:
    """The schema minor for a stack's Kubernetes version: its own, else the closest one not newer (fields are
    added, rarely removed, so an older schema refuses nothing the stack's minor accepts but a new field), else
    the oldest. With a note saying so when it is not the stack's own."""
    target, minors = _minor(wanted), sorted(shipped)
    older = [m for m in minors if m <= target]
    picked = older[-1] if older else minors[0]
    if picked == target:
        return picked, None
    shown = f"{picked[0]}.{picked[1]}"
    why = "the closest it ships that is not newer" if older else "the oldest it ships"
    return picked, (
        f"fields were checked against the Kubernetes {shown} schema: kubernetes-validate ships none for "
        f"{target[0]}.{target[1]}, {shown} is {why}"
    )


def custom_group(api_version: str) -> bool:
    """A group with a dot that is not one of Kubernetes' own (*.k8s.io, but operators' groups there such as the
    Spark operator's sparkoperator.k8s.io): a CustomResourceDefinition's. The core
    group (v1) and the dotless built-in groups (apps, batch, policy, autoscaling) are never a custom resource's."""
    group = api_version.rpartition("/")[0]
    return "." in group and (not group.endswith(".k8s.io") or group in OPERATOR_GROUPS)


def _schema_file(kind: str, api_version: str) -> str:
    # kubernetes-validate's file naming (kubernetes_validate/utils.py validate()): <kind>-<group>-<version>.json,
    # the group cut at its first dot (rbac.authorization.k8s.io/v1 -> rbac-v1), the core group bare (v1).
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


def _as_string(checker: Any, instance: Any) -> bool:
    # kubectl's YAML reader (sigs.k8s.io/yaml over go-yaml) leaves an unquoted date as text; PyYAML makes it a date.
    return isinstance(instance, (str, datetime.date))


@dataclass
class KubernetesSchema:
    """The strict schema of one Kubernetes minor: which kinds it knows, and what is wrong with an object."""

    minor: tuple[int, int]
    note: str | None = None  # set when the stack's own minor has no schema

    @classmethod
    def for_version(cls, kubernetes_version: str) -> KubernetesSchema:
        minor, note = pick_minor(kubernetes_version, shipped_minors())
        return cls(minor, note)

    @property
    def version(self) -> str:
        return f"{self.minor[0]}.{self.minor[1]}"

    def knows(self, kind: str, api_version: str) -> bool:
        """Whether this minor serves `kind` at `api_version` (a built-in object; False for a custom resource)."""
        schema = _load(self.minor, _schema_file(kind, api_version))
        if schema is None:
            return False
        served = schema.get("properties", {}).get("apiVersion", {}).get("enum")
        return not served or api_version in served  # apps.example.com/v1 is not apps/v1

    def served_versions(self, kind: str) -> list[str]:
        """The apiVersions this minor serves `kind` at (apps/v1 for a Deployment), newest file names last."""
        return _served(self.minor, kind.lower())

    def refusals(self, obj: Mapping[str, Any], kind: str | None) -> list[str] | None:
        """What the API server would refuse in `obj`, an object of `kind` (None: a bare PodSpec); None for a custom
        resource, whose schema is in its CustomResourceDefinition."""
        if kind is None:
            return [str(p) for p in self.problems(obj, "PodSpec", None)]
        api_version = obj.get("apiVersion")
        if not isinstance(api_version, str) or not api_version:
            served = self.served_versions(kind)
            use = f"; a {escaped(kind)} is {' or '.join(served)}" if served else ""
            wrong = "is not set" if api_version in (None, "") else f"must be text, not {show(api_version)}"
            return [f"apiVersion: {wrong} (kubectl apply refuses the object){use}"]
        if self.knows(kind, api_version):
            return [str(p) for p in self.problems(obj, kind, api_version)]
        if custom_group(api_version):
            return None
        served = self.served_versions(kind)
        use = f"; use {' or '.join(served)}" if served else ""
        return [
            f"apiVersion: Kubernetes {self.version} serves no {escaped(kind)} at {show(api_version)} "
            f"(kubectl: no matches for kind){use}"
        ]

    def problems(self, obj: Mapping[str, Any], kind: str, api_version: str | None) -> list[FieldProblem]:
        """Every unknown field and wrongly typed value of `obj`, a `kind` at `api_version` this minor serves
        (api_version None: a bare PodSpec)."""
        file = "podspec-v1.json" if api_version is None else _schema_file(kind, api_version)
        if _valid(_lean_schema(self.minor, file), obj, _lean_definitions(self.minor)):
            return []  # the common case, about 20 times faster than jsonschema, which then explains what is wrong
        validator = _validator(self.minor, file)
        found: dict[tuple[str, str], FieldProblem] = {}
        for error in validator.iter_errors(obj):
            for problem in _explain(error):
                found.setdefault((problem.path, problem.message), problem)
        return sorted(found.values(), key=lambda p: p.path)


@cache
def _load(minor: tuple[int, int], file: str) -> dict[str, Any] | None:
    from kubernetes_validate.utils import VersionNotSupportedError, schema_contents

    try:
        return schema_contents(f"kubernetes-json-schema/v{minor[0]}.{minor[1]}.0-local-strict/{file}", "")
    except (FileNotFoundError, VersionNotSupportedError):  # no such kind at that version; no such minor
        return None


@cache
def _served(minor: tuple[int, int], kind: str) -> list[str]:
    from importlib.resources import files

    folder = files("kubernetes_validate").joinpath(f"kubernetes-json-schema/v{minor[0]}.{minor[1]}.0-local-strict")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith(f"{kind}-") and (schema := _load(minor, entry.name)):
            out += [v for v in schema.get("properties", {}).get("apiVersion", {}).get("enum", []) if v]
    return out


@cache
def _validator(minor: tuple[int, int], file: str) -> Any:
    import jsonschema
    from referencing import Registry, Resource

    schema, definitions = _load(minor, file), _load(minor, "_definitions.json")
    registry = Resource.from_contents(schema) @ (Resource.from_contents(definitions) @ Registry())
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("string", _as_string)
    one_of = base.VALIDATORS["oneOf"]

    def null_or_one_of(validator: Any, rule: Any, instance: Any, schema: Any) -> Any:
        if instance is None and _null_allowed(rule):
            return  # see _null_allowed
        yield from one_of(validator, rule, instance, schema)

    extended = jsonschema.validators.extend(base, {"oneOf": null_or_one_of}, type_checker=checker)
    return extended(schema, registry=registry)


def _null_allowed(branches: list[Any]) -> bool:
    """A quantity or an int-or-string left empty (`cpu:`, `maxSurge:`, what a Helm value left unset writes): both
    branches allow null, so oneOf would refuse it, but the API server takes it (resource.Quantity's UnmarshalJSON
    reads null as zero; an IntOrString field is a pointer, null is unset)."""
    return any(isinstance(b, Mapping) and "null" in (b.get("type") or ()) for b in branches)


# What a schema of kubernetes-validate's can say, and what it can only annotate (format is an annotation in
# JSON Schema 2020-12: jsonschema does not assert it unless asked, and neither does this).
_ANNOTATIONS = frozenset({"description", "format", "$schema", "$id"})
_JSON_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, (str, datetime.date)),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _lean(schema: Any) -> Any:
    """`schema` without its annotations (descriptions are most of its bytes), for _valid to walk."""
    if not isinstance(schema, Mapping):
        return schema
    out = {}
    for key, rule in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-"):
            continue
        if key in ("properties", "$defs"):
            rule = {name: _lean(sub) for name, sub in rule.items()}
        elif key in ("additionalProperties", "items"):
            rule = _lean(rule)
        elif key == "oneOf":
            rule = [_lean(sub) for sub in rule]
        out[key] = rule
    return out


@cache
def _lean_schema(minor: tuple[int, int], file: str) -> Any:
    return _lean(_load(minor, file))


@cache
def _lean_definitions(minor: tuple[int, int]) -> Mapping[str, Any]:
    return _lean(_load(minor, "_definitions.json"))["$defs"]


def _properties_ok(rule: Any, value: Any, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    # The object's few fields, not the schema's many.
    return not isinstance(value, dict) or all(k not in rule or _valid(rule[k], v, defs) for k, v in value.items())


def _additional_ok(rule: Any, value: Any, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    known = schema.get("properties", {})
    return all(k in known or _valid(rule, v, defs) for k, v in value.items())


def _one_of_ok(rule: Any, value: Any, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
    return (value is None and _null_allowed(rule)) or sum(_valid(s, value, defs) for s in rule) == 1


# What each keyword jsonschema would check says of a value: (rule, value, the schema, definitions) -> ok.
_KEYWORDS: Mapping[str, Any] = {
    "$ref": lambda rule, value, schema, defs: _valid(defs.get(rule.rpartition("/")[2]), value, defs),
    "type": lambda rule, value, schema, defs: any(
        _JSON_TYPES[t](value) for t in ([rule] if isinstance(rule, str) else rule)
    ),
    # enums of strings; anything else: jsonschema
    "enum": lambda rule, value, schema, defs: isinstance(value, str) and value in rule,
    "required": lambda rule, value, schema, defs: not isinstance(value, dict) or all(k in value for k in rule),
    "properties": _properties_ok,
    "additionalProperties": _additional_ok,
    "items": lambda rule, value, schema, defs: not isinstance(value, list) or all(_valid(rule, v, defs) for v in value),
    "oneOf": _one_of_ok,
}


def _valid(schema: Any, value: Any, definitions: Mapping[str, Any]) -> bool:
    """Whether jsonschema (Draft 2020-12, dates as strings) would find nothing wrong with `value`: the same
    keywords, evaluated directly. A keyword it does not know makes it answer False, and jsonschema decides."""
    if schema is True:
        return True
    if not isinstance(schema, Mapping):
        return False
    for key, rule in schema.items():
        check = _KEYWORDS.get(key)
        if check is None or not check(rule, value, schema, definitions):
            return False
    return True


def field_path(parts: Iterable[Any]) -> str:
    """spec.containers[0].resources from ("spec", "containers", 0, "resources"); non-ASCII escaped."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{escaped(str(part))}" if out else escaped(str(part)))
    return out


_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
}


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    if "oneOf" in schema or "anyOf" in schema:
        return [t for sub in schema.get("oneOf", schema.get("anyOf")) for t in _types(sub)]
    declared = schema.get("type", [])
    return [t for t in ([declared] if isinstance(declared, str) else declared) if t != "null"]


def _expected(types: list[str]) -> str:
    words = list(dict.fromkeys(_TYPE_WORDS.get(t, t) for t in types))
    if set(types) == {"string", "number"}:
        return "a quantity (a string such as 500m or 2Gi, or a number)"
    if set(types) == {"string", "integer"}:
        return "an integer or a string (a port number or name, a count or a percentage)"
    return " or ".join(words) if words else "another value"


def _explain(error: Any) -> list[FieldProblem]:
    path, value, schema = list(error.absolute_path), error.instance, error.schema
    if error.validator == "additionalProperties" and isinstance(value, Mapping):
        known = sorted(schema.get("properties", {}))
        out = []
        for key in value:
            if key in known:
                continue
            key_text = str(key)
            hints = []
            if not key_text.isascii():
                odd = ", ".join(dict.fromkeys(escaped(c) for c in key_text if not c.isascii()))
                hints.append(f"it contains the non-ASCII character(s) {odd}")
            if known and (near := did_you_mean(key_text, known)):
                hints.append(f"did you mean {near}?")
            elif known:
                hints.append(f"fields here: {', '.join(known)}")
            else:
                hints.append("this mapping takes no fields")
            out.append(FieldProblem(field_path([*path, key]), f"unknown field ({'; '.join(hints)})"))
        return out
    if error.validator == "required":
        missing = [k for k in error.validator_value if isinstance(value, Mapping) and k not in value]
        return [FieldProblem(field_path([*path, k]), "required field is missing") for k in missing]
    if error.validator in ("type", "oneOf", "anyOf"):
        return [
            FieldProblem(
                field_path(path), f"expected {_expected(_types(schema))}, but {show(value)} is {kind_of(value)}"
            )
        ]
    if error.validator == "enum":
        choices = [str(c) for c in error.validator_value if c is not None]
        near = did_you_mean(value, choices) if isinstance(value, str) else None
        fix = f"; did you mean {near}?" if near else ""
        return [FieldProblem(field_path(path), f"{show(value)} is not one of {', '.join(choices)}{fix}")]
    return [FieldProblem(field_path(path), escaped(error.message))]
