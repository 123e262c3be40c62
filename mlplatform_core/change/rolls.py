"""What an EKS managed node group roll (UpdateNodegroupVersion) does to the group's capacity, from the EKS user
guide's "Understand each phase of node updates" (awsdocs/amazon-eks-user-guide
latest/ug/nodes/managed-node-update-behavior.adoc):
- setup: the batch is `updateConfig.maxUnavailable` (default 1, at most 100);
- scale up: EKS first raises the Auto Scaling group's maximum and desired size by the larger of up to twice the
  number of the group's Availability Zones and maxUnavailable, and waits until a new node is Ready in every AZ
  (a launch that fails, e.g. no capacity or a reservation already full, ends the update with
  NodeCreationFailure before any old node is drained);
- upgrade: it picks old nodes at random, up to maxUnavailable at a time, and drains them: evictions respect
  PodDisruptionBudgets, and pods that have not left within 15 minutes fail the update (PodEvictionFailure) unless
  the update is forced (the node group's `forceUpdateVersion`), which then deletes them; after the drain it
  cordons the node, waits 60 seconds and terminates it;
- scale down: the maximum and desired size return to their values before the update.
So the new nodes come before the old ones go: the group never runs below its size during a roll.
"""

from __future__ import annotations

DRAIN_TIMEOUT_MINUTES = 15  # per node, before PodEvictionFailure (or a forced deletion)


def surge(zones: int | None, batch: int) -> int | None:
    """How many nodes at most EKS adds above the group's size before draining: max(2 x AZs, maxUnavailable).
    None when the plan document does not say in how many AZs the group is (a BEFORE from an older toolkit)."""
    return max(2 * zones, batch) if zones else None


def roll_consequence(nodes: int, batch: int, extra: int | None, force: bool) -> str:
    """One sentence a reviewer reads: capacity, batches, PodDisruptionBudgets."""
    added = f"up to {extra}" if extra is not None else "up to twice its number of AZs (or maxUnavailable)"
    batches = -(-nodes // batch) if nodes else 0
    evict = (
        f"pods still there after {DRAIN_TIMEOUT_MINUTES} minutes are deleted even against a PodDisruptionBudget "
        "(forceUpdateVersion)"
        if force
        else f"a node whose pods do not leave within {DRAIN_TIMEOUT_MINUTES} minutes (a PodDisruptionBudget that "
        "allows no eviction) fails the update with PodEvictionFailure, since the update is not forced"
    )
    return (
        f"EKS first adds {added} new node(s) above the group's size, then drains its up to {nodes} old node(s) "
        f"{batch} at a time ({batches} batch(es)), so the group never runs below its size (0 nodes below); if "
        f"the new nodes cannot launch (capacity, quota, a full reservation) the update fails before any drain; "
        f"evictions respect PodDisruptionBudgets and {evict}"
    )
