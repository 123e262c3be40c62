"""Settings of the Karpenter provisioner: `provisioner: karpenter` and the `karpenter:` section.

With `provisioner: karpenter` the initial group stays a managed node group (the controller runs there)
and every other group of the layout becomes a Karpenter NodePool. The group settings (`nodeGroups.<g>`,
`additionalNodeGroups`) still say what the group is; `karpenter.nodePools.<g>` adds what only a NodePool
has. Checks that need the merged layout live in mlplatform_core/model/karpenter/pools.py.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ..quantity import QuantityError, parse_quantity
from ..scheduling import GPU_RESOURCE
from .base import Count, Pattern, QuotaAmount, SettingsModel
from .durations import Duration
from .errors import show

NODE_GROUPS, KARPENTER = "nodeGroups", "karpenter"
PROVISIONERS = (NODE_GROUPS, KARPENTER)
CONSOLIDATION_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized")
# An empty node stays at most a week before consolidation (longer is a bill, not a buffer); a node lives at most a
# year (Never turns expiry off): nodes older than that miss every AMI fix.
MAX_CONSOLIDATE_AFTER = 7 * 24 * 3600
MAX_EXPIRE_AFTER = 365 * 24 * 3600
LIMIT_KEYS = ("cpu", "memory", GPU_RESOURCE)


def _limit(key: str, value: Any) -> str:
    try:
        q = parse_quantity(value)
    except QuantityError as exc:
        raise ValueError(f"limits.{key}: {exc}") from None
    if q <= 0:
        raise ValueError(f"limits.{key}: {show(value)} must be greater than 0")
    if key != "cpu" and q.denominator != 1:
        raise ValueError(f"limits.{key}: {show(value)} is not a whole number")
    return value if isinstance(value, str) else str(value)


class NodePoolSettings(SettingsModel):
    """What a group's NodePool adds to the group settings. Unset fields keep the toolkit's choice."""

    # Instead of the group's instanceTypes: every catalog type of these families (and sizes), e.g. m5, m6i.
    instance_families: list[str] | None = Field(default=None, min_length=1, max_length=50)
    instance_sizes: list[str] | None = Field(default=None, min_length=1, max_length=50)
    consolidation_policy: Literal[CONSOLIDATION_POLICIES] | None = None  # type: ignore[valid-type]
    consolidate_after: Duration(MAX_CONSOLIDATE_AFTER) | None = None  # type: ignore[valid-type]
    expire_after: Duration(MAX_EXPIRE_AFTER, never=True, positive=True) | None = None  # type: ignore[valid-type]
    # Overrides of the limits derived from maxSize: cpu, memory, nvidia.com/gpu.
    limits: dict[str, QuotaAmount] = Field(default_factory=dict)
    weight: Count | None = Field(default=None, ge=1, le=100)

    @field_validator("instance_families", "instance_sizes")
    @classmethod
    def _names(cls, v: list[str] | None) -> list[str] | None:
        for name in v or []:
            if not isinstance(name, str) or not name or not all(c.isalnum() or c == "-" for c in name):
                raise ValueError(f"{show(name)} is not an instance family or size such as m6i or 2xlarge")
            if name != name.lower():
                raise ValueError(f"{show(name)}: instance families and sizes are lower case (e.g. m6i, 2xlarge)")
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"{show(v)} lists a value twice")
        return v

    @field_validator("limits")
    @classmethod
    def _limits(cls, v: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in v.items():
            if key not in LIMIT_KEYS:
                raise ValueError(
                    f"limits: {show(key)} is not a NodePool limit the toolkit sets; use {', '.join(LIMIT_KEYS)} "
                    "(the node count comes from maxSize)"
                )
            out[key] = _limit(key, value)
        return out


class KarpenterSettings(SettingsModel):
    """The Karpenter controller and its NodePools (used with provisioner: karpenter)."""

    # The AMI release of every EC2NodeClass alias (al2023@<v>, bottlerocket@<v>). Unset: the AL2023 release pinned
    # for the cluster's minor (model/karpenter/amis.py). `latest` replaces every node whenever AWS publishes an AMI.
    ami_version: (
        Pattern(  # type: ignore[valid-type]
            r"^(latest|v[0-9][0-9.]*)$", "latest or an AMI release such as v20260801"
        )
        | None
    ) = None
    replicas: Count = Field(default=2, ge=1, le=5)
    # Migration from node groups: keep each pool's managed node group (unchanged, no autoscaler) next to the pool
    # until its nodes are drained; then remove this setting and the emptied groups are deleted.
    keep_node_groups: bool = False
    node_pools: dict[str, NodePoolSettings] = Field(default_factory=dict)
