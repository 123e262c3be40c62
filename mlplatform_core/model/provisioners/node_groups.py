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


def dra_scale_from_zero_problem(min_size: int, max_size: int, settings: Any) -> str | None:
    reservation = settings.capacity_reservation
    if reservation is not None and reservation.type == "capacity-block":
        # EKS scales a Capacity Block group to zero outside its block, so it must start from zero (training.py).
        return (
            "a Capacity Block group starts from zero nodes (EKS scales it down outside its block), and the Cluster "
            "Autoscaler cannot grow a managed node group from zero for ResourceClaims (its template node of an "
            "empty group publishes no devices); use gpuAllocation: devicePlugin for this group"
        )
    if min_size >= 1 or max_size == 0:
        return None
    return (
        "a managed node group scaled by the Cluster Autoscaler cannot grow from zero nodes for ResourceClaims (its "
        "template node of an empty group publishes no devices); set minSize: 1 or more, or gpuAllocation: "
        "devicePlugin"
    )


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
    installs_dra_driver: bool = True
    group_kind: str = "node group"

    def launches(self, group: Any) -> bool:
        return not group.karpenter

    def dra_problem(self, minor: str, min_size: int, max_size: int, settings: Any) -> str | None:
        """A managed node group must not scale from zero: the Cluster Autoscaler builds an empty group's node from
        its Auto Scaling group with no ResourceSlices (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/
        aws_cloud_provider.go TemplateNodeInfo: `framework.NewNodeInfo(node, nil, ...)` @ 55c37cd5), so a pod's
        ResourceClaim never fits the template and the group never grows; from one live node it copies that node's
        slices. Also the answer for the managed groups of a NodePool provisioner (registry.managed_groups)."""
        return dra_scale_from_zero_problem(min_size, max_size, settings)

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
