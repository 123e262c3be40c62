"""The plan document as `change/` reads it: a typed model of the parts a diff compares.

The tooling writes the plan document (`mlplatform plan --json`, mlplatform/reports); `mlplatform diff` and
`check --against` read two of them back, one possibly saved by an older release. `PlanDocument.read` parses
that JSON at the boundary, so change/ reads attributes, not camelCase keys. The models are open (extra keys
are kept and ignored): the document holds far more than a diff reads, and a newer field is no error.
`mlplatform schema plan` prints the JSON Schema of this model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", alias_generator=to_camel, populate_by_name=True, frozen=True)


class PlanResource(_Part):
    """One registered resource, as the engine records it (Pulumi property names in `inputs`)."""

    urn: str
    type: str
    name: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    protect: bool = False
    ignore_changes: list[str] = Field(default_factory=list)
    replace_on_changes: list[str] = Field(default_factory=list)
    delete_before_replace: bool = False
    property_dependencies: dict[str, list[str]] = Field(default_factory=dict)


class NodeGroupEntry(_Part):
    """A managed node group: what a roll of it depends on."""

    name: str
    role: str | None = None
    max_size: int | None = None
    max_unavailable: int | None = None
    availability_zones: int | None = None
    force_update_version: bool = False


class DisruptionBudget(_Part):
    nodes: str | int | None = None
    reasons: list[str] | None = None


class Disruption(_Part):
    budgets: list[DisruptionBudget] = Field(default_factory=list)


class AmiSelectorTerm(_Part):
    alias: str | None = None


class NodeClassView(_Part):
    kind: str | None = None
    ami_selector_terms: list[AmiSelectorTerm] = Field(default_factory=list)


class NodePoolEntry(_Part):
    """A Karpenter or Auto Mode NodePool with its node class."""

    name: str
    node_class: NodeClassView | None = None
    disruption: Disruption | None = None
    limits: dict[str, Any] = Field(default_factory=dict)


class PlacementProfile(_Part):
    """A workload of the placement proof and the node templates (groups) it can land on."""

    name: str
    description: str = ""
    reaches: list[str] = Field(default_factory=list)
    per_node: bool = False
    preemption_mode: str | None = None


class NodeTemplate(_Part):
    """A node shape of the placement proof; `provisioner` and `source` say which group or pool it comes from."""

    name: str
    provisioner: str | None = None
    source: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)


class Placement(_Part):
    profiles: list[PlacementProfile] = Field(default_factory=list)
    node_templates: list[NodeTemplate] = Field(default_factory=list)


class CapacityQuotaReach(_Part):
    """One group or pool counted against an EC2 quota: its largest type in the quota, at max size."""

    source: str
    kind: str
    instance_type: str
    nodes: int
    amount: int  # vCPUs (a Capacity Block quota: 1 block)


class CapacityQuota(_Part):
    """One EC2 instance quota the stack reaches (model/capacity_quotas.py): what it needs against the value
    assumed, and the Service Quotas request that would cover it."""

    code: str
    name: str
    kind: str  # onDemand, spot, capacityBlock
    unit: str
    needed: int
    value: int | None  # the value assumed (None: unknown)
    assumed: str  # AWS default, quotas.ec2, live, unknown
    default: int | None = None
    over: bool = False
    request: str = ""
    reaches: list[CapacityQuotaReach] = Field(default_factory=list)


class CapacityQuotas(_Part):
    """The GPU capacity preflight: every EC2 instance quota the stack's GPU and spot groups reach."""

    values: str = "snapshot"  # snapshot (generated defaults and quotas.ec2) or live (Service Quotas)
    quotas: list[CapacityQuota] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)  # the generated data's generator, day and sources


class PlanDocument(_Part):
    """The parts of `mlplatform plan --json` that a diff reads."""

    environment: str | None = None
    kubernetes_version: str | None = None
    resources: list[PlanResource] = Field(default_factory=list)
    node_groups: list[NodeGroupEntry] = Field(default_factory=list)
    node_pools: list[NodePoolEntry] = Field(default_factory=list)
    placement: Placement = Field(default_factory=Placement)
    capacity_quotas: CapacityQuotas | None = None

    @classmethod
    def read(cls, doc: Mapping[str, Any] | PlanDocument) -> PlanDocument:
        """The typed document from its JSON form (pydantic's ValidationError names the path of a bad part)."""
        return doc if isinstance(doc, PlanDocument) else cls.model_validate(doc)

    def resource_records(self) -> list[dict[str, Any]]:
        """The resources in their JSON form, as resources.diff_resources compares them."""
        return [r.model_dump(by_alias=True) for r in self.resources]


def plan_document_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the plan document's typed parts."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **PlanDocument.model_json_schema(by_alias=True)}
