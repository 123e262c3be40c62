"""`placement`: the placement proof (node templates, each profile's groups, the matrix, invariant errors and
notes) and `placement.gpuCapacity` (training groups, reservations, GPU sharing, node health, EKS quotas)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .base import Part, SparsePart, Taint


class NodeTemplate(Part):
    """A node shape of the placement proof; `provisioner` and `source` say which group or pool it comes from."""

    name: str
    provisioner: str | None = None
    source: str | None = None
    kept: bool = False
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    instance_types: list[str] = Field(default_factory=list)
    largest_instance_type: str | None = None
    allocatable: dict[str, Any] | None = None  # cpu, memory, nvidia.com/gpu of the largest type
    unknown_instance_types: list[str] = Field(default_factory=list)


class GroupPlacement(SparsePart):
    """Whether a profile's pod can land on one group (node template), and why not; the types it fits on."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset(
        {"instance_types", "preference_score", "untolerated_prefer_no_schedule", "notes"}
    )

    name: str
    schedulable: bool
    reasons: list[str] = Field(default_factory=list)
    instance_types: list[str] = Field(default_factory=list)
    preference_score: int | None = None
    untolerated_prefer_no_schedule: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class PlacementProfile(Part):
    """A workload of the placement proof and the node templates (groups) it can land on."""

    name: str
    description: str = ""
    reaches: list[str] = Field(default_factory=list)
    preemption_mode: str | None = None
    per_node: bool = False
    groups: list[GroupPlacement] = Field(default_factory=list)


class MatrixCell(Part):
    schedulable: bool
    short: str = ""
    reasons: list[str] = Field(default_factory=list)


class MatrixRow(Part):
    profile: str
    description: str = ""
    cells: dict[str, MatrixCell] = Field(default_factory=dict)  # by group, in `groups` order


class PlacementMatrix(Part):
    """Profiles x groups: whether each profile's pods can land, with a short reason where not."""

    groups: list[str] = Field(default_factory=list)
    rows: list[MatrixRow] = Field(default_factory=list)


class PlacementError(Part):
    profile: str
    message: str = ""


class Reservation(SparsePart):
    """A capacity reservation a group launches into (an ODCR or a Capacity Block)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"placement_group"})

    id: str
    type: str
    instance_count: int | None = None
    end_date: str | None = None
    placement_group: str | None = None


class GpuGroup(SparsePart):
    """A GPU or single-zone group (or a kept one, or a Karpenter pool), by the placement proof's name."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"reservation", "gpu_resources", "scale_from_zero"})

    name: str
    provisioner: str | None = None  # nodeGroups, karpenter, autoMode
    capacity_type: str | None = None
    availability_zone: str | None = None
    placement_group: bool = False
    efa_interfaces: int = 0
    node_repair: bool = False
    reservation: Reservation | None = None
    # The GPU resource a pod requests, how many a node offers, the sharing and EFA (ml_settings/gpu_resources.py).
    gpu_resources: dict[str, Any] | None = None
    # The Cluster Autoscaler's scale-from-zero tags (the only reader of them).
    scale_from_zero: dict[str, Any] | None = None


class QuotaUse(Part):
    """An EKS service quota, the value applied (raised under `quotas:`, or AWS's default) and what the stack uses."""

    name: str
    limit: int | None = None
    used: int | None = None


class GpuCapacity(Part):
    groups: list[GpuGroup] = Field(default_factory=list)
    node_repair: bool = False
    pod_identity: bool = False
    gpu_metrics: bool = False
    quotas: list[QuotaUse] = Field(default_factory=list)


class Placement(Part):
    node_templates: list[NodeTemplate] = Field(default_factory=list)
    profiles: list[PlacementProfile] = Field(default_factory=list)
    matrix: PlacementMatrix = Field(default_factory=PlacementMatrix)
    ok: bool = True
    errors: list[PlacementError] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    gpu_capacity: GpuCapacity = Field(default_factory=GpuCapacity)
