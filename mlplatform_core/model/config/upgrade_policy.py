"""`upgradePolicy.supportType`: what EKS does when the cluster's Kubernetes minor leaves standard support.

EKS's own default (an unset upgrade policy) is EXTENDED: the cluster stays on its minor for up to 12 more
months and the control plane bills the extended-support price from the first day after standard support
(EKS user guide, kubernetes-versions; aws_eks_cluster `upgrade_policy.support_type`, terraform-provider-aws
internal/service/eks/cluster.go). The toolkit never leaves it to that default: dev stacks get STANDARD
unless they say otherwise (EKS upgrades the control plane at the end of standard support instead of billing
extended support silently), prod stacks must choose.
"""

from __future__ import annotations

from typing import Literal

from .base import SettingsModel
from .errors import Problem, key_path

DEV_DEFAULT = "STANDARD"
SupportType = Literal["STANDARD", "EXTENDED"]


class UpgradePolicy(SettingsModel):
    support_type: SupportType | None = None


def effective_support_type(policy: UpgradePolicy, environment: str) -> SupportType:
    """The support type the cluster is created with (prod has none unset: upgrade_policy_problems refuses it)."""
    return policy.support_type or DEV_DEFAULT


def upgrade_policy_problems(policy: UpgradePolicy, environment: str) -> list[Problem]:
    if environment == "prod" and policy.support_type is None:
        return [
            Problem(
                key_path("upgradePolicy", "supportType"),
                "required in prod (EKS alone would pick EXTENDED and bill it silently): STANDARD (EKS upgrades the "
                "control plane one minor when standard support ends) or EXTENDED (the cluster stays on its minor "
                "up to 12 more months at the extended-support price)",
            )
        ]
    return []
