"""Which inputs of a resource type force its replacement, and in which order it is replaced.

The facts are generated (scripts/generators/generate_replacement.py -> data/replacement.json) from the providers' own
sources: terraform-provider-aws's ForceNew and RequiresReplace (pulumi-aws is bridged from it) and what its
CustomizeDiff may force new under a condition, pulumi-aws's overrides (DeleteBeforeReplace, auto-naming),
pulumi-eks's replaceOnChanges, pulumi-kubernetes's own force-new list (provider/pkg/provider/diff.go: every
object's metadata.name and namespace, then per kind) and Kubernetes' update validation (immutable fields).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..model.resource_types import (
    EKS_CLUSTER,
    EVENT_RULE,
    IAM_ROLE,
    LAUNCH_TEMPLATE,
    NODE_GROUP,
    SECURITY_GROUP,
    SQS_QUEUE,
)

# The property that names a resource when the program sets it (a fixed name): a replacement must then delete
# the old one first, or AWS / the API server answers "already exists".
NAME_PROPERTIES = {
    EKS_CLUSTER: "name",
    NODE_GROUP: "nodeGroupName",
    IAM_ROLE: "name",
    LAUNCH_TEMPLATE: "name",
    SECURITY_GROUP: "name",
    SQS_QUEUE: "name",
    EVENT_RULE: "name",
}
KUBERNETES_PREFIX = "kubernetes:"
# pulumi-kubernetes replaces any kind not in its list (custom resources too) on its identity only.
KUBERNETES_ANY = "kubernetes:*"


@dataclass(frozen=True)
class Facts:
    force_new: tuple[str, ...] | None  # None: the type's schema was not read (nothing known)
    delete_before_replace: bool = False
    auto_named: tuple[str, ...] = ()
    force_new_if: tuple[tuple[str, str], ...] = ()  # (path, the provider's function that decides)
    immutable: tuple[str, ...] = ()  # the API server refuses the update: only a replacement changes them
    # What an unset ForceNew input means to the provider: its default (schema Default, or the API default the
    # provider documents), or for an Optional+Computed one the value kept from state
    # (scripts/lib/force_new_defaults.py).
    defaults: tuple[tuple[str, Any], ...] = ()
    computed: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.force_new is not None


@cache
def _snapshot() -> dict[str, Any]:
    return json.loads(resources.files("mlplatform_core").joinpath("data/replacement.json").read_text("utf-8"))


def source() -> list[dict[str, Any]]:
    return list(_snapshot()["source"])


def facts(type_: str) -> Facts:
    entries = _snapshot()["resources"]
    entry = entries.get(type_)
    if entry is None and type_.startswith(KUBERNETES_PREFIX):
        entry = entries.get(KUBERNETES_ANY)
    if entry is None:
        return Facts(None)
    force_new = entry.get("forceNew")
    return Facts(
        tuple(force_new) if force_new is not None else None,
        bool(entry.get("deleteBeforeReplace")),
        tuple(entry.get("autoNamed", ())),
        tuple(sorted((entry.get("forceNewIf") or {}).items())),
        tuple(entry.get("immutable", ())),
        tuple(sorted((entry.get("defaults") or {}).items())),
        tuple(entry.get("computed", ())),
    )


def unset_is_same(f: Facts, path: str, before: Any, after: Any) -> bool:
    """Whether the provider plans no change for `path` going from `before` to `after`, one of them unset: an
    unset input and its default are the same value, and an unset Optional+Computed one keeps the current value
    (terraform-plugin-sdk: Default fills the configuration; Computed keeps the prior state when unset)."""
    default = dict(f.defaults)
    if path not in default and path not in f.computed:
        return False
    if before is None:
        return path in default and after == default[path]
    if after is None:
        return path in f.computed or (path in default and before == default[path])
    return False


def name_property(type_: str) -> str | None:
    if type_.startswith(KUBERNETES_PREFIX):
        return "metadata.name"
    return NAME_PROPERTIES.get(type_)


def overlaps(changed: str, fixed: str) -> bool:
    """Whether a change at `changed` touches the property path `fixed` (either contains the other)."""
    return changed == fixed or changed.startswith(fixed + ".") or fixed.startswith(changed + ".")
