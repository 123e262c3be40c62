"""provisioner: autoMode: EKS runs the nodes (its own Karpenter, off-cluster) and their networking, DNS, storage and
GPU plugins; every group but the initial one becomes an Auto Mode NodePool, the built-in system pool may take the
initial group's place (automode/pools.py). A stack moving here may keep its managed node groups
(autoMode.keepNodeGroups) and its Karpenter with its pools (autoMode.keepKarpenter) until their nodes are drained."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..automode import pools as automode_pools
from ..config import StackConfig
from ..eks_versions import minor_key
from ..karpenter import pools as karpenter_pools
from ..karpenter.flavors import AUTO_MODE_FLAVOR, KARPENTER_FLAVOR, Flavor
from ..karpenter.spec import NodePoolSpec
from ..karpenter.static import AUTO_MODE_STATIC, StaticSupport
from .base import AUTO_MODE_FEE, AUTO_MODE_PART, KARPENTER_PART, Add, Kept, LayoutLike, Part
from .karpenter import KARPENTER_CHARTS
from .node_pools import NodePoolProvisioner

DRA_MIN_KUBERNETES = "1.36"  # Auto Mode's node runtime ships the NVIDIA and EFA DRA drivers from 1.36


@dataclass(frozen=True)
class AutoMode(NodePoolProvisioner):
    flavor: Flavor = field(default=AUTO_MODE_FLAVOR)
    initial_group_note: str = (
        " (with Auto Mode, autoMode.initialGroup: systemPool runs them on the built-in system pool)"
    )
    run_by_aws: bool = True
    cost_kinds: tuple[str, ...] = (AUTO_MODE_FEE,)
    static_capacity: StaticSupport | str = AUTO_MODE_STATIC
    # From 1.36 Auto Mode's node runtime brings the NVIDIA DRA driver (EKS user guide "Manage hardware devices on
    # Amazon EKS": "nothing for you to install or manage"): neither the chart nor its DeviceClasses are the stack's.
    installs_dra_driver: bool = False
    group_kind: str = "EKS Auto Mode NodePool"

    def launches(self, group: Any) -> bool:
        return group.auto_mode

    def dra_problem(self, minor: str, min_size: int, max_size: int, settings: Any) -> str | None:
        """On 1.35 and below Auto Mode's GPU nodes run the device plugin."""
        if minor_key(minor) >= minor_key(DRA_MIN_KUBERNETES):
            return None
        return (
            f"Auto Mode's node runtime brings the NVIDIA DRA driver from Kubernetes {DRA_MIN_KUBERNETES}; on "
            f"{minor} its GPU nodes run the device plugin; use gpuAllocation: devicePlugin, or kubernetesVersion "
            f'"{DRA_MIN_KUBERNETES}" or later'
        )

    def kept_sections(self, cfg: StackConfig) -> frozenset[str]:
        """Migrating from Karpenter: its section stays, it builds the kept pools."""
        return frozenset({KARPENTER_FLAVOR.settings_key}) if cfg.auto_mode.keep_karpenter else frozenset()

    def node_pools(self, cfg: StackConfig, groups: list[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
        return automode_pools.build_node_pools(cfg, groups, add)

    def kept(self, cfg: StackConfig, groups: Sequence[Any], add: Add) -> Kept:
        # The built-in system pool takes the initial group's place: then that one is kept as well.
        kept_groups = self.kept_groups(cfg, groups, initial_replaced=cfg.auto_mode.system_pool)
        pools, pool_groups = kept_karpenter_pools(cfg, groups, add)
        return Kept(groups=kept_groups, pools=pools, pool_groups=pool_groups)

    def placement_group_only_when_asked(self, cfg: StackConfig) -> bool:
        """efa alone implies no placement group for an Auto Mode pool (karpenter/flavors.py), unless the group is
        also a kept managed node group (layout/training.py _placement)."""
        return not cfg.auto_mode.keep_node_groups

    def autoscaling_charts(self, layout: LayoutLike) -> tuple[str, ...]:
        """AWS runs Auto Mode's Karpenter: the stack installs one only while it keeps Karpenter's pools."""
        return KARPENTER_CHARTS if layout.retained_pools else ()

    def parts(self, layout: LayoutLike) -> tuple[Part, ...]:
        kept = (Part(KARPENTER_PART, layout.retained_pools, "karpenterNodePools"),) if layout.retained_pools else ()
        return (*kept, Part(AUTO_MODE_PART, layout.node_pools, "nodePools"))


def kept_karpenter_pools(
    cfg: StackConfig, groups: Sequence[Any], add: Add
) -> tuple[tuple[NodePoolSpec, ...], tuple[Any, ...]]:
    """Migrating from Karpenter (autoMode.keepKarpenter): its pools, built from the `karpenter` settings as
    provisioner karpenter builds them, kept next to Auto Mode's until their nodes are drained; and their groups
    as Karpenter launches them (what the placement proof offers pods)."""
    settings = cfg.auto_mode
    if not settings.keep_karpenter:
        return (), ()
    if not settings.node_pool_suffix:
        add(
            ("autoMode", "nodePoolSuffix"),
            "unset while keepKarpenter holds: Karpenter's NodePools keep the group names, so Auto Mode's need "
            "other ones (e.g. -auto); NodePools share one API and a pool's nodeClassRef cannot change",
        )
    if settings.system_pool and not settings.keep_node_groups:
        add(
            ("autoMode", "keepKarpenter"),
            "needs the initial managed node group, where the Karpenter controller runs: set autoMode.initialGroup: "
            "managedNodeGroup (or keepNodeGroups while the system pool takes over)",
        )
    launched, pools = karpenter_pools.build_node_pools(cfg, groups, add)
    return pools, tuple(g for g in launched if g.karpenter)
