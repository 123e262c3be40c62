"""The plan document (`mlplatform plan --json`), typed: what the tooling writes and what `change/` reads.

The tooling (mlplatform/reports) builds a `PlanDocument` from the recording and dumps it (`base.dump`: camelCase
keys in the fields' order); `mlplatform diff` and `check --against` read two documents back, one possibly saved
by an older release: `PlanDocument.read` parses that JSON at the boundary, so change/ reads attributes, not
camelCase keys. The models are open (extra keys are kept): a document of another release is no error. Parts that
are each provider's own properties (resource inputs, Kubernetes objects, chart values) stay open-ended dicts.
`mlplatform schema plan` prints the JSON Schema of this model, shipped as mlplatform_core/schemas/plan.schema.json.

Reading is lenient where a document of an earlier release of the same schemaVersion may lack a key: a part
requires only what names it (a resource's urn, a group's or a pool's name); the rest has a default.
One module per section; a new section is a module here and a field of `PlanDocument`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import Field

from .base import Part, SparsePart, Taint, dump
from .capacity import CapacityQuota, CapacityQuotaReach, CapacityQuotas
from .compute import AmiSelectorTerm, Disruption, DisruptionBudget, NodeClassView, NodeGroupEntry, NodePoolEntry
from .cost import CostLine, CostSection, CostTotal, CostTotals, LivePrices, PriceRange, Prices, Sizes, UnitPrice
from .deployment import (
    AccessEntry,
    AccessPolicy,
    AutoModeSection,
    DeploymentProgram,
    DeploymentSection,
    KubernetesSupport,
    StorageSection,
)
from .kubernetes import Addon, ChartRelease, Charts, ChartWorkload, KubernetesSection
from .placement import (
    GpuCapacity,
    GpuGroup,
    GroupPlacement,
    MatrixCell,
    MatrixRow,
    NodeTemplate,
    Placement,
    PlacementError,
    PlacementMatrix,
    PlacementProfile,
    QuotaUse,
    Reservation,
)
from .resources import Placeholder, PlanResource, ProgramOrder, ResourceRef, Wave
from .teams import KueueInfo, TeamEntry, TeamFlavor, TeamQuota, TeamsSection

__all__ = [
    "AccessEntry",
    "AccessPolicy",
    "Addon",
    "AmiSelectorTerm",
    "AutoModeSection",
    "CapacityQuota",
    "CapacityQuotaReach",
    "CapacityQuotas",
    "ChartRelease",
    "ChartWorkload",
    "Charts",
    "CostLine",
    "CostSection",
    "CostTotal",
    "CostTotals",
    "DeploymentProgram",
    "DeploymentSection",
    "Disruption",
    "DisruptionBudget",
    "GpuCapacity",
    "GpuGroup",
    "GroupPlacement",
    "KubernetesSection",
    "KubernetesSupport",
    "KueueInfo",
    "LivePrices",
    "MatrixCell",
    "MatrixRow",
    "NodeClassView",
    "NodeGroupEntry",
    "NodePoolEntry",
    "NodeTemplate",
    "Part",
    "Placeholder",
    "Placement",
    "PlacementError",
    "PlacementMatrix",
    "PlacementProfile",
    "PlanDocument",
    "PlanResource",
    "PriceRange",
    "Prices",
    "ProgramOrder",
    "QuotaUse",
    "Reservation",
    "ResourceRef",
    "Sizes",
    "SparsePart",
    "StorageSection",
    "Taint",
    "TeamEntry",
    "TeamFlavor",
    "TeamQuota",
    "TeamsSection",
    "UnitPrice",
    "Wave",
    "dump",
    "plan_document_schema",
]


class PlanDocument(SparsePart):
    """`mlplatform plan STACK --json`: what the stack builds, read back from the recording (docs/json.md)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"teams"})

    schema_version: str | None = None
    stack: str | None = None
    stack_named_by: str | None = None  # argument, fileName, option: where the stack's name came from
    environment: str | None = None
    source: str | None = None  # the stack file
    cluster_name: str | None = None
    region: str | None = None
    kubernetes_version: str | None = None
    kubernetes_support: KubernetesSupport | None = None
    deployment: DeploymentSection | None = None
    access: list[AccessEntry] = Field(default_factory=list)
    node_groups: list[NodeGroupEntry] = Field(default_factory=list)
    provisioner: str | None = None
    node_pools: list[NodePoolEntry] = Field(default_factory=list)
    resource_count: int | None = None
    resources: list[PlanResource] = Field(default_factory=list)
    exports: dict[str, Any] = Field(default_factory=dict)  # the stack's outputs (open-ended)
    placement: Placement = Field(default_factory=Placement)
    kubernetes: KubernetesSection | None = None
    capacity_quotas: CapacityQuotas | None = None  # the GPU capacity preflight (EC2 instance quotas)
    cost: CostSection | None = None
    storage: StorageSection | None = None
    deployment_order: list[ProgramOrder] = Field(default_factory=list)  # one per `pulumi up`
    teams: TeamsSection | None = None  # only a stack with `teams` (Kueue) has the section
    placeholders: list[Placeholder] = Field(default_factory=list)

    @classmethod
    def read(cls, doc: Mapping[str, Any] | PlanDocument) -> PlanDocument:
        """The typed document from its JSON form (pydantic's ValidationError names the path of a bad part)."""
        return doc if isinstance(doc, PlanDocument) else cls.model_validate(doc)

    def resource_records(self) -> list[dict[str, Any]]:
        """The resources in their JSON form, as resources.diff_resources compares them."""
        return [dump(r) for r in self.resources]


def plan_document_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the plan document."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **PlanDocument.model_json_schema(by_alias=True)}
