"""pulumi_eks.Cluster with `autoMode` on: what its Construct creates differently (pulumi_eks.py follows it).

Read from github:pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts at v4.3.0 (unchanged up to 7bf0c1b1; the
line numbers are v4.3.0's), for the releases pulumi_eks.MODELLED_VERSIONS covers:
- the cluster role gets AmazonEKSComputePolicy, AmazonEKSBlockStoragePolicy, AmazonEKSLoadBalancingPolicy
  and AmazonEKSNetworkingPolicy after AmazonEKSClusterPolicy (519-544);
- `skipDefaultSecurityGroups` defaults to autoMode.enabled (548, 2120): without them the control plane has
  only the security group EKS makes, and clusterSecurityGroupId / nodeSecurityGroupId are its id (2188-2189);
- kubernetesNetworkConfig {ipFamily: ipv4, elasticLoadBalancing: {enabled: true}} (612-624);
- unless `createNodeRole` is false, a ServiceRole `<name>-nodeRole` trusted by EC2 with
  AmazonEKSWorkerNodeMinimalPolicy and AmazonEC2ContainerRegistryPullOnly (627-646);
- computeConfig {enabled: true, nodeRoleArn: <that role>, nodePools: [general-purpose, system], ...the
  input's computeConfig} and storageConfig {blockStorage: {enabled: true}} (648-663), all three settings
  resolved together, so one unknown value makes all three unknown in a preview (665-685);
- bootstrapSelfManagedAddons false (698-700);
- no kube-proxy add-on unless kubeProxyAddonOptions.enabled (764), no vpc-cni add-on unless
  useDefaultVpcCni is false (1091-1092), and a CoreDNS add-on unless corednsAddonOptions.enabled is false
  (1183-1185);
- no access entry for the node role: EKS makes the one of computeConfig.nodeRoleArn itself (the instance-role
  entry at 1031-1047 is for `instanceRole(s)` only); autoModeNodeRoleName is the created role's name or ""
  (1289).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import ModelError, Path

CLUSTER_ROLE_AUTO_MODE_POLICIES = (
    "AmazonEKSComputePolicy",
    "AmazonEKSBlockStoragePolicy",
    "AmazonEKSLoadBalancingPolicy",
    "AmazonEKSNetworkingPolicy",
)
NODE_ROLE_POLICIES = ("AmazonEKSWorkerNodeMinimalPolicy", "AmazonEC2ContainerRegistryPullOnly")
DEFAULT_NODE_POOLS = ["general-purpose", "system"]
_AUTO_MODE_KEYS = frozenset({"enabled", "createNodeRole", "computeConfig"})
_COMPUTE_KEYS = frozenset({"enabled", "nodePools", "nodeRoleArn"})


@dataclass(frozen=True)
class AutoMode:
    """What the Construct decides from autoMode and the inputs whose defaults follow it."""

    enabled: bool = False
    create_node_role: bool = True
    compute_config: Mapping[str, Any] = field(default_factory=dict)
    skip_security_groups: bool = False
    kube_proxy: bool = True
    vpc_cni: bool = True


def read(inputs: Mapping[str, Any]) -> AutoMode:
    """The Auto Mode decisions for these inputs; ModelError for a shape the model does not follow."""
    options = inputs.get("autoMode") or {}
    problems = [f"autoMode.{k} is not modelled" for k in options if k not in _AUTO_MODE_KEYS]
    compute = options.get("computeConfig") or {}
    problems += [f"autoMode.computeConfig.{k} is not modelled" for k in compute if k not in _COMPUTE_KEYS]
    if problems:
        raise ModelError("the offline model of pulumi_eks.Cluster does not follow these inputs: " + "; ".join(problems))
    enabled = options.get("enabled") is True
    kube_proxy = (inputs.get("kubeProxyAddonOptions") or {}).get("enabled")
    use_default_cni = inputs.get("useDefaultVpcCni")
    skip = inputs.get("skipDefaultSecurityGroups")
    return AutoMode(
        enabled=enabled,
        create_node_role=options.get("createNodeRole") is not False,
        compute_config=dict(compute),
        skip_security_groups=enabled if skip is None else bool(skip),
        kube_proxy=(not enabled) if kube_proxy is None else bool(kube_proxy),
        vpc_cni=(not enabled) if use_default_cni is None else not use_default_cni,
    )


def cluster_role_policies(auto: AutoMode) -> tuple[str, ...]:
    return ("AmazonEKSClusterPolicy", *(CLUSTER_ROLE_AUTO_MODE_POLICIES if auto.enabled else ()))


def cluster_settings(
    auto: AutoMode, node_role_arn: str | None, node_role_unknown: bool
) -> tuple[dict[str, Any], tuple[Path, ...]]:
    """The aws.eks.Cluster's computeConfig, storageConfig, kubernetesNetworkConfig and bootstrapSelfManagedAddons,
    and the paths among them unknown in a preview of a fresh stack."""
    if not auto.enabled:
        return {"bootstrapSelfManagedAddons": True}, ()
    compute = {"enabled": True, "nodePools": list(DEFAULT_NODE_POOLS), **auto.compute_config}
    if node_role_arn is not None and "nodeRoleArn" not in auto.compute_config:
        compute["nodeRoleArn"] = node_role_arn
    settings = {
        "computeConfig": {k: v for k, v in compute.items() if v is not None},
        "storageConfig": {"blockStorage": {"enabled": True}},
        "kubernetesNetworkConfig": {"ipFamily": "ipv4", "elasticLoadBalancing": {"enabled": True}},
        "bootstrapSelfManagedAddons": False,
    }
    together: tuple[Path, ...] = (("computeConfig",), ("storageConfig",), ("kubernetesNetworkConfig",))
    return settings, together if node_role_unknown else ()
