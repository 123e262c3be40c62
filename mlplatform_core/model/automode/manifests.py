"""The NodeClass (eks.amazonaws.com/v1) of an Auto Mode pool, as a Kubernetes object. Its NodePool is
Karpenter's (karpenter/manifests.py `node_pool`), pointing at this class.

Fields (EKS user guide, awsdocs/amazon-eks-user-guide latest/ug/automode/create-node-class.adoc "Node Class
Specification"; auto-kms.adoc; auto-change.adoc):
- `role`: the node role's name; required, like the subnet and security-group selectors;
- `subnetSelectorTerms`, `securityGroupSelectorTerms`: the cluster's discovery tag, which only its private
  subnets and the EKS cluster security group carry (as for Karpenter's EC2NodeClasses);
- `ephemeralStorage.size` from the group's diskSizeGib; Auto Mode always encrypts node volumes, with the
  account's aws/ebs key or `ephemeralStorage.kmsKeyID` (auto-kms.adoc: "The following AWS KMS keys can be
  used ... AWS managed key ... the default"; since June 30, 2025 the key encrypts the root volume too);
- `advancedNetworking.associatePublicIPAddress: false`: no public address even in a public subnet
  (since August 6, 2025);
- `tags`: the stack's, plus the group's name;
- `capacityReservationSelectorTerms` (automode/auto-odcr.adoc) for a group with a capacityReservation, and the
  group's EFA security group among the `securityGroupSelectorTerms` (`id` terms, create-node-class.adoc);
- `placementGroupSelector` (`name`, or `id`) for a pool in a placement group (the current EKS user guide
  "Manage EFA devices" page shows it on an Auto Mode NodeClass).
No AMI, IMDS or block-device settings: Auto Mode owns them (IMDSv2 with hop limit 1 is enforced).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..karpenter.flavors import AUTO_MODE_FLAVOR
from ..karpenter.manifests import NODE_GROUP_TAG, custom_object
from ..karpenter.spec import DISCOVERY_TAG, NodePoolSpec

NODE_CLASS_API = AUTO_MODE_FLAVOR.node_class_api
NODE_CLASS_KIND = AUTO_MODE_FLAVOR.node_class_kind


def node_class_spec(
    pool: NodePoolSpec,
    role_name: Any,
    cluster_name: str,
    tags: Mapping[str, str],
    kms_key: str | None = None,
    efa_security_group: Any = None,
    placement_group: Any = None,
) -> dict[str, Any]:
    """The NodeClass's `spec`. `role_name` is the node role's name, `efa_security_group` the id of the group the
    cluster program made for an EFA pool and `placement_group` the name of its placement group (Pulumi Outputs in
    the component); selector terms are ORed, so the EFA group joins the cluster's. A pool in a capacity
    reservation selects it by id (auto-odcr.adoc)."""
    discovery = [{"tags": {DISCOVERY_TAG: cluster_name}}]
    storage: dict[str, Any] = {"size": f"{pool.ephemeral_storage_gib}Gi"}
    if kms_key:
        storage["kmsKeyID"] = kms_key
    extra: dict[str, Any] = {}
    if pool.placement_group and placement_group is not None:
        extra["placementGroupSelector"] = {"name": placement_group}
    if pool.reservation_id:
        extra["capacityReservationSelectorTerms"] = [{"id": pool.reservation_id}]
    return {
        "role": role_name,
        "subnetSelectorTerms": discovery,
        "securityGroupSelectorTerms": discovery
        + ([{"id": efa_security_group}] if pool.efa and efa_security_group else []),
        **extra,
        "ephemeralStorage": storage,
        "advancedNetworking": {"associatePublicIPAddress": False},
        "tags": {**tags, NODE_GROUP_TAG: pool.name},
    }


def node_class(
    pool: NodePoolSpec,
    role_name: Any,
    cluster_name: str,
    tags: Mapping[str, str],
    kms_key: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    spec = node_class_spec(pool, role_name, cluster_name, tags, kms_key)
    return custom_object(NODE_CLASS_API, NODE_CLASS_KIND, pool.node_class, spec, labels)
