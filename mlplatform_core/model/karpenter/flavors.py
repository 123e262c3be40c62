"""The two Karpenters a stack's NodePools can run on: the one the stack installs, and the one EKS Auto Mode runs.

Both read the same NodePool API (karpenter.sh/v1), so a group becomes the same pool on either: labels,
taints, capacity type, limits, disruption budgets and weight (pools.py). What differs is here:
- the node class a pool points at: `karpenter.k8s.aws/EC2NodeClass` or `eks.amazonaws.com/NodeClass`;
- the domain of the instance-* labels nodes carry and requirements name: `karpenter.k8s.aws` or
  `eks.amazonaws.com` (EKS user guide, automode/create-node-pool.adoc "EKS Auto Mode Supported Labels":
  "EKS Auto Mode uses different labels than Karpenter");
- `kubernetes.io/os`, which Auto Mode does not support in requirements ("EKS Auto Mode Not Supported Labels");
- node expiry: Karpenter's 720h default; Auto Mode's 336h default ("Disruption": "Terminates instances after
  336 hours") under a 21-day node lifetime (automode.adoc "Security": "a maximum lifetime of 21 days").
  The lifetime also covers the drain: without a terminationGracePeriod Auto Mode gives each NodeClaim 24h
  ("Termination Grace Period"), so expireAfter may be at most 21 days less 24 hours, 480h.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import StackConfig
from ..config.karpenter_settings import AUTO_MODE, KARPENTER
from .capacity import AWS_LABEL
from .spec import NODE_CLASS_API, NODE_CLASS_KIND

AUTO_MODE_LABEL = "eks.amazonaws.com"
AUTO_MODE_MAX_LIFETIME_HOURS = 21 * 24
AUTO_MODE_TERMINATION_GRACE_HOURS = 24


@dataclass(frozen=True)
class Flavor:
    provisioner: str  # the stack's `provisioner` value (model/provisioners owns the flavor)
    settings_key: str  # the stack-file section of its settings (messages)
    settings_field: str  # ... and its StackConfig field
    # The stack installs this Karpenter (chart, EC2NodeClass with the launch template's interfaces, the launch
    # checks of karpenter/training.py); False: EKS runs it off-cluster (Auto Mode) and refuses its own way.
    installed: bool
    title: str  # for people: "Karpenter", "EKS Auto Mode"
    label_domain: str  # of the instance-* labels
    node_class_api: str
    node_class_kind: str
    os_requirement: bool  # whether requirements may name kubernetes.io/os
    default_expire_after: str
    max_expire_after_hours: int | None  # None: no ceiling (Never allowed)
    fixed_ami_family: str | None  # the image the flavor always runs (Auto Mode: Bottlerocket); None: the stack's
    # Whether efa: true alone puts a pool in a cluster placement group (an explicit placementGroup: cluster, or a
    # reservation's placementGroup, always does: the node class's placementGroupSelector names it).
    implied_placement_group: bool = True

    @property
    def pool_noun(self) -> str:
        return f"{'an' if self.title[0] in 'AEIOU' else 'a'} {self.title} NodePool"

    @property
    def node_class_group(self) -> str:
        return self.node_class_api.split("/", 1)[0]

    def instance_label(self, what: str) -> str:
        """e.g. instance_label("family") -> karpenter.k8s.aws/instance-family."""
        return f"{self.label_domain}/instance-{what}"

    def settings(self, cfg: StackConfig) -> Any:
        """The section with `node_pools` and `keep_node_groups` (KarpenterSettings or AutoModeSettings)."""
        return getattr(cfg, self.settings_field)


KARPENTER_FLAVOR = Flavor(
    provisioner=KARPENTER,
    settings_key="karpenter",
    settings_field="karpenter",
    installed=True,
    title="Karpenter",
    label_domain=AWS_LABEL,
    node_class_api=NODE_CLASS_API,
    node_class_kind=NODE_CLASS_KIND,
    os_requirement=True,
    default_expire_after="720h",
    max_expire_after_hours=None,
    fixed_ami_family=None,
)
AUTO_MODE_FLAVOR = Flavor(
    provisioner=AUTO_MODE,
    settings_key="autoMode",
    settings_field="auto_mode",
    installed=False,
    title="EKS Auto Mode",
    label_domain=AUTO_MODE_LABEL,
    node_class_api="eks.amazonaws.com/v1",
    node_class_kind="NodeClass",
    os_requirement=False,
    default_expire_after="336h",
    max_expire_after_hours=AUTO_MODE_MAX_LIFETIME_HOURS - AUTO_MODE_TERMINATION_GRACE_HOURS,
    # "Can run AWS Bottlerocket: Yes - Required" (automode/auto-mng.adoc); AWS picks the image and its GPU
    # drivers and device plugins (automode/auto-accelerated.adoc).
    fixed_ami_family="Bottlerocket",
    # The NodeClass selects a placement group (`placementGroupSelector`, the current EKS user guide "Manage EFA
    # devices" page; the older device-management-efa.adoc said Auto Mode had none): a pool gets one when the
    # stack asks for it, and efa alone keeps implying none, so that EFA pools planned before keep their nodes.
    implied_placement_group=False,
)


def duration_hours(text: str) -> float:
    """A Karpenter duration such as 720h or 1h30m in hours (the NodePool CRD's grammar, already checked)."""
    total, number = 0.0, ""
    for ch in text:
        if ch.isdigit():
            number += ch
        else:
            total += int(number) * {"h": 1.0, "m": 1 / 60, "s": 1 / 3600}[ch]
            number = ""
    return total
