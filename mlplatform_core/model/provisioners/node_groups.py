"""provisioner: nodeGroups: every group is an EKS managed node group, scaled by the Cluster Autoscaler."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..config import StackConfig
from ..config.karpenter_settings import NODE_GROUPS
from ..karpenter.flavors import Flavor
from ..karpenter.spec import NodePoolSpec
from ..karpenter.static import NODE_GROUPS_STATIC, StaticSupport
from .base import Add, Kept, LayoutLike, Part


@dataclass(frozen=True)
class NodeGroups:
    name: str = NODE_GROUPS
    title: str = "managed node groups"
    section: tuple[str, str] | None = None
    flavor: Flavor | None = None
    initial_group_note: str = ""
    runs_cluster_autoscaler: bool = True
    run_by_aws: bool = False
    cost_kinds: tuple[str, ...] = ()
    static_capacity: StaticSupport | str = NODE_GROUPS_STATIC

    def is_pool(self, cfg: StackConfig, group: str) -> bool:
        return False

    def families_configured(self, cfg: StackConfig, group: str) -> bool:
        return False

    def kept_sections(self, cfg: StackConfig) -> frozenset[str]:
        return frozenset()

    def node_pools(self, cfg: StackConfig, groups: list[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
        return groups, ()

    def kept(self, cfg: StackConfig, groups: Sequence[Any], add: Add) -> Kept:
        return Kept()

    def placement_group_only_when_asked(self, cfg: StackConfig) -> bool:
        return False

    def autoscaling_charts(self, layout: LayoutLike) -> tuple[str, ...]:
        return (versions.CLUSTER_AUTOSCALER,)

    def parts(self, layout: LayoutLike) -> tuple[Part, ...]:
        return ()

    def discovery_tags(self, cluster_name: str) -> Mapping[str, str]:
        return {}
