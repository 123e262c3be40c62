"""provisioner: karpenter: the stack installs Karpenter (controller on the initial group, its IAM role and
interruption queue) and every group but the initial one becomes one of its NodePools (karpenter/pools.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import addon_versions as versions
from ..config import StackConfig
from ..karpenter import pools as karpenter_pools
from ..karpenter import release as karpenter_release
from ..karpenter.flavors import KARPENTER_FLAVOR, Flavor
from ..karpenter.spec import NodePoolSpec
from ..karpenter.static import KARPENTER_STATIC, StaticSupport
from .base import KARPENTER_PART, Add, Kept, LayoutLike, Part
from .node_pools import NodePoolProvisioner

KARPENTER_CHARTS = (versions.KARPENTER_CRD, versions.KARPENTER)


@dataclass(frozen=True)
class Karpenter(NodePoolProvisioner):
    flavor: Flavor = field(default=KARPENTER_FLAVOR)
    initial_group_note: str = " (the Karpenter controller runs there too)"
    run_by_aws: bool = False
    cost_kinds: tuple[str, ...] = ()
    static_capacity: StaticSupport | str = KARPENTER_STATIC
    installs_dra_driver: bool = True
    group_kind: str = "Karpenter NodePool"

    def launches(self, group: Any) -> bool:
        """Its pools, and the pools a migration to Auto Mode keeps (autoMode.keepKarpenter)."""
        return group.karpenter and not group.auto_mode

    def dra_problem(self, minor: str, min_size: int, max_size: int, settings: Any) -> str | None:
        # A static pool's nodes exist, so claims are allocated from their ResourceSlices; a dynamic pool needs a
        # Karpenter that launches nodes for pending claims (karpenter/release.py, per pinned minor).
        return karpenter_release.dra_pool_problem(getattr(settings, "static_nodes", None) is not None)

    def kept_sections(self, cfg: StackConfig) -> frozenset[str]:
        return frozenset()

    def node_pools(self, cfg: StackConfig, groups: list[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
        return karpenter_pools.build_node_pools(cfg, groups, add)

    def kept(self, cfg: StackConfig, groups: Sequence[Any], add: Add) -> Kept:
        return Kept(groups=self.kept_groups(cfg, groups, initial_replaced=False))

    def placement_group_only_when_asked(self, cfg: StackConfig) -> bool:
        return False

    def autoscaling_charts(self, layout: LayoutLike) -> tuple[str, ...]:
        return KARPENTER_CHARTS

    def parts(self, layout: LayoutLike) -> tuple[Part, ...]:
        return (Part(KARPENTER_PART, layout.node_pools, "nodePools"),)
