"""The `scheduler:` setting: the cluster scheduler's NodeResourcesFit scoring (model/scheduler.py).

Its shape is EKS's (botocore eks 2017-11-01 KubeSchedulerConfigRequest: a scoring strategy LeastAllocated or
MostAllocated, resource weights 1-100, at most 100 resources). The toolkit's cluster cannot take it yet
(model/scheduler.py: pulumi-eks's Cluster has no kubeSchedulerConfig), so a valid setting is refused with what
would be needed; an invalid one is told what is wrong first.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ..scheduler import LEAST_ALLOCATED, MAX_RESOURCES, MAX_WEIGHT, MIN_WEIGHT, STRATEGIES
from ..scheduling import qualified_name_error
from .base import Count, SettingsModel
from .errors import show


class SchedulerSettings(SettingsModel):
    scoring: Literal[STRATEGIES] = LEAST_ALLOCATED  # type: ignore[valid-type]
    resource_weights: dict[str, Count] = Field(
        default_factory=lambda: {"cpu": 1, "memory": 1}, min_length=1, max_length=MAX_RESOURCES
    )

    @field_validator("resource_weights")
    @classmethod
    def _weights(cls, v: dict[str, int]) -> dict[str, int]:
        for name, weight in v.items():
            if err := qualified_name_error(name):
                raise ValueError(f"resource name {show(name)}: {err}")
            if not MIN_WEIGHT <= weight <= MAX_WEIGHT:
                raise ValueError(f"{name}: weight {show(weight)} is not between {MIN_WEIGHT} and {MAX_WEIGHT}")
        return v
