"""`quotas:` the raised values of adjustable EKS service quotas the account has (AWS defaults otherwise).

Each key names one quota of the EKS user guide's table (mlplatform_core/model/quotas.py reads the generated
data); only adjustable quotas can be raised, so only those have a key.
"""

from __future__ import annotations

from pydantic import Field

from .base import Count, SettingsModel

# setting key (snake_case field) -> the quota's name in the EKS user guide's table
QUOTA_NAMES = {
    "managed_node_groups_per_cluster": "Managed node groups per cluster",
    "nodes_per_managed_node_group": "Nodes per managed node group",
}


class QuotaSettings(SettingsModel):
    """Raised EKS quota values (Service Quotas console: Amazon Elastic Kubernetes Service)."""

    managed_node_groups_per_cluster: Count | None = Field(default=None, ge=1, le=100000)
    nodes_per_managed_node_group: Count | None = Field(default=None, ge=1, le=100000)
