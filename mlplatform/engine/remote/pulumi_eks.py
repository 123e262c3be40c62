"""pulumi_eks.Cluster as the real engine sees it: registered with no properties, the settings on its children.

`eks.Cluster` is a multi-language component: the Python SDK asks the engine to
construct it, the engine calls the eks provider plugin's Construct, and the Node
code there (pulumi-eks nodejs/eks/cluster/cluster.ts) registers the component and
creates the children. `construct` maps the inputs this program passes to those
children, for the pulumi-eks releases in MODELLED_VERSIONS. Inputs it does not
follow are refused (ModelError) rather than guessed.

Read from github:pulumi/pulumi-eks at v4.3.0 (nodejs/ unchanged up to 7bf0c1b1, the
newest commit; PyPI's 4.4.0 has no tag, its Python SDK matches that tree); line
numbers below are v4.3.0's. v4.1.0 and v4.2.0 differ only in code this program does
not reach (git diff v4.1.0 v4.3.0 -- nodejs/eks: auto-mode/instance roles, eks:index:Addon).
With `autoMode` on, pulumi_eks_auto_mode.py says what changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mlplatform_core.model import regions

from . import pulumi_eks_auto_mode as auto_mode
from . import pulumi_eks_security_groups as security_groups
from .model import Child, Construction, ModelError, NewResource, Path
from .pulumi_eks_coverage import BUNDLED_KUBERNETES, check_inputs, check_version
from .pulumi_eks_service_role import service_role

COMPONENT_TYPE = "eks:index:Cluster"
CREATED_BY = "pulumi-eks"
# Outputs that are the child resources themselves (registerOutputs, cluster.ts:2301-2321): the SDK receives
# resource references, so e.g. `eks_cluster.name` is an Output depending on the EKS cluster.
REFERENCE_OUTPUTS = {"eksCluster": "aws:eks/cluster:Cluster"}
# Values pulumi-eks looks up while it runs (also during a preview) and this offline engine cannot.
LOOKED_UP_ADDON_VERSION = "<looked up by pulumi-eks: latest for {version}>"  # aws.eks.getAddonVersion, mostRecent
LOOKED_UP_THUMBPRINT = "<CA thumbprint of the region's OIDC issuer, fetched by pulumi-eks>"

ACCOUNT = "123456789012"


def _partition(region: str) -> tuple[str, str]:
    """(partition, DNS suffix) of a region, what aws.getPartition answers (cluster.ts:482): the AWS SDK's
    endpoint data, as the AWS provider resolves it."""
    return regions.partition_of(region), regions.dns_suffix(region)


def _mock_hex(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:7].upper()


# The vpc-cni add-on's configuration for a VpcCniAddon without options: computeEnv's defaults
# (addons/cni-addon.ts:372-531) merged by mergeConfigurationValues (:539-575), keys sorted at every
# level by stringifyAddonConfiguration (addons/addon.ts:61-80).
_CNI_DEFAULTS = {
    "env": {
        "WARM_ENI_TARGET": "1",
        "AWS_VPC_K8S_CNI_LOGLEVEL": "DEBUG",
        "AWS_VPC_K8S_CNI_LOG_FILE": "/host/var/log/aws-routed-eni/ipamd.log",
        "AWS_VPC_K8S_CNI_VETHPREFIX": "eni",
        "AWS_VPC_ENI_MTU": "9001",
        "AWS_VPC_K8S_PLUGIN_LOG_LEVEL": "DEBUG",
        "AWS_VPC_K8S_PLUGIN_LOG_FILE": "/var/log/aws-routed-eni/plugin.log",
        "ENABLE_POD_ENI": "false",
        "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "false",
        "AWS_VPC_K8S_CNI_EXTERNALSNAT": "false",
    },
    "init": {"env": {"DISABLE_TCP_EARLY_DEMUX": "false"}},
}


def _js_json(value: Any, sort: bool = False) -> str:
    """JSON.stringify's spelling: no spaces."""
    return json.dumps(value, separators=(",", ":"), sort_keys=sort)


def cluster_security_group_id(cluster_name: str) -> str:
    """The stand-in id of the security group EKS creates for a cluster (vpcConfig.clusterSecurityGroupId),
    also what the mocks answer aws.eks.getCluster with."""
    return f"sg-{hashlib.sha1(cluster_name.encode()).hexdigest()[:7]}"


