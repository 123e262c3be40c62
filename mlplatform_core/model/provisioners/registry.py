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


for _p in (NodeGroups(), Karpenter(), AutoMode()):
    register(_p)
