"""Settings of where and how a group's nodes get capacity and devices: EFA and placement, capacity reservations,
GPU sharing. Each is a field of NodeGroupSettings; the checks that need the group's instance types live in
mlplatform_core/model/layout (training.py, sharing.py).
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from .base import Count, SettingsModel
from .errors import show

PLACEMENT_GROUPS = ("cluster", "none")
# How an EFA group's interfaces are laid out (model/efa.py): efaOnly (AWS's layout: an ENA primary interface and
# EFA-only interfaces that take no IP address) or efa (every interface EFA with ENA, each taking addresses).
EFA_INTERFACE_TYPES = ("efaOnly", "efa")
RESERVATION_TYPES = ("on-demand", "capacity-block")
MIG_STRATEGIES = ("single", "mixed")
# An EC2 Availability Zone name (not a zone ID): the region's name and a letter, e.g. us-east-1a, us-gov-west-1b.
AVAILABILITY_ZONE = r"^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$"


def _date(value: Any) -> Any:
    """A day or a moment (ISO 8601), as the user wrote it, quoted or not: the stack file's loader and the Pulumi
    engine both hand an unquoted `2026-12-01` over as text (scalars.plain_tag); a date object (a program's own
    config) is taken as it is."""
    if isinstance(value, bool) or not isinstance(value, str | datetime.date):
        raise ValueError(f"{show(value)} is not a date such as 2026-12-01 or 2026-12-01T11:30:00Z")
    if isinstance(value, datetime.date):
        return value
    text = value.strip()
    try:
        # A YAML timestamp may separate the time with a space (2026-12-01 11:30:00Z): fromisoformat takes either.
        return datetime.date.fromisoformat(text) if len(text) == 10 else datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{show(value)} is not a date such as 2026-12-01 or 2026-12-01T11:30:00Z") from None


# datetime first: pydantic takes a datetime for a date only at midnight (a Capacity Block ends at e.g. 11:30 UTC).
EndDate = Annotated[datetime.datetime | datetime.date, BeforeValidator(_date)]


class CapacityReservationSettings(SettingsModel):
    """An EC2 On-Demand Capacity Reservation or Capacity Block for ML the group launches into."""

    id: str = Field(pattern=r"^cr-[0-9a-z]+$")  # the EC2NodeClass CRD's pattern for capacity reservation ids
    type: Literal[RESERVATION_TYPES]  # type: ignore[valid-type]
    instance_count: Count | None = Field(default=None, ge=1, le=10000)
    end_date: EndDate | None = None
    # The existing cluster placement group an On-Demand Capacity Reservation was created in (EC2 names: up to 255
    # ASCII characters): the group's nodes launch into it instead of a placement group of the stack's own.
    placement_group: str | None = Field(default=None, pattern=r"^[ -~]{1,255}$")


class TimeSlicingSettings(SettingsModel):
    """CUDA time-slicing: the device plugin advertises each GPU `replicas` times (no memory or fault isolation)."""

    replicas: Count = Field(ge=2, le=128)


class MigSettings(SettingsModel):
    """Multi-Instance GPU: every GPU of the group split into one profile by NVIDIA's MIG manager."""

    strategy: Literal[MIG_STRATEGIES] = "single"  # type: ignore[valid-type]
    profile: str = Field(pattern=r"^[0-9]+g\.[0-9]+gb$")


class GpuSharingSettings(SettingsModel):
    """One of time-slicing or MIG."""

    time_slicing: TimeSlicingSettings | None = None
    mig: MigSettings | None = None

    @model_validator(mode="after")
    def _one(self) -> GpuSharingSettings:
        if (self.time_slicing is None) == (self.mig is None):
            raise ValueError("set exactly one of timeSlicing (replicas: N) or mig (strategy, profile)")
        return self


class NodeCapacitySettings(SettingsModel):
    """The fields NodeGroupSettings inherits: unset fields keep the toolkit's choice."""

    # Every EFA interface the type supports, one per network card, in one AZ and (by default) a placement group.
    efa: bool | None = None
    efa_interfaces: Literal[EFA_INTERFACE_TYPES] | None = None  # type: ignore[valid-type]
    placement_group: Literal[PLACEMENT_GROUPS] | None = None  # type: ignore[valid-type]
    availability_zone: str | None = Field(default=None, pattern=AVAILABILITY_ZONE)
    capacity_reservation: CapacityReservationSettings | None = None
    gpu_sharing: GpuSharingSettings | None = None
    # EKS node auto repair for this managed node group (default: the stack's nodeRepair).
    node_repair: bool | None = None
    # Nodes a NodePool keeps running whatever the pods ask (a static NodePool's `replicas`; model/karpenter/static.py).
    static_nodes: Count | None = Field(default=None, ge=1, le=1000)
