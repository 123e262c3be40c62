"""Settings of the EKS Auto Mode provisioner: `provisioner: autoMode` and the `autoMode:` section.

With `provisioner: autoMode` AWS runs Karpenter, the VPC CNI, kube-proxy, cluster DNS, EBS CSI, load
balancing and the GPU device plugins on the cluster. Every group but the initial one becomes a NodePool
of Auto Mode's Karpenter with its own `NodeClass` (eks.amazonaws.com/v1); the group settings
(`nodeGroups.<g>`, `additionalNodeGroups`) still say what the group is, and `autoMode.nodePools.<g>`
adds what only a NodePool has (the same settings as `karpenter.nodePools.<g>`). Checks that need the
merged layout live in mlplatform_core/model/automode/.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from ..regions import partition_of
from .base import SettingsModel
from .errors import Problem, key_path, show
from .karpenter_settings import AUTO_MODE, NodePoolSettings

SYSTEM_POOL, MANAGED_NODE_GROUP = "systemPool", "managedNodeGroup"
INITIAL_GROUP_CHOICES = (SYSTEM_POOL, MANAGED_NODE_GROUP)
# The KMS key formats a NodeClass's ephemeralStorage.kmsKeyID accepts: key id, key ARN, alias name, alias ARN
# (EKS user guide, automode/auto-kms.adoc, "Configure NodeClass with your customer managed key").
KMS_KEY = (
    r"^(arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/[A-Za-z0-9/_-]+"
    r"|alias/[A-Za-z0-9/_-]+|(mrk-)?[0-9a-f-]{32,36})$"
)


# Regions EKS Auto Mode is not offered in: "EKS Auto Mode isn't available in the ap-southeast-7 or mx-central-1
# AWS Regions" (EKS user guide, automode/create-auto.adoc, read 2026-11-26). The API refuses computeConfig there.
NO_AUTO_MODE_REGIONS = ("ap-southeast-7", "mx-central-1")


def auto_mode_region_problems(provisioner: str, region: str) -> list[Problem]:
    """An Auto Mode stack in a region without Auto Mode fails at cluster creation: refused at plan instead."""
    if provisioner != AUTO_MODE or region not in NO_AUTO_MODE_REGIONS:
        return []
    return [
        Problem(
            key_path("provisioner"),
            f"autoMode, but EKS Auto Mode is not available in {region} (EKS user guide, create-auto.adoc: not in "
            f"{' or '.join(NO_AUTO_MODE_REGIONS)}); use provisioner: karpenter or nodeGroups there",
        )
    ]


def storage_key_problems(key: str | None, region: str) -> list[Problem]:
    """A key ARN of another partition or region cannot encrypt this region's volumes (KMS keys are regional;
    an EBS volume takes a key of its own region): refused before Auto Mode fails to launch any node."""
    parts = (key or "").split(":")
    if len(parts) < 4 or parts[0] != "arn":
        return []  # a key id or alias name: resolved in the stack's own account and region
    partition, key_region = parts[1], parts[3]
    if partition == partition_of(region) and key_region == region:
        return []
    return [
        Problem(
            key_path("autoMode", "ephemeralStorageKmsKey"),
            f"{show(key)} is a key of {key_region} ({partition}), but the stack's nodes are in {region} "
            f"({partition_of(region)}); a volume is encrypted with a key of its own region: use a key (or alias) "
            f"in {region}",
        )
    ]


class AutoModeSettings(SettingsModel):
    """EKS Auto Mode and its NodePools (used with provisioner: autoMode)."""

    # Where the core services run: Auto Mode's built-in `system` pool (CriticalAddonsOnly taint, on-demand,
    # sized by Auto Mode), or the initial managed node group as with the other provisioners.
    initial_group: Literal[INITIAL_GROUP_CHOICES] = SYSTEM_POOL  # type: ignore[valid-type]
    # Auto Mode's built-in `general-purpose` pool takes any pod without a selector on unlabelled nodes;
    # off by default so every pod lands on a group of the layout.
    general_purpose_pool: bool = False
    # The KMS key of every node's volumes; unset, Auto Mode encrypts them with the account's aws/ebs key.
    ephemeral_storage_kms_key: str | None = Field(default=None, pattern=KMS_KEY)
    # Migration: keep each pool's managed node group (unchanged, no autoscaler) next to the pool until its
    # nodes are drained; then remove this setting and the emptied groups are deleted.
    keep_node_groups: bool = False
    # Migration from Karpenter: keep the Karpenter controller, its IAM, queue, EC2NodeClasses and NodePools
    # (from the `karpenter` settings, unchanged) next to Auto Mode's until their nodes are drained.
    keep_karpenter: bool = False
    # Appended to the group's name for its NodePool and NodeClass: the Karpenter pools keep the group names while
    # both run (NodePools share one API and a pool's nodeClassRef cannot change). Keep it afterwards: a new name
    # replaces the pool and drains its nodes.
    node_pool_suffix: str = Field(default="", max_length=20)
    node_pools: dict[str, NodePoolSettings] = Field(default_factory=dict)

    @field_validator("node_pool_suffix")
    @classmethod
    def _suffix(cls, v: str) -> str:
        if not re.fullmatch(r"(-[a-z0-9]+)*", v):
            raise ValueError(
                f"{show(v)} is not a name suffix such as -auto: a '-' then lower-case letters and digits (the NodePool "
                "and NodeClass names must stay valid Kubernetes names)"
            )
        return v

    @property
    def system_pool(self) -> bool:
        return self.initial_group == SYSTEM_POOL
