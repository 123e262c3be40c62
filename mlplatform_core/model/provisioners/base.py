"""The interface every provisioner implements: what the layout, the add-ons, the cost, the plan and the programs ask.

A provisioner is what launches a stack's nodes (the stack file's `provisioner`): managed node groups scaled by the
Cluster Autoscaler (node_groups.py), Karpenter's NodePools (karpenter.py) or EKS Auto Mode's (auto_mode.py). The
callers never test which one a stack has: they ask it (registry.py `provisioner_of(cfg)`, `of(layout)`), so a new
provisioner is one module implementing `Provisioner` plus a `register` call in the registry.

Pure Python, below the layout (model/layout imports this package, never the other way): a layout reaches the
methods as `LayoutLike`, the fields they read. The answers are data; the Pulumi shell maps the component kinds a
provisioner declares (`Part.kind`) to its components by name (`PARTS` in mlplatform_program/cluster_program.py and
kubernetes_layer_program.py), and the cost estimate its cost kinds to cost lines (model/cost/auto_mode_fee.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..config import StackConfig
from ..karpenter.flavors import Flavor
from ..karpenter.spec import NodePoolSpec
from ..karpenter.static import StaticSupport

Add = Callable[[tuple, str], None]

# The components a provisioner asks the programs for (Part.kind), mapped to component classes by the shell.
KARPENTER_PART = "karpenter"  # the Karpenter controller's AWS side, its charts and its NodePools
AUTO_MODE_PART = "autoMode"  # Auto Mode's NodePools and NodeClasses (the cluster turns Auto Mode on)
# The cost lines a provisioner adds to the estimate (model/cost): Auto Mode's fee and built-in pools.
AUTO_MODE_FEE = "autoModeFee"


class LayoutLike(Protocol):
    """The layout (model/layout/spec.py Layout) as far as a provisioner reads it."""

    provisioner: str
    cluster_name: str
    node_pools: tuple[NodePoolSpec, ...]
    retained_pools: tuple[NodePoolSpec, ...]
    groups: tuple[Any, ...]


@dataclass(frozen=True)
class Part:
    """A component the programs create for the provisioner: its kind, the NodePools it carries and the stack
    output that lists them (kubernetes-layer/ reads it)."""

    kind: str
    pools: tuple[NodePoolSpec, ...] = ()
    pools_export: str = "nodePools"


@dataclass(frozen=True)
class Kept:
    """What a migrating stack keeps of its previous provisioner until the nodes are drained: the managed node groups
    (`keepNodeGroups`), the Karpenter pools (`keepKarpenter`) and those pools' groups as Karpenter launches them."""

    groups: tuple[Any, ...] = ()
    pools: tuple[NodePoolSpec, ...] = ()
    pool_groups: tuple[Any, ...] = ()


class Provisioner(Protocol):
    """One provisioner. Attributes are facts; methods take the stack config or the layout."""

    name: str  # the stack file's `provisioner` value
    title: str  # for people
    # Its settings section (stack-file key, StackConfig field), set only with this provisioner; None: it has none.
    section: tuple[str, str] | None
    flavor: Flavor | None  # the Karpenter its NodePools run on; None: it makes no NodePools
    initial_group_note: str  # why the initial group is required, appended to the refusal (may be "")
    runs_cluster_autoscaler: bool  # the Cluster Autoscaler scales its groups (two autoscalers would fight)
    run_by_aws: bool  # AWS runs its nodes' Karpenter, networking, DNS, storage and GPU plugins (run_by_aws.py)
    cost_kinds: tuple[str, ...]  # the cost lines it adds (AUTO_MODE_FEE)
    # How it keeps a group's nodes warm for `staticNodes` (karpenter/static.py StaticSupport), or why it cannot.
    static_capacity: StaticSupport | str
    # `gpuAllocation: dra`: whether the stack installs the NVIDIA DRA driver chart for the `dra` groups it launches
    # (addons/dra_driver.py); False: its nodes bring their own driver.
    installs_dra_driver: bool
    group_kind: str  # what one group it launches is, for people (a Kueue flavor's kind: teams/flavors.py)

    def launches(self, group: Any) -> bool:
        """Whether it launches a layout group (NodeGroupSpec), by the marks its `node_pools`/`kept` put on it."""
        ...

    def dra_problem(self, minor: str, min_size: int, max_size: int, settings: Any) -> str | None:
        """Why a GPU group it launches cannot take `gpuAllocation: dra` beyond Kubernetes 1.34 and the AMI
        (layout/allocation.py), or None. `settings`: the group's NodeGroupSettings; sizes as the layout merged them."""
        ...

    def is_pool(self, cfg: StackConfig, group: str) -> bool:
        """Whether a NodePool of this provisioner launches the group (else it is a managed node group)."""
        ...

    def families_configured(self, cfg: StackConfig, group: str) -> bool:
        """Whether the group's pool selects instance types by family (the group may then list none)."""
        ...

    def kept_sections(self, cfg: StackConfig) -> frozenset[str]:
        """Other provisioners' settings sections the stack may keep (a migration's source)."""
        ...

    def node_pools(self, cfg: StackConfig, groups: list[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
        """The groups as it launches them (pools marked) and its NodePools; problems go to `add`."""
        ...

    def kept(self, cfg: StackConfig, groups: Sequence[Any], add: Add) -> Kept:
        """What a migration keeps, from the groups as the layout merged them (before node_pools)."""
        ...

    def placement_group_only_when_asked(self, cfg: StackConfig) -> bool:
        """Whether efa alone implies no cluster placement group (layout/training.py _placement)."""
        ...

    def autoscaling_charts(self, layout: LayoutLike) -> tuple[str, ...]:
        """The charts (addon_versions names) that scale its nodes, kept ones included."""
        ...

    def parts(self, layout: LayoutLike) -> tuple[Part, ...]:
        """The components the programs create for it, in order."""
        ...

    def discovery_tags(self, cluster_name: str) -> Mapping[str, str]:
        """The tags its node classes select the private subnets and security group by (none without NodePools)."""
        ...