@dataclass
class _Construct:
    """One `new eks.Cluster(name, inputs)`: what its children share, and the children registered so far."""

    name: str
    inputs: Mapping[str, Any]
    region: str
    unknown: frozenset[str]
    new_resource: NewResource
    children: list[Child] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.partition, self.dns_suffix = _partition(self.region)
        self.tags = self.inputs.get("tags")
        self.with_tags = {"tags": dict(self.tags)} if self.tags else {}

    def add(self, type_: str, child_name: str, child_inputs: dict, parent: Child | None = None, **extra: Any) -> Child:
        child_inputs = {k: v for k, v in child_inputs.items() if v is not None}  # undefined is not sent
        id_, outputs = self.new_resource(type_, child_name, child_inputs)
        child = Child(type_, child_name, child_inputs, outputs, id=id_, parent=parent, **extra)
        self.children.append(child)
        return child


def construct(
    name: str,
    inputs: Mapping[str, Any],
    *,
    version: str,
    region: str,
    unknown: frozenset[str],
    new_resource: NewResource,
) -> Construction:
    """The children `new eks.Cluster(name, inputs)` creates in the provider's Construct.

    `unknown`: the inputs not known during a preview of a fresh stack (ids and ARNs of resources the
    program creates in the same run). `new_resource` is the offline provider stand-in for each child.
    """
    check_version(version)
    check_inputs(inputs)
    c = _Construct(name, inputs, region, unknown, new_resource)
    auto = auto_mode.read(inputs)
    role = _cluster_role(c, auto)
    # Unless skipDefaultSecurityGroups (default: autoMode.enabled): the cluster security group and its egress
    # rule (cluster.ts:548-585).
    vpc_unknown: tuple[Path, ...] = (("vpcId",),) if "vpcId" in unknown else ()
    cluster_sg = None
    if not auto.skip_security_groups:
        cluster_sg = security_groups.cluster_security_group(c.add, name, inputs, c.tags, vpc_unknown)
    node_role = _node_role(c) if auto.enabled and auto.create_node_role else None  # cluster.ts:627-646
    eks = _control_plane(c, role, cluster_sg, auto, node_role)
    if auto.kube_proxy:
        _kube_proxy(c)
    kubeconfig = _kubernetes_provider(c)
    # API authentication mode: no aws-auth ConfigMap (authenticationMode.ts:102-109) and, with no instance
    # role or accessEntries, no access entries (cluster.ts:1031-1058). The VPC CNI add-on unless Auto Mode leaves
    # it out (cluster.ts:1091-1112).
    if auto.vpc_cni:
        _vpc_cni(c)
    # CoreDNS: no default node group, no Fargate, not explicitly enabled -> no add-on (cluster.ts:1175-1185).
    issuer = eks.outputs["identities"][0]["oidcs"][0]["issuer"]
    oidc_arn = _oidc_provider(c, issuer) if inputs.get("createOidcProvider") else ""

    # createCluster: the node security group and its rules, created although no node group is, unless
    # skipDefaultSecurityGroups (cluster.ts:2120-2148).
    node_sg = ingress = None
    if cluster_sg is not None:
        node_sg, ingress = security_groups.node_security_group(c.add, name, inputs, c.tags, cluster_sg, vpc_unknown)

    # Every child's provider-computed outputs (ids, ARNs) are unknown in a preview of a fresh stack;
    # names set or auto-named by the provider's Check are known.
    for child in c.children:
        child.unknown_in_preview += tuple((k,) for k in child.outputs if k not in child.inputs and k != "name")

    return _construction(_outputs(eks, kubeconfig, oidc_arn, (cluster_sg, node_sg, ingress), node_role), c.children)


def _outputs(
    eks: Child,
    kubeconfig: dict[str, Any],
    oidc_arn: str,
    security: tuple[Child | None, Child | None, Child | None],
    node_role: Child | None,
) -> dict[str, Any]:
    """The component's outputs (registerOutputs, cluster.ts:2301-2321; resource-valued ones as the ids
    the engine hands analyzers), what the program reads from eks.Cluster. `security`: pulumi-eks's cluster
    and node security groups and the cluster's ingress rule, when it made them."""
    cluster_sg, node_sg, ingress = security
    issuer = eks.outputs["identities"][0]["oidcs"][0]["issuer"]
    # Without pulumi-eks's security groups, both ids are the one EKS made (cluster.ts:2186-2189).
    eks_sg = eks.outputs["vpcConfig"]["clusterSecurityGroupId"]
    return {
        "clusterSecurityGroup": cluster_sg.id if cluster_sg else None,
        "eksCluster": eks.id,
        "nodeSecurityGroup": node_sg.id if node_sg else None,
        "eksClusterIngressRule": ingress.id if ingress else None,
        "instanceRoles": [],
        "kubeconfig": {"apiVersion": "v1", "kind": "Config"},
        "kubeconfigJson": json.dumps(kubeconfig),
        "clusterSecurityGroupId": cluster_sg.id if cluster_sg else eks_sg,
        "nodeSecurityGroupId": node_sg.id if node_sg else eks_sg,
        "clusterIngressRuleId": ingress.id if ingress else "",
        "defaultNodeGroupAsgName": "",  # no default node group
        "fargateProfileId": "",  # no Fargate profile
        "fargateProfileStatus": "",
        "oidcProviderArn": oidc_arn,
        "oidcProviderUrl": issuer,
        "oidcIssuer": issuer[len("https://") :],
        "autoModeNodeRoleName": node_role.outputs["name"] if node_role else "",
    }


