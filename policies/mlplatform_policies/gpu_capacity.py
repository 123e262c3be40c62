"""Checks of GPU capacity, node health and Pod Identity: what the toolkit's issue-21 settings build.

- node-auto-repair: managed node groups replace unhealthy nodes (EKS nodeRepairConfig);
- capacity-block-scales-to-zero: a CAPACITY_BLOCK node group has minSize 0 and a launch template (EKS
  requires one naming the block; outside the block no instance can launch);
- pod-identity-trust-scoped: a role EKS Pod Identity may assume is limited to one service account of one
  cluster by the session tags EKS adds (what IRSA's `sub` condition does for web identities).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from .props import fmt, get, known, number

POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
SCOPE_TAGS = ("aws:RequestTag/kubernetes-namespace", "aws:RequestTag/kubernetes-service-account")


def node_repair(args: Any, settings: Mapping[str, Any]) -> Iterator[str]:
    enabled = get(args.props, "nodeRepairConfig", "enabled", default=False)
    if known(enabled) and enabled is not True:
        yield (
            "node group has no EKS node auto repair (nodeRepairConfig.enabled); a node whose GPU, disk, network or "
            "kernel fails stays in the group and its pods keep failing"
        )


def capacity_block(args: Any, settings: Mapping[str, Any]) -> Iterator[str]:
    if get(args.props, "capacityType", default=None) != "CAPACITY_BLOCK":
        return
    low = number(get(args.props, "scalingConfig", "minSize", default=None))
    if low is not None and low != 0:
        yield (
            f"CAPACITY_BLOCK node group has minSize {fmt(low)}; it can launch nodes only during its block, and EKS "
            "scales it to 0 before the block ends"
        )
    if not get(args.props, "launchTemplate", default=None):
        yield "CAPACITY_BLOCK node group has no launch template; EKS requires one naming the Capacity Block"


def _statements(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            return []
    statements = get(document, "Statement", default=[]) if isinstance(document, Mapping) else []
    return [s for s in (statements if isinstance(statements, list) else [statements]) if isinstance(s, Mapping)]


def _services(statement: Mapping[str, Any]) -> set[str]:
    service = (
        (statement.get("Principal") or {}).get("Service") if isinstance(statement.get("Principal"), dict) else None
    )
    return set(service if isinstance(service, list) else [service] if service else [])


def pod_identity_trust(args: Any, settings: Mapping[str, Any]) -> Iterator[str]:
    trust = get(args.props, "assumeRolePolicy", default=None)
    if not known(trust):
        return
    for s in _statements(trust):
        if s.get("Effect") != "Allow" or POD_IDENTITY_PRINCIPAL not in _services(s):
            continue
        conditions = s.get("Condition") or {}
        scoped = {key for op in conditions.values() if isinstance(op, Mapping) for key in op}
        missing = [t for t in SCOPE_TAGS if t not in scoped]
        if missing:
            yield (
                f"role trusts {POD_IDENTITY_PRINCIPAL} without conditions on {', '.join(missing)}: any pod of any "
                "cluster in the account that gets a Pod Identity association may assume it"
            )
