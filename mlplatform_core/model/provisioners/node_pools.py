"""What the two Karpenter-based provisioners share: every group but the initial one is a NodePool of their flavor
(karpenter/flavors.py), their node classes find the cluster by the discovery tag, and while they take over from
managed node groups (`<section>.keepNodeGroups`) those groups stay, unchanged and no longer autoscaled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import StackConfig
from ..karpenter.flavors import Flavor
from ..karpenter.pools import INITIAL
from ..karpenter.spec import DISCOVERY_TAG


@dataclass(frozen=True)
class NodePoolProvisioner:
    """The shared half of Karpenter and Auto Mode (subclasses set the facts and build the pools)."""

    flavor: Flavor

    runs_cluster_autoscaler = False  # two autoscalers would both launch nodes for the same pending pods

    @property
    def name(self) -> str:
        return self.flavor.provisioner

    @property
    def title(self) -> str:
        return self.flavor.title

    @property
    def section(self) -> tuple[str, str]:
        return self.flavor.settings_key, self.flavor.settings_field

    def is_pool(self, cfg: StackConfig, group: str) -> bool:
        return group != INITIAL

    def families_configured(self, cfg: StackConfig, group: str) -> bool:
        pool = self.flavor.settings(cfg).node_pools.get(group)
        return pool is not None and bool(pool.instance_families)

    def kept_groups(self, cfg: StackConfig, groups: Sequence[Any], initial_replaced: bool) -> tuple[Any, ...]:
        """The managed node groups a migrating stack keeps next to its pools (keepNodeGroups), unchanged; the
        initial one too when a built-in pool takes its place."""
        if not self.flavor.settings(cfg).keep_node_groups:
            return ()
        return tuple(g for g in groups if g.name != INITIAL or initial_replaced)

    def discovery_tags(self, cluster_name: str) -> Mapping[str, str]:
        return {DISCOVERY_TAG: cluster_name}
