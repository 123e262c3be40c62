"""Settings of one node group: overrides of a built-in group, or a group of its own (additionalNodeGroups)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..instances import INSTANCE_TYPE_PATTERN
from ..scheduling import EFFECTS, MAX_TAINTS, label_value_error, qualified_name_error
from .base import Count, Pattern, SettingsModel, check_labels
from .errors import show
from .node_capacity import NodeCapacitySettings

# EKS managed node group AMI types (the EKS API's spelling); AL2 reached end of support on 2025-11-26.
GPU_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
)
STANDARD_AMI_TYPES = ("AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD", "BOTTLEROCKET_x86_64", "BOTTLEROCKET_ARM_64")
# How pods get a GPU group's GPUs (model/layout/allocation.py): the NVIDIA device plugin (extended resource
# nvidia.com/gpu) or Dynamic Resource Allocation (ResourceClaims against the NVIDIA DRA driver's DeviceClasses).
GPU_ALLOCATIONS = ("devicePlugin", "dra")


class TaintSettings(SettingsModel):
    key: str
    value: str = ""
    effect: str = "NoSchedule"

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if err := qualified_name_error(v):
            raise ValueError(f"taint key {show(v)} {err}")
        return v

    @field_validator("value")
    @classmethod
    def _value(cls, v: str) -> str:
        if err := label_value_error(v):
            raise ValueError(f"taint value {show(v)} {err}")
        return v

    @field_validator("effect")
    @classmethod
    def _effect(cls, v: str) -> str:
        if v not in EFFECTS:
            raise ValueError(f"taint effect {show(v)} is not one of {', '.join(EFFECTS)} (Kubernetes spelling)")
        return v


class NodeGroupSettings(NodeCapacitySettings):
    """Overrides of one node group's layout defaults. Unset fields keep the defaults (the EFA, reservation,
    sharing and node-repair fields come from NodeCapacitySettings)."""

    enabled: bool | None = None
    instance_types: list[str] | None = Field(default=None, min_length=1, max_length=20)
    # CAPACITY_BLOCK only with a capacityReservation of type capacity-block (which implies it).
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] | None = None
    ami_type: Literal[GPU_AMI_TYPES + STANDARD_AMI_TYPES] | None = None  # type: ignore[valid-type]
    min_size: Count | None = Field(default=None, ge=0, le=1000)
    max_size: Count | None = Field(default=None, ge=1, le=1000)
    desired_size: Count | None = Field(default=None, ge=0, le=1000)
    disk_size_gib: Count | None = Field(default=None, ge=20, le=16384)
    max_unavailable: Count | None = Field(default=None, ge=1, le=100)
    # Taint the group with its role so that only pods that ask for it (toleration + selector) land there.
    dedicated: bool | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[TaintSettings] = Field(default_factory=list, max_length=MAX_TAINTS)
    # Unset: devicePlugin, so that a stack written before the setting keeps its device plugin (never flipped).
    gpu_allocation: Literal[GPU_ALLOCATIONS] | None = None  # type: ignore[valid-type]

    @field_validator("instance_types")
    @classmethod
    def _types(cls, v: list[str] | None) -> list[str] | None:
        for t in v or []:
            if not isinstance(t, str) or not INSTANCE_TYPE_PATTERN.match(t):
                raise ValueError(f"instance type {show(t)} is not an EC2 instance type name (e.g. m5.2xlarge)")
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"instance types {show(v)} list a type twice")
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        return check_labels(v)


class AdditionalNodeGroup(NodeGroupSettings):
    """A group beyond the built-in layout, e.g. a second GPU or a memory-optimised group."""

    name: Pattern(  # type: ignore[valid-type]
        r"^[a-z][a-z0-9-]{0,37}[a-z0-9]$",
        "a group name: 2 to 39 characters, lower-case letters, digits and '-', starting with a letter and "
        "ending with a letter or a digit",
    )
    role: (  # type: ignore[valid-type]
        Pattern(
            r"^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "a role: 1 to 63 characters, lower-case letters, digits and '-', starting and ending with a letter "
            "or a digit (it becomes a label value)",
        )
        | None
    ) = None
    gpu: bool = False
