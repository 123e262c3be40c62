"""`nodeGroups` and `nodePools`: the managed node groups, and Karpenter's or EKS Auto Mode's NodePools.

What comes from a resource's inputs as the provider spells it (requirements, a pool's taints, limits, the launch
template, what a node class sets) stays open-ended (dicts); what a roll or a diff reads is typed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .base import Part, SparsePart, Taint


class NodeGroupEntry(Part):
    """A managed node group (aws.eks.NodeGroup) with its component's ASG tags and launch template."""

    name: str
    role: str | None = None
    capacity_type: str | None = None
    instance_types: list[str] = Field(default_factory=list)
    ami_type: str | None = None
    min_size: int | None = None
    max_size: int | None = None
    desired_size: int | None = None
    # `pulumi up` leaves the desired size of the group alone (ignoreChanges).
    desired_size_ignored: bool = False
    autoscaled: bool = False
    # Nodes replaced at a time when EKS rolls the group (UpdateNodegroupVersion).
    max_unavailable: int | None = None
    # A roll's scale-up phase adds up to twice this many nodes first (mlplatform_core/change/rolls.py).
    availability_zones: int | None = None
    # Off unless set: a roll then fails on a node whose pods do not leave in 15 minutes.
    force_update_version: bool = False
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    autoscaler_tags: dict[str, str] = Field(default_factory=dict)
    launch_template: dict[str, Any] | None = None


class DisruptionBudget(SparsePart):
    """One of a NodePool's disruption budgets (Karpenter's order: reasons, nodes, schedule, duration)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"reasons", "nodes", "schedule", "duration"})

    reasons: list[str] | None = None
    nodes: str | int | None = None
    schedule: str | None = None
    duration: str | None = None


class Disruption(SparsePart):
    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"consolidation_policy", "consolidate_after", "budgets"})

    consolidation_policy: str | None = None
    consolidate_after: str | None = None
    budgets: list[DisruptionBudget] = Field(default_factory=list)


class AmiSelectorTerm(SparsePart):
    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"alias", "id"})

    alias: str | None = None
    id: str | None = None


class NodeClassView(SparsePart):
    """A pool's node class: its name and kind (EC2NodeClass, or Auto Mode's NodeClass) and what it sets."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset(
        {
            "ami_selector_terms",
            "role",
            "metadata_options",
            "block_device_mappings",
            "subnet_selector_terms",
            "security_group_selector_terms",
            "ephemeral_storage",
            "advanced_networking",
            "capacity_reservation_selector_terms",
            "placement_group_selector",
        }
    )

    name: str | None = None
    kind: str | None = None
    ami_selector_terms: list[AmiSelectorTerm] = Field(default_factory=list)
    role: str | None = None
    metadata_options: dict[str, Any] | None = None
    block_device_mappings: list[dict[str, Any]] | None = None
    subnet_selector_terms: list[dict[str, Any]] | None = None
    security_group_selector_terms: list[dict[str, Any]] | None = None
    ephemeral_storage: dict[str, Any] | None = None
    advanced_networking: dict[str, Any] | None = None
    capacity_reservation_selector_terms: list[dict[str, Any]] | None = None
    placement_group_selector: dict[str, Any] | None = None


class NodePoolEntry(SparsePart):
    """A Karpenter or Auto Mode NodePool with its node class; `instanceTypes`: every catalog type it allows
    (written when the layout plans the pool)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"replicas", "instance_types"})

    name: str
    requirements: list[dict[str, Any]] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[dict[str, Any]] = Field(default_factory=list)
    limits: dict[str, Any] = Field(default_factory=dict)
    disruption: Disruption | None = None
    expire_after: str | None = None
    weight: int | None = None
    node_class: NodeClassView | None = None
    replicas: int | None = None  # a static pool (staticNodes): this many nodes always run
    instance_types: list[str] = Field(default_factory=list)
