"""What a program run leaves behind: every registered resource with its inputs and options, and the outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pulumi_internals import is_secret

SECRET = "[secret]"


@dataclass
class Recorded:
    urn: str
    type: str
    name: str
    parent: str | None
    custom: bool
    remote: bool
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    protect: bool = False
    ignore_changes: list[str] = field(default_factory=list)
    # The replacement options the program sets (`replace_on_changes`, `delete_before_replace`): what `pulumi up`
    # replaces besides the provider's own ForceNew inputs, and in which order (mlplatform diff reads them).
    replace_on_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False
    provider: str | None = None
    # Set on the children a remote component's Construct creates (engine/remote): who created them, and
    # the property paths (into inputs or outputs) not known during a preview of a fresh stack.
    created_by: str | None = None
    unknown_in_preview: tuple[tuple[str | int, ...], ...] = ()
    # What the resource waits for in a real `pulumi up`, as the SDK sends it to the engine (and the state keeps
    # it): the URNs of its explicit depends_on and of the resources behind its input Outputs, and the latter per
    # input property.
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    # Earlier identities the program declares (`aliases`): the state's resource of such a name and parent is
    # this one, moved, not deleted. Each as the SDK sends it: urn, or name / type / parentUrn (unset: the same).
    aliases: list[dict[str, str]] = field(default_factory=list)

    @property
    def project(self) -> str:
        """The Pulumi project that registered it (urn:pulumi:<stack>::<project>::...)."""
        return self.urn.split("::")[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "name": self.name,
            "urn": self.urn,
            "parent": self.parent,
            "protect": self.protect,
            "ignoreChanges": self.ignore_changes,
            "replaceOnChanges": self.replace_on_changes,
            "deleteBeforeReplace": self.delete_before_replace,
            "inputs": self.inputs,
            "dependencies": self.dependencies,
            "propertyDependencies": self.property_dependencies,
        }


@dataclass(frozen=True)
class Invoke:
    """A data-source call the program made (e.g. aws:eks/getAddonVersion) and what the mocks answered."""

    token: str
    args: dict[str, Any]
    result: dict[str, Any]


@dataclass
class ProgramRun:
    stack: str
    config: dict[str, Any]
    resources: list[Recorded]
    exports: dict[str, Any]
    secret_exports: set[str]
    project: str = "ml-platform-eks"
    directory: str = "."  # the program's folder in the project
    invokes: list[Invoke] = field(default_factory=list)

    def of_type(self, type_: str) -> list[Recorded]:
        return [r for r in self.resources if r.type == type_]

    def children(self, parent: Recorded) -> list[Recorded]:
        return [r for r in self.resources if r.parent == parent.urn]

    def one(self, type_: str, name: str) -> Recorded:
        found = [r for r in self.resources if r.type == type_ and r.name == name]
        if len(found) != 1:
            raise KeyError(f"{len(found)} resources of type {type_} named {name}")
        return found[0]

    def public_exports(self) -> dict[str, Any]:
        return {k: (SECRET if k in self.secret_exports else v) for k, v in self.exports.items()}


def clean(value: Any) -> Any:
    """Recorded inputs as a user reads them: secrets masked, integral floats (the wire format) as ints."""
    if isinstance(value, dict):
        if is_secret(value):
            return SECRET
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass
class StackRun(ProgramRun):
    """Every program a stack deploys (the cluster program, then kubernetes-layer/ when separate), as one view.

    `resources`, `exports` and `invokes` are those of all programs together, so questions about what the
    stack builds have one answer; `programs` keeps each run on its own for what a single `pulumi up` sees
    (a real preview's policy pack sees one program's stack at a time).
    """

    programs: tuple[ProgramRun, ...] = ()

    @classmethod
    def of(cls, programs: tuple[ProgramRun, ...]) -> StackRun:
        first = programs[0]
        exports: dict[str, Any] = {}
        for run in programs:
            exports.update(run.exports)
        return cls(
            stack=first.stack,
            config=first.config,
            resources=[r for run in programs for r in run.resources],
            exports=exports,
            secret_exports=set().union(*(run.secret_exports for run in programs)),
            project=first.project,
            directory=first.directory,
            invokes=[i for run in programs for i in run.invokes],
            programs=programs,
        )
