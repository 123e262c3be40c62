"""URNs formed as the Pulumi engine forms them (not as Pulumi's MockMonitor does).

`urn:pulumi:<stack>::<project>::<type chain>::<name>`: the type chain is the parent's
whole qualified type (every ancestor's type, `$`-joined) followed by the resource's own
type; a resource parented by the root stack carries just its own type
(pulumi/pulumi pkg/resource/deploy/deployment.go:796-805 `generateURN`,
sdk/go/common/resource/urn/urn.go:80-93 `New`). MockMonitor.make_urn keeps only the
parent's last type and prefixes `pulumi:pulumi:Stack$` to top-level resources.
"""

from __future__ import annotations

ROOT_STACK_TYPE = "pulumi:pulumi:Stack"
_PREFIX = "urn:pulumi:"


def qualified_type(urn: str) -> str:
    """The `$`-joined type chain of a URN."""
    return urn.removeprefix(_PREFIX).split("::")[2]


def make_urn(stack: str, project: str, parent: str | None, type_: str, name: str) -> str:
    chain = type_
    if parent:
        parent_type = qualified_type(parent)
        if parent_type != ROOT_STACK_TYPE:
            chain = f"{parent_type}${type_}"
    return f"{_PREFIX}{stack}::{project}::{chain}::{name}"