def _construction(outputs: dict[str, Any], children: list[Child]) -> Construction:
    """The component as the engine registers it: no props, its outputs and its children."""
    return Construction(
        props={},  # the bundled @pulumi/pulumi 3.173.0 drops a non-remote component's props (pulumi_eks_coverage.py)
        outputs=outputs,
        children=children,
        # Everything derived from the children's computed values; constants ("" and []) are known.
        unknown_in_preview=tuple((k,) for k, v in outputs.items() if v not in ("", [], None)),
    )


def _cluster_role(c: _Construct, auto: auto_mode.AutoMode) -> Child:
    """The EKS service role: a ServiceRole component with the role and one policy attachment per managed policy,
    the four of Auto Mode's capabilities too when it is on (cluster.ts:515-544)."""
    return service_role(
        c.add,
        f"{c.name}-eksRole",
        "eks.amazonaws.com",
        ["sts:AssumeRole", "sts:TagSession"],
        auto_mode.cluster_role_policies(auto),
        c.partition,
        {"description": "Allows EKS to manage clusters on your behalf.", **c.with_tags},
    )


def _node_role(c: _Construct) -> Child:
    """Auto Mode's node role, a ServiceRole trusted by EC2 (cluster.ts:627-646)."""
    return service_role(
        c.add,
        f"{c.name}-nodeRole",
        "ec2.amazonaws.com",
        ["sts:AssumeRole"],
        auto_mode.NODE_ROLE_POLICIES,
        c.partition,
        c.with_tags,
    )


def _control_plane(
    c: _Construct, role: Child, cluster_sg: Child | None, auto: auto_mode.AutoMode, node_role: Child | None
) -> Child:
    """The control plane (cluster.ts:687-762) and what AWS computes for it. Unset inputs stay unset: without
    Auto Mode no kubernetesNetworkConfig, computeConfig or storageConfig."""
    inputs = c.inputs
    cluster_settings, settings_unknown = auto_mode.cluster_settings(
        auto,
        node_role.outputs["arn"] if node_role else None,
        node_role is not None or "autoMode" in c.unknown,
    )
    public = inputs.get("endpointPublicAccess")
    cidrs = inputs.get("publicAccessCidrs")
    if cidrs and public is False:  # the apply at cluster.ts:708-720 throws
        raise ModelError(
            f"pulumi-eks refuses {c.name}: `publicAccessCidrs` can only be set when `endpointPublicAccess` is true"
        )
    key_arn = inputs.get("encryptionConfigKeyArn")
    vpc_config = {
        "securityGroupIds": [cluster_sg.id] if cluster_sg is not None else None,
        "subnetIds": list(inputs.get("privateSubnetIds") or []),
        "endpointPrivateAccess": inputs.get("endpointPrivateAccess"),
        "endpointPublicAccess": public,
        "publicAccessCidrs": list(cidrs) if cidrs else None,
    }
    cluster_name = inputs["name"]
    eks = c.add(
        "aws:eks/cluster:Cluster",
        f"{c.name}-eksCluster",
        {
            "name": cluster_name,
            "roleArn": role.outputs["arn"],
            **cluster_settings,
            "vpcConfig": {k: v for k, v in vpc_config.items() if v is not None},
            "version": inputs.get("version"),
            "enabledClusterLogTypes": inputs.get("enabledClusterLogTypes"),
            "tags": {"Name": f"{c.name}-eksCluster", **(c.tags or {})},
            "encryptionConfig": {"provider": {"keyArn": key_arn}, "resources": ["secrets"]} if key_arn else None,
            "accessConfig": {
                "authenticationMode": inputs["authenticationMode"],
                "bootstrapClusterCreatorAdminPermissions": True,
            }
            if inputs.get("authenticationMode")
            else None,
            "deletionProtection": inputs.get("deletionProtection"),
            "upgradePolicy": inputs.get("upgradePolicy"),
        },
        ignore_changes=("accessConfig.bootstrapClusterCreatorAdminPermissions", "bootstrapSelfManagedAddons"),
        unknown_in_preview=_control_plane_unknown(c, cluster_sg, settings_unknown, key_arn),
    )
    eks.outputs.update(_control_plane_outputs(c, cluster_name, eks.inputs["vpcConfig"]))
    return eks


