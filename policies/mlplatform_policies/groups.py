"""Every provisioner's groups of nodes, seen alike: a managed node group, a Karpenter NodePool, any later one.

A rule about groups (which roles prod may have, which capacity its workload groups use) holds for every
provisioner. Declared with `resources: groups` (rules.yaml), it receives each resource of the types in
GROUP_VIEWS and reads it through `group_view`, whatever made it. A new provisioner registers its group
resource type and view here (`register`), and every such rule sees its groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from mlplatform_core.model.resource_types import NODE_GROUP, NODE_POOL

from .karpenter_pools import pool_of
from .layout import group_of

GROUPS = "groups"  # `resources: groups` in rules.yaml: every provisioner's group resource types


class GroupView(Protocol):
    """What a group rule reads, the same for every provisioner."""

    name: str

    @property
    def role(self) -> Any: ...

    @property
    def spot(self) -> bool: ...

    @property
    def declared_gpu(self) -> bool: ...


# resource type -> (what users call it, how to read it from a policy's args)
GROUP_VIEWS: dict[str, tuple[str, Callable[[Any], GroupView]]] = {
    NODE_GROUP: ("node group", group_of),
    NODE_POOL: ("NodePool", pool_of),
}


def group_types() -> tuple[str, ...]:
    return tuple(GROUP_VIEWS)


def group_view(args: Any) -> tuple[str, GroupView]:
    """(what the group is called, its view) of one resource of a group type."""
    kind, view = GROUP_VIEWS[args.resource_type]
    return kind, view(args)


def groups_in(resources: Iterable[Any]) -> list[tuple[str, GroupView]]:
    """Every group of a stack, whichever provisioner made it."""
    return [group_view(r) for r in resources if r.resource_type in GROUP_VIEWS]


def is_initial(view: GroupView) -> bool:
    return view.role == "initial"


def role_words(view: GroupView) -> set[str]:
    """The words of the group's role and name (jupyter-gpu and gpu-dev hold `dev`/`jupyter`; devops does not)."""
    return {w for x in (view.role, view.name) for w in str(x).lower().replace("_", "-").split("-")}


# --- the rules ------------------------------------------------------------------------------------


def dev_groups(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    kind, g = group_view(args)
    forbidden = {str(r).lower() for r in cfg["forbiddenRoles"]}
    # The dev layout's own roles, matched whole: a prod group with role jobs is the dev jobs group, whatever
    # its name (a prod group named nightly-jobs with another role is not).
    dev_role = str(g.role).lower() in {str(r).lower() for r in cfg["developmentRoles"]}
    if role_words(g) & forbidden or dev_role:
        yield (
            f"{kind} {g.name} (role {g.role}) is for development work; no Jupyter, jobs or dev groups on the "
            "production cluster"
        )


def prod_on_demand(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    kind, g = group_view(args)
    if not is_initial(g) and g.spot:
        yield (
            f"prod workload {kind} {g.name} runs on SPOT capacity; production jobs are stateful more often "
            "than not and should run on ON_DEMAND nodes"
        )
