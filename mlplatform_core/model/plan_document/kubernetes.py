"""`kubernetes`: the workload layer as Kubernetes objects (open-ended: each kind's own fields), the add-ons with
their values, and `charts`, each Helm release as its chart renders with the stack's values (the chart proof)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .base import Part, SparsePart


class Addon(SparsePart):
    """A Helm release (kind helm: chart, repo, namespace) or an EKS managed add-on (kind eks-addon: createdBy)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"chart", "repo", "namespace", "created_by"})

    name: str
    kind: str
    chart: str | None = None
    version: str | None = None
    repo: str | None = None
    namespace: str | None = None
    values: Any = None
    created_by: str | None = None


class ChartWorkload(Part):
    kind: str
    name: str
    images: list[str] = Field(default_factory=list)


class ChartRelease(Part):
    release: str
    chart: str | None = None
    version: str | None = None
    app_version: str | None = None
    namespace: str | None = None
    workloads: list[ChartWorkload] = Field(default_factory=list)


class Charts(Part):
    """The chart proof: each release's workloads and images, what a workload needs beyond the hardening baseline
    (stated), and what the proof found wrong."""

    releases: list[ChartRelease] = Field(default_factory=list)
    stated_needs: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


class KubernetesSection(Part):
    objects: list[dict[str, Any]] = Field(default_factory=list)  # apiVersion, kind, then the object's fields
    addons: list[Addon] = Field(default_factory=list)
    charts: Charts = Field(default_factory=Charts)
