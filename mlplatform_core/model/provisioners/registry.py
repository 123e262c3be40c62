"""The provisioners by name: a stack's (`provisioner_of(cfg)`) or a layout's (`of(layout)`).

A new provisioner is one module implementing base.Provisioner and one `register` call below (the stack file's
`provisioner` value also lists the names: config/karpenter_settings.py PROVISIONERS). Registration order is the
order their settings sections are checked in (layout/build.py).
"""

from __future__ import annotations

from typing import Any

from ..config import StackConfig
from .auto_mode import AutoMode
from .base import Provisioner
from .karpenter import Karpenter
from .node_groups import NodeGroups

_REGISTRY: dict[str, Provisioner] = {}
# Launches every group that is not one of the stack's provisioner's pools (the initial group of a Karpenter or
# Auto Mode stack, the groups a migration keeps): its answers hold for those groups whatever the provisioner.
_MANAGED = NodeGroups()


def register(provisioner: Provisioner) -> Provisioner:
    """Add (or replace) a provisioner under its name."""
    _REGISTRY[provisioner.name] = provisioner
    return provisioner


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def named(name: str) -> Provisioner:
    """The provisioner of a `provisioner` value; a KeyError names the registered ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no provisioner {name!r}; registered: {', '.join(_REGISTRY)}") from None


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def every() -> tuple[Provisioner, ...]:
    return tuple(_REGISTRY.values())


def provisioner_of(cfg: StackConfig) -> Provisioner:
    """The stack's provisioner."""
    return named(cfg.provisioner)


def of(layout: Any) -> Provisioner:
    """The provisioner of a layout (model/layout/spec.py Layout, or anything with its `provisioner` name)."""
    return named(layout.provisioner)


def managed_groups() -> Provisioner:
    """The provisioner of managed node groups."""
    return _MANAGED


def launching(cfg: StackConfig, group: str) -> Provisioner:
    """What launches a group of the stack file: the stack's provisioner for one of its pools, else a managed node
    group."""
    provisioner = provisioner_of(cfg)
    return provisioner if provisioner.is_pool(cfg, group) else _MANAGED


def launcher(group: Any) -> Provisioner:
    """What launches a layout group (NodeGroupSpec), by its marks: the latest registered provisioner that claims it
    (a new provisioner may reuse a shipped one's marks, as the Karpenter-based ones share `karpenter`)."""
    return next(p for p in reversed(_REGISTRY.values()) if p.launches(group))


for _p in (_MANAGED, Karpenter(), AutoMode()):
    register(_p)
