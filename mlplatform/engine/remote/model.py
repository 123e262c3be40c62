"""What a model of a remote component's Construct returns: the component's registration and its children."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mlplatform_core.errors import InputError

# A property path into a resource's inputs or state: ("vpcConfig", "securityGroupIds", 0).
Path = tuple["str | int", ...]

# The offline provider stand-in for a child: (type, name, inputs) -> (id, outputs).
NewResource = Callable[[str, str, Mapping[str, Any]], "tuple[str, dict[str, Any]]"]


class ModelError(InputError):
    """A remote component used in a way (version, inputs) its offline model does not follow: bad input for the
    offline engine (exit 2), as its message says."""

    def __str__(self) -> str:
        return f"offline engine: {super().__str__()}"


@dataclass
class Child:
    """One resource the component's Construct registers, with the inputs the engine would receive."""

    type: str
    name: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    id: str = ""
    parent: Child | None = None  # None: the component itself
    custom: bool = True
    ignore_changes: tuple[str, ...] = ()
    # Inputs (and outputs) not known during a `pulumi preview` of a fresh stack.
    unknown_in_preview: tuple[Path, ...] = ()


@dataclass
class Construction:
    """The component as the engine registers it, its outputs, and the children its Construct creates."""

    props: dict[str, Any]
    outputs: dict[str, Any]
    children: list[Child] = field(default_factory=list)
    unknown_in_preview: tuple[Path, ...] = ()
