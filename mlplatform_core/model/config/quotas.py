"""`quotas:` the raised values of adjustable service quotas the account has (AWS defaults otherwise).

EKS quotas: each key names one quota of the EKS user guide's table (mlplatform_core/model/quotas.py reads the
generated data); only adjustable quotas can be raised, so only those have a key. EC2 instance quotas
(`quotas.ec2`): a map from the quota's code, as Service Quotas shows it and as `aws service-quotas
request-service-quota-increase --quota-code` takes it, to the value applied in the account and region
(mlplatform_core/model/ec2_quotas.py: the codes the generated data has).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from ..ec2_quotas import quotas as ec2_quotas
from .base import Count, SettingsModel
from .messages import did_you_mean

# setting key (snake_case field) -> the quota's name in the EKS user guide's table
QUOTA_NAMES = {
    "managed_node_groups_per_cluster": "Managed node groups per cluster",
    "nodes_per_managed_node_group": "Nodes per managed node group",
}


def _unknown_code(code: str) -> str:
    known = ec2_quotas()
    near = did_you_mean(code, list(known))
    hint = f" (did you mean {near}, {known[near].name}?)" if near else ""
    valid = "; ".join(f"{c} {q.name}" for c, q in sorted(known.items(), key=lambda kv: (kv[1].kind, kv[1].name)))
    return f"{code} is not an EC2 instance quota code{hint}; valid codes: {valid}"


class QuotaSettings(SettingsModel):
    """Raised quota values: EKS (Service Quotas console: Amazon Elastic Kubernetes Service) and EC2 instance
    quotas by code (Amazon Elastic Compute Cloud)."""

    managed_node_groups_per_cluster: Count | None = Field(default=None, ge=1, le=100000)
    nodes_per_managed_node_group: Count | None = Field(default=None, ge=1, le=100000)
    # the stack file's schema lists the codes, so that an editor completes them
    ec2: dict[str, Count] = Field(
        default_factory=dict, json_schema_extra=lambda s: s.update(propertyNames={"enum": sorted(ec2_quotas())})
    )

    @field_validator("ec2")
    @classmethod
    def _codes(cls, v: dict[str, int]) -> dict[str, int]:
        for code, value in v.items():
            if code not in ec2_quotas():
                raise ValueError(_unknown_code(code))
            if value < 0:
                raise ValueError(f"{code}: {value} is negative; a quota value is 0 or more (vCPUs or blocks)")
        return v
