"""Which inputs of a resource type force its replacement, and in which order it is replaced.

The facts are generated (scripts/generate_replacement.py -> data/replacement.json) from the providers' own
sources: terraform-provider-aws's ForceNew (pulumi-aws is bridged from it), pulumi-aws's overrides
(DeleteBeforeReplace, auto-naming), pulumi-eks's replaceOnChanges and Kubernetes' update validation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# The property that names a resource when the program sets it (a fixed name): a replacement must then delete
# the old one first, or AWS / the API server answers "already exists".
NAME_PROPERTIES = {
    "aws:eks/cluster:Cluster": "name",
    "aws:eks/nodeGroup:NodeGroup": "nodeGroupName",
    "aws:iam/role:Role": "name",
    "aws:ec2/launchTemplate:LaunchTemplate": "name",
    "aws:ec2/securityGroup:SecurityGroup": "name",
    "aws:sqs/queue:Queue": "name",
    "aws:cloudwatch/eventRule:EventRule": "name",
}
KUBERNETES_PREFIX = "kubernetes:"


@dataclass(frozen=True)
class Facts:
    force_new: tuple[str, ...] | None  # None: the type's schema was not read (nothing known)
    delete_before_replace: bool = False
    auto_named: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.force_new is not None


@cache
def _snapshot() -> dict[str, Any]:
    return json.loads(resources.files("mlplatform_core").joinpath("data/replacement.json").read_text("utf-8"))


def source() -> list[dict[str, Any]]:
    return list(_snapshot()["source"])


def facts(type_: str) -> Facts:
    entry = _snapshot()["resources"].get(type_)
    if entry is None:
        return Facts(None)
    force_new = entry.get("forceNew")
    return Facts(
        tuple(force_new) if force_new is not None else None,
        bool(entry.get("deleteBeforeReplace")),
        tuple(entry.get("autoNamed", ())),
    )


def name_property(type_: str) -> str | None:
    if type_.startswith(KUBERNETES_PREFIX):
        return "metadata.name"
    return NAME_PROPERTIES.get(type_)


def overlaps(changed: str, fixed: str) -> bool:
    """Whether a change at `changed` touches the property path `fixed` (either contains the other)."""
    return changed == fixed or changed.startswith(fixed + ".") or fixed.startswith(changed + ".")
