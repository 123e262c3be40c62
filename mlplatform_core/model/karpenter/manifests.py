"""The NodePool (karpenter.sh/v1) and EC2NodeClass (karpenter.k8s.aws/v1) of a pool, as Kubernetes objects.

Pure Python. The objects follow the CRDs the pinned charts install; tests validate them against the
CRDs' openAPIV3Schema (tests/data/karpenter/crd_schemas.json, generated from the release). Notes:
- `disruption.consolidateAfter` is required once a disruption block is written (the CRD's `required`);
- an AMI alias must be the only amiSelectorTerm; with alias al2023@/bottlerocket@ Karpenter resolves the
  standard and the NVIDIA AMI and gives GPU types the NVIDIA one (provider pkg/providers/amifamily);
- `role` names the node role; Karpenter creates and tags the instance profile itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import efa
from .spec import (
    DISCOVERY_TAG,
    NODE_CLASS_API,
    NODE_CLASS_KIND,
    NODE_POOL_API,
    ZONE_LABEL,
    NodePoolSpec,
)

NODE_GROUP_TAG = "mlplatform.io/node-group"


def _taint(key: str, value: str, effect: str) -> dict[str, str]:
    # The CRD refuses an empty value; a taint without one leaves the field out.
    return {"key": key, "value": value, "effect": effect} if value else {"key": key, "effect": effect}


def node_pool_spec(pool: NodePoolSpec, zone: Any = None) -> dict[str, Any]:
    """The NodePool's `spec`: template (labels, requirements, taints, expiry), disruption, limits, weight.

    `zone`: the stack's first AZ (a Pulumi Output in the component), for a single-zone pool that names none.
    """
    requirements = [r.to_dict() for r in pool.requirements]
    if pool.single_zone and zone is not None and not any(r.key == ZONE_LABEL for r in pool.requirements):
        requirements.append({"key": ZONE_LABEL, "operator": "In", "values": [zone]})
    # A static pool (replicas) takes no weight (the CRD's CEL rule; karpenter/static.py keeps only limits.nodes).
    static = {"replicas": pool.replicas} if pool.replicas else {"weight": pool.weight}
    return {
        "template": {
            "metadata": {"labels": dict(pool.labels)},
            "spec": {
                "nodeClassRef": {"group": pool.node_class_group, "kind": pool.node_class_kind, "name": pool.node_class},
                "requirements": requirements,
                "taints": [_taint(t.key, t.value, t.effect) for t in pool.taints],
                "expireAfter": pool.expire_after,
            },
        },
        "disruption": {
            "consolidationPolicy": pool.consolidation_policy,
            "consolidateAfter": pool.consolidate_after,
            "budgets": [b.to_dict() for b in pool.budgets],
        },
        "limits": dict(pool.limits),
        **static,
    }


def node_class_spec(
    pool: NodePoolSpec,
    role_name: Any,
    cluster_name: str,
    tags: Mapping[str, str],
    placement_group: Any = None,
    efa_security_group: Any = None,
) -> dict[str, Any]:
    """The EC2NodeClass's `spec`: the node-group security baseline (IMDSv2, hop limit, encrypted gp3) for Karpenter.

    `role_name` is the node role's name; `placement_group` (name) and `efa_security_group` (id) those the
    cluster program made for the pool (Pulumi Outputs in the component). Selector terms are ORed, so the EFA
    security group joins the cluster's; the reservation is selected by its id.
    """
    discovery = [{"tags": {DISCOVERY_TAG: cluster_name}}]
    extra: dict[str, Any] = {}
    if pool.placement_group and placement_group is not None:
        extra["placementGroupSelector"] = {"name": placement_group}
    if pool.reservation_id:
        extra["capacityReservationSelectorTerms"] = [{"id": pool.reservation_id}]
    if pool.efa_only_interfaces:  # efaInterfaces efaOnly: an ENA primary interface and EFA-only ones (model/efa.py)
        extra["networkInterfaces"] = [i.to_karpenter() for i in efa.interfaces(pool.efa_only_interfaces, efa.EFA_ONLY)]
    security_groups = discovery + ([{"id": efa_security_group}] if pool.efa and efa_security_group else [])
    return {
        "role": role_name,
        "amiFamily": pool.ami_family,
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "subnetSelectorTerms": discovery,
        "securityGroupSelectorTerms": security_groups,
        **extra,
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": pool.imds_hop_limit,
            "httpTokens": "required",
        },
        "blockDeviceMappings": [d.to_dict() for d in pool.block_devices],
        "tags": {**tags, NODE_GROUP_TAG: pool.name},
    }


def custom_object(api: str, kind: str, name: str, spec: dict[str, Any], labels: Mapping[str, str] | None) -> dict:
    """A Kubernetes object of a custom resource: apiVersion, kind, metadata (name, labels if any), spec."""
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}


def node_pool(pool: NodePoolSpec, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    return custom_object(NODE_POOL_API, "NodePool", pool.k8s_name, node_pool_spec(pool), labels)


def ec2_node_class(
    pool: NodePoolSpec,
    role_name: Any,
    cluster_name: str,
    tags: Mapping[str, str],
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    spec = node_class_spec(pool, role_name, cluster_name, tags)
    return custom_object(NODE_CLASS_API, NODE_CLASS_KIND, pool.node_class, spec, labels)
