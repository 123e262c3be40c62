"""What Auto Mode needs of the control plane and of IAM, as plain data (components/cluster.py applies it).

- The three capabilities go on together: "The compute, block storage, and load balancing capabilities must
  all be enabled or disabled in the same request" (EKS user guide, automode/auto-enable-existing.adoc).
  pulumi-eks sets all three from `autoMode.enabled` (nodejs/eks/cluster/cluster.ts @ v4.3.0, 612-667).
- The built-in pools the cluster asks for (computeConfig.nodePools): `system` when it takes the initial
  group's place, `general-purpose` only when asked for.
- The node role: AmazonEKSWorkerNodeMinimalPolicy and AmazonEC2ContainerRegistryPullOnly, trusted by EC2
  (automode/auto-create-node-role.adoc; pulumi-eks creates the same, cluster.ts 627-646). "EKS automatically
  creates an Access Entry for the Node IAM Role during cluster creation" (create-node-class.adoc,
  Considerations) when it is the cluster's computeConfig.nodeRoleArn, which EKS takes only together with
  built-in pools: a cluster without them has "both nodePools and nodeRoleArn values empty"
  (create-node-pool.adoc, "Cluster without built-in node pools"). Then the stack creates the entry
  itself: type EC2 with the AmazonEKSAutoNodePolicy access policy (create-node-class.adoc, "Create node
  class access entry"). Never both: a principal has one access entry.
"""

from __future__ import annotations

from ..access import PolicyAssociation, access_policy_arn
from ..config import StackConfig
from ..regions import managed_policy_arn
from .builtin import GENERAL_PURPOSE_POOL, SYSTEM_POOL

NODE_POLICY_NAMES = {"minimal": "AmazonEKSWorkerNodeMinimalPolicy", "ecr": "AmazonEC2ContainerRegistryPullOnly"}
NODE_ROLE_POLICIES = tuple(NODE_POLICY_NAMES.values())
ACCESS_ENTRY_TYPE = "EC2"
AUTO_NODE_ACCESS_POLICY = "AmazonEKSAutoNodePolicy"


def builtin_node_pools(cfg: StackConfig) -> list[str]:
    """computeConfig.nodePools: the built-in pools the stack asks EKS for."""
    pools = [SYSTEM_POOL] if cfg.auto_mode.system_pool else []
    return pools + ([GENERAL_PURPOSE_POOL] if cfg.auto_mode.general_purpose_pool else [])


def node_role_policy_arns(region: str) -> dict[str, str]:
    """Short name -> ARN of the node role's managed policies, in the region's partition."""
    return {short: managed_policy_arn(name, region) for short, name in NODE_POLICY_NAMES.items()}


def eks_creates_node_access_entry(cfg: StackConfig) -> bool:
    """Whether EKS makes the node role's access entry (the role is the cluster's nodeRoleArn)."""
    return bool(builtin_node_pools(cfg))


def node_access_association(region: str) -> PolicyAssociation:
    """The cluster-wide AmazonEKSAutoNodePolicy association of an entry the stack creates for the node role."""
    return PolicyAssociation(access_policy_arn(AUTO_NODE_ACCESS_POLICY, region))
