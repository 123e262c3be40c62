"""`resources`: every registered resource as the engine records it (Pulumi's property names in `inputs`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Part


class PlanResource(Part):
    """One registered resource. `inputs` is open-ended (each provider's own properties)."""

    type: str
    name: str
    project: str | None = None
    parent: str | None = None
    custom: bool = True  # false: a component (under the real engine a remote one has no inputs)
    inputs: dict[str, Any] = Field(default_factory=dict)
    protect: bool = False
    ignore_changes: list[str] = Field(default_factory=list)
    # What `pulumi up` replaces besides the provider's ForceNew inputs, and in which order.
    replace_on_changes: list[str] = Field(default_factory=list)
    delete_before_replace: bool = False
    created_by: str | None = None
    urn: str
    # What `pulumi up` makes it wait for (URNs), as the state records it; deploymentOrder follows.
    dependencies: list[str] = Field(default_factory=list)
    property_dependencies: dict[str, list[str]] = Field(default_factory=dict)


class ResourceRef(Part):
    """A resource named in `deploymentOrder`."""

    type: str
    name: str
    urn: str


class Wave(Part):
    wave: int
    resources: list[ResourceRef] = Field(default_factory=list)


class ProgramOrder(Part):
    """One program's `waves` (what `pulumi up` can create together, in order) and its `criticalPath`."""

    program: str | None = None
    project: str | None = None
    waves: list[Wave] = Field(default_factory=list)
    critical_path: list[ResourceRef] = Field(default_factory=list)


class Placeholder(Part):
    """An offline stand-in for what exists only after deploy: its JSON Pointer, value and `<...>` form."""

    pointer: str
    value: str = ""
    at_deploy: str = ""
