"""The layout's groups as EKS Auto Mode NodePools, and Auto Mode's built-in pools in the layout.

Pure Python. `build_node_pools` runs inside the layout build (model/layout/build.py), asked through the
provisioner (model/provisioners/auto_mode.py, which also builds the Karpenter pools a migration keeps) of stacks with
`provisioner: autoMode`: every group but the initial one becomes the same NodePool as with Karpenter
(karpenter/pools.py `pools_of`, with the Auto Mode flavor: eks.amazonaws.com labels and NodeClass), and
the built-in pools join the groups: `system` in the initial group's place (unless
autoMode.initialGroup is managedNodeGroup), `general-purpose` when asked for. A built-in pool is a group
with `builtin` set: its nodes carry Auto Mode's labels only, and the stack creates no pool for it.

What Auto Mode owns is refused rather than silently dropped (while keepNodeGroups holds, the settings
still shape the managed node groups kept for the migration):
- the initial group's settings when the system pool replaces it (its types and size are Auto Mode's);
- a pool's amiType (Auto Mode picks the image, Bottlerocket with its GPU drivers and device plugins);
- imdsHopLimit other than 1 ("EKS Auto Mode enforces IMDSv2 with a hop limit of 1 ... This default
  configuration cannot be modified", automode-learn-instances.adoc);
- instance types Auto Mode never launches (1 CPU, nano, micro, small; same page);
- group names that are the built-in pools' (system, general-purpose) or the default NodeClass's
  (create-node-class.adoc: "Do not name your custom node class default");
- tags the NodeClass refuses (create-node-class.adoc, "Node Class Specification", `tags`);
- a Kubernetes minor before 1.29 ("EKS Auto Mode requires Kubernetes version 1.29 or greater",
  migrate-auto.adoc);
- the GPU and training settings Auto Mode has no place for: efaInterfaces (Auto Mode lays out the interfaces),
  gpuSharing, a group's nodeRepair, and the stack's nodeRepair: false when no managed node group would take it
  (_training_settings).

The training settings it maps, as the Karpenter pools do (karpenter/training.py): efa narrows the pool to EFA
types, adds the group's EFA security group to the NodeClass and keeps the nodes in one AZ; Auto Mode attaches
every EFA interface to nodes launched for pods requesting vpc.amazonaws.com/efa (device-management-efa.adoc)
and runs the EFA device plugin itself (aws/eks-charts PR #1359, 2026-08-17, maintainer: "the EFA device plugin
is already included in Auto Mode AMIs"; the chart keeps off `compute-type: auto` nodes), so the stack installs
none for these pools. availabilityZone becomes the pool's zone requirement; capacityReservation the
NodeClass's capacityReservationSelectorTerms and capacity type `reserved` (automode/auto-odcr.adoc; Capacity
Blocks too); placementGroup: cluster (or the reservation's placementGroup) the NodeClass's placementGroupSelector
naming the placement group the cluster program creates (or the reservation's, by name), as the current EKS
"Manage EFA devices" page shows; efa alone implies none on Auto Mode (karpenter/flavors.py). With one
NodeClass selecting a reservation Auto Mode stops using open On-Demand Capacity Reservations for every NodeClass
of the cluster (auto-odcr.adoc). Pod Identity and node health are built into Auto
Mode's nodes (the stack installs neither agent for them: components/node_agent_addons.py); quotas count
managed node groups, as for Karpenter pools; gpuMetrics' DCGM exporter runs on Auto Mode GPU pools as on any
GPU group (no public source confirms or rules it out on Auto Mode nodes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from .. import instances
from ..config import StackConfig, show
from ..config.node_groups import NodeGroupSettings
from ..eks_versions import minor_key
from ..karpenter.flavors import AUTO_MODE_FLAVOR
from ..karpenter.pools import INITIAL, check_pool_names, group_settings, pools_of
from ..karpenter.spec import NodePoolSpec
from .builtin import (
    BUILTIN_POOLS,
    DEFAULT_EPHEMERAL_STORAGE_GIB,
    DEFAULT_NODE_CLASS,
    GENERAL_PURPOSE,
    SYSTEM,
    BuiltinPool,
    launchable,
)

Add = Callable[[tuple, str], None]
MIN_KUBERNETES = "1.29"
FORBIDDEN_TAG_KEYS = (
    "karpenter.sh/provisioner-name",
    "karpenter.sh/nodepool",
    "karpenter.sh/nodeclaim",
    "karpenter.sh/managed-by",
    "eks.amazonaws.com/nodeclass",
)
FORBIDDEN_TAG_PREFIX = "kubernetes.io/cluster/"


def _path(cfg: StackConfig, name: str) -> tuple:
    return group_settings(cfg, name)[1]


def _owned_settings(cfg: StackConfig, groups: Sequence[Any], add: Add) -> None:
    settings = cfg.auto_mode
    keep = settings.keep_node_groups
    initial = cfg.node_groups.get(INITIAL, NodeGroupSettings())
    written = sorted(initial.model_fields_set - {"enabled"})
    if settings.system_pool and written and not keep:
        shown = ", ".join(NodeGroupSettings.model_fields[f].alias or f for f in written)
        add(
            ("nodeGroups", INITIAL),
            f"{shown} given, but Auto Mode's built-in system pool takes the initial group's place and sizes "
            "itself (its instance types are Auto Mode's); remove them, or set autoMode.initialGroup: "
            "managedNodeGroup to keep a managed initial group",
        )
    if minor_key(cfg.kubernetes_version) < minor_key(MIN_KUBERNETES):
        add(
            ("kubernetesVersion",),
            f"{cfg.kubernetes_version}: EKS Auto Mode needs Kubernetes {MIN_KUBERNETES} or later; upgrade first "
            "(one minor at a time) or use another provisioner",
        )
    if cfg.imds_hop_limit != 1:
        add(
            ("imdsHopLimit",),
            f"{cfg.imds_hop_limit}: Auto Mode enforces IMDSv2 with a hop limit of 1 on its nodes and it cannot "
            "be changed; remove imdsHopLimit (pods that need AWS use their own IAM role)",
        )
    for g in groups:
        o, gpath = group_settings(cfg, g.name)
        if g.name in BUILTIN_POOLS or g.name == DEFAULT_NODE_CLASS:
            what = "Auto Mode's default NodeClass"
            if g.name in BUILTIN_POOLS:
                what = "one of Auto Mode's built-in NodePools"
            where = gpath + ("name",) if gpath[0] == "additionalNodeGroups" else gpath
            add(where, f"{g.name!r} is the name of {what}; the group's NodePool and NodeClass need another name")
        if g.name != INITIAL:
            _training_settings(o, gpath, add)
        if g.name != INITIAL and o.ami_type and not keep:
            add(
                gpath + ("amiType",),
                f"{o.ami_type}: Auto Mode picks each node's image itself (Bottlerocket, with the GPU drivers and "
                "device plugins); remove amiType (a pool's architecture follows its instance types)",
            )
    for key in cfg.tags:
        if key in FORBIDDEN_TAG_KEYS or key.startswith(FORBIDDEN_TAG_PREFIX):
            add(("tags", key), "is a tag Auto Mode sets on its nodes itself; NodeClasses refuse it")


def _training_settings(o: NodeGroupSettings, gpath: tuple, add: Add) -> None:
    """The GPU and training settings a pool's group may not carry on Auto Mode (what it maps: efa,
    availabilityZone, capacityReservation, in karpenter/pools.py and manifests.py)."""
    if o.efa_interfaces is not None:
        add(
            gpath + ("efaInterfaces",),
            f"{show(o.efa_interfaces)}: EKS Auto Mode attaches the EFA interfaces of its nodes itself (for pods "
            "requesting vpc.amazonaws.com/efa); the stack writes no interface layout for an Auto Mode pool, so "
            "remove efaInterfaces",
        )
    if o.gpu_sharing is not None:
        add(
            gpath + ("gpuSharing",),
            "is not supported with provisioner: autoMode: time-slicing and MIG are settings of the NVIDIA device "
            "plugin, and Auto Mode runs its own, built into the node image and not configurable (\"isn't visible as "
            'a daemon set", automode/auto-accelerated.adoc); its Karpenter also plans nodes from the physical GPUs. '
            "Keep shared GPUs on a managed node group (provisioner: nodeGroups)",
        )
    if o.node_repair is not None:
        add(
            gpath + ("nodeRepair",),
            f"{show(o.node_repair)}: EKS Auto Mode always checks and repairs its nodes (node-health.adoc: node "
            'monitoring and auto repair "are automatically enabled with EKS Auto Mode compute"), for every pool; '
            "remove it",
        )


def _stack_settings(cfg: StackConfig, add: Add) -> None:
    """Stack-wide settings Auto Mode decides itself: node repair is always on for its nodes."""
    managed = not cfg.auto_mode.system_pool or cfg.auto_mode.keep_node_groups
    if not cfg.node_repair and "node_repair" in cfg.model_fields_set and not managed:
        add(
            ("nodeRepair",),
            "false: EKS Auto Mode repairs its nodes and it cannot be turned off (node-health.adoc), and this stack "
            "has no managed node group the setting would apply to; remove it",
        )


def _launchable(cfg: StackConfig, pools: tuple[NodePoolSpec, ...], add: Add) -> dict[str, tuple[str, ...]]:
    """Per pool the types Auto Mode launches; a listed type it never launches is an error, family members
    it never launches are left out of what the pool may launch."""
    out = {}
    for pool in pools:
        ok = tuple(t for t in pool.instance_types if (info := instances.lookup(t)) is None or launchable(info))
        if pool.instance_families is None and len(ok) < len(pool.instance_types):
            bad = [t for t in pool.instance_types if t not in ok]
            add(
                _path(cfg, pool.name) + ("instanceTypes",),
                f"{', '.join(bad)}: Auto Mode launches only types with more than 1 CPU that are not nano, micro "
                "or small; choose larger types",
            )
        elif not ok:
            add(
                (AUTO_MODE_FLAVOR.settings_key, "nodePools", pool.name, "instanceFamilies"),
                "selects only types Auto Mode never launches (1 CPU, nano, micro, small): the pool could never "
                "launch a node",
            )
        out[pool.name] = ok or pool.instance_types
    return out


def _builtin(initial: Any, pool: BuiltinPool) -> Any:
    """A built-in pool as a layout group (built from the initial group's spec: a NodeGroupSpec)."""
    return dataclasses.replace(
        initial,
        name=pool.name,
        role=initial.role if pool is SYSTEM else pool.name,
        capacity_type="ON_DEMAND",
        instance_types=pool.instance_types,
        ami_type="BOTTLEROCKET_x86_64",
        min_size=0,
        max_size=0,
        desired_size=0,
        disk_size_gib=DEFAULT_EPHEMERAL_STORAGE_GIB,
        labels={},
        taints=pool.taints,
        gpu=False,
        config_path=f"ml-platform-eks:autoMode.{'initialGroup' if pool is SYSTEM else 'generalPurposePool'}",
        karpenter=True,
        auto_mode=True,
        builtin=True,
    )


def build_node_pools(cfg: StackConfig, groups: Sequence[Any], add: Add) -> tuple[list[Any], tuple[NodePoolSpec, ...]]:
    """provisioner: autoMode: the groups (pools marked, built-in pools added) and one NodePoolSpec per pool."""
    names = {g.name: g for g in groups}
    why = (
        "Auto Mode's built-in system pool takes its place"
        if cfg.auto_mode.system_pool
        else "it stays a static managed node group, where the core services run"
    )
    check_pool_names(cfg, names, add, AUTO_MODE_FLAVOR, why)
    _owned_settings(cfg, groups, add)
    _stack_settings(cfg, add)
    out, pools = pools_of(cfg, groups, add, AUTO_MODE_FLAVOR)
    types = _launchable(cfg, pools, add)
    suffix = cfg.auto_mode.node_pool_suffix
    pools = tuple(
        dataclasses.replace(p, instance_types=types[p.name], object_name=f"{p.name}{suffix}" if suffix else None)
        for p in pools
    )
    out = [
        dataclasses.replace(g, instance_types=types[g.name], node_pool=f"{g.name}{suffix}" if suffix else "")
        if g.name in types
        else g
        for g in out
    ]
    initial = names.get(INITIAL)  # the layout refuses a stack without one
    if initial is not None:
        if cfg.auto_mode.system_pool:
            out = [_builtin(initial, SYSTEM) if g.name == INITIAL else g for g in out]
        if cfg.auto_mode.general_purpose_pool:
            out.append(_builtin(initial, GENERAL_PURPOSE))
    return out, pools