def _control_plane_unknown(
    c: _Construct, cluster_sg: Child | None, settings_unknown: Any, key_arn: str | None
) -> tuple[Path, ...]:
    """The control plane's inputs not known in a preview of a fresh stack."""
    cluster_unknown: list[Path] = [("roleArn",), *settings_unknown]
    if cluster_sg is not None:
        cluster_unknown.append(("vpcConfig", "securityGroupIds", 0))
    if "privateSubnetIds" in c.unknown:
        cluster_unknown.append(("vpcConfig", "subnetIds"))  # one apply over all subnet ids (cluster.ts:503-511)
    if key_arn and "encryptionConfigKeyArn" in c.unknown:
        cluster_unknown.append(("encryptionConfig",))  # one apply over the key ARN (cluster.ts:593-607)
    return tuple(cluster_unknown)


def _control_plane_outputs(c: _Construct, cluster_name: str, vpc_config: dict[str, Any]) -> dict[str, Any]:
    """What AWS computes for the control plane (mock values): ARN, endpoint, OIDC issuer, CA."""
    region, dns_suffix = c.region, c.dns_suffix
    issuer = f"https://oidc.eks.{region}.{dns_suffix}/id/{_mock_hex(cluster_name)}"
    return {
        "arn": f"arn:{c.partition}:eks:{region}:{ACCOUNT}:cluster/{cluster_name}",
        "endpoint": f"https://{_mock_hex(cluster_name + '/endpoint')}.gr7.{region}.eks.{dns_suffix}",
        "identities": [{"oidcs": [{"issuer": issuer}]}],
        "certificateAuthority": {"data": "<certificate authority data>"},
        "vpcConfig": {**vpc_config, "clusterSecurityGroupId": cluster_security_group_id(cluster_name)},
    }


def _kube_proxy(c: _Construct) -> None:
    """kube-proxy add-on: unless Auto Mode leaves it out, with default options (cluster.ts:764-797)."""
    c.add(
        "aws:eks/addon:Addon",
        f"{c.name}-kube-proxy",
        {
            "clusterName": c.inputs["name"],
            "addonName": "kube-proxy",
            "preserve": True,
            **c.with_tags,
            "resolveConflictsOnCreate": "OVERWRITE",
            "resolveConflictsOnUpdate": "OVERWRITE",
            "addonVersion": LOOKED_UP_ADDON_VERSION.format(version=c.inputs.get("version")),
        },
    )


def _kubernetes_provider(c: _Construct) -> dict[str, Any]:
    """The Kubernetes provider pulumi-eks talks to the cluster with (cluster.ts:914-921); its kubeconfig
    carries the endpoint and CA AWS computes. Returns the kubeconfig."""
    kubeconfig = {"apiVersion": "v1", "kind": "Config", "clusters": [{"name": c.inputs["name"]}]}
    c.add(
        "pulumi:providers:kubernetes",
        f"{c.name}-eks-k8s",
        {"kubeconfig": json.dumps(kubeconfig), "version": BUNDLED_KUBERNETES},
        unknown_in_preview=(("kubeconfig",),),
    )
    return kubeconfig


def _vpc_cni(c: _Construct) -> None:
    """The VpcCniAddon component and its add-on (cluster.ts:1091-1112)."""
    cni = c.add("eks:index:VpcCniAddon", f"{c.name}-vpc-cni", {}, custom=False)
    cni_addon = c.add(
        "aws:eks/addon:Addon",
        f"{c.name}-vpc-cni",
        {
            "clusterName": c.inputs["name"],
            "addonVersion": LOOKED_UP_ADDON_VERSION.format(version=c.inputs.get("version")),
            "addonName": "vpc-cni",
            "resolveConflictsOnCreate": "OVERWRITE",
            "resolveConflictsOnUpdate": "OVERWRITE",
            "preserve": True,
            "configurationValues": _js_json(_CNI_DEFAULTS, sort=True),
            **c.with_tags,
        },
        cni,
    )
    cni.outputs = {"addon": cni_addon.id}


def _oidc_provider(c: _Construct, issuer: str) -> str:
    """The IAM OIDC provider of the cluster's issuer (cluster.ts:1245-1264); returns its ARN."""
    oidc = c.add(
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
        f"{c.name}-oidcProvider",
        {"clientIdLists": ["sts.amazonaws.com"], "url": issuer, "thumbprintLists": [LOOKED_UP_THUMBPRINT]},
        unknown_in_preview=(("url",),),
    )
    oidc.outputs["arn"] = f"arn:{c.partition}:iam::{ACCOUNT}:oidc-provider/{issuer[len('https://') :]}"
    return oidc.outputs["arn"]
