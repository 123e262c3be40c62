"""How a resource type's Pulumi inputs become API calls: the registry of mappers and what they share.

pulumi-aws is bridged from terraform-provider-aws, so each mapper follows that provider's create function for
the type (cited per mapper as `source`). Every input a mapper does not take is an error (`Inputs.done`):
nothing the program sets is silently left out of the rehearsal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .api import Api

TF = "hashicorp/terraform-provider-aws "


class UnmappedInput(ValueError):
    """An input the mapper of its type does not send (or deliberately drop with a reason)."""


class Inputs:
    """A resource's resolved inputs, taken one by one; `done()` fails on any left over."""

    def __init__(self, type_: str, values: dict[str, Any]):
        self.type = type_
        self._values = dict(values)

    def take(self, key: str, default: Any = None) -> Any:
        return self._values.pop(key, default)

    def need(self, key: str) -> Any:
        if key not in self._values:
            raise UnmappedInput(f"{self.type}: required input {key!r} missing")
        return self._values.pop(key)

    def drop(self, *keys: str) -> None:
        """Inputs the provider does not send at create (delete/update-time settings); the mapper says why."""
        for key in keys:
            self._values.pop(key, None)

    def done(self) -> None:
        if self._values:
            raise UnmappedInput(f"{self.type}: inputs the rehearsal does not map: {sorted(self._values)}")


@dataclass(frozen=True)
class Resource:
    """What a mapper gets: the recording's name and physical name, and the resolved inputs."""

    type: str
    name: str
    physical: str  # Pulumi's auto-name (`<name>-<7 hex>`), the name the provider would send when none is set
    inputs: Inputs
    partition: str


# A mapper calls the API and answers the real outputs, by the output paths the mocks used (references.py).
Mapper = Callable[[Api, Resource], dict[str, str]]


@dataclass(frozen=True)
class Mapping:
    source: str  # the terraform-provider-aws file whose create function the mapper follows
    mapper: Mapper


MAPPERS: dict[str, Mapping] = {}


def maps(type_: str, source: str) -> Callable[[Mapper], Mapper]:
    def register(mapper: Mapper) -> Mapper:
        MAPPERS[type_] = Mapping(TF + source, mapper)
        return mapper

    return register


def tags(values: dict[str, str] | None) -> list[dict[str, str]] | None:
    """Tags as EC2, IAM, Auto Scaling and most APIs take them: [{Key, Value}]."""
    return [{"Key": k, "Value": v} for k, v in values.items()] if values else None


def tag_specifications(resource_type: str, values: dict[str, str] | None) -> list[dict[str, Any]] | None:
    """EC2's tags on create (TagSpecifications), as the provider sends `tags` (ec2/tags.go getTagSpecificationsIn)."""
    return [{"ResourceType": resource_type, "Tags": tags(values)}] if values else None


def boolean(value: Any) -> bool | None:
    """The provider's string-typed booleans ("true"/"false", e.g. a launch template's ebs.encrypted)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    return str(value).lower() == "true"


def integer(value: Any) -> int | None:
    """Numbers reach the mocks as floats (the wire format)."""
    return None if value is None else int(value)


def name_of(r: Resource, key: str = "name", prefix_key: str = "namePrefix") -> str:
    """The name the provider sends: the given name, else the prefix plus a unique suffix, else the auto-name."""
    given = r.inputs.take(key)
    prefix = r.inputs.take(prefix_key)
    if given:
        return str(given)
    if prefix:
        return f"{prefix}{r.physical[-7:]}"
    return r.physical
