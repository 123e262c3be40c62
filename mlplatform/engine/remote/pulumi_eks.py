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
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from mlplatform_core.model import regions

from .model import Child, Construction, ModelError, NewResource, Path
from .pulumi_eks_coverage import BUNDLED_KUBERNETES, check_inputs, check_version

COMPONENT_TYPE = "eks:index:Cluster"
CREATED_BY = "pulumi-eks"
# Outputs that are the child resources themselves (registerOutputs, cluster.ts:2301-2321): the SDK receives
# resource references, so e.g. `eks_cluster.name` is an Output depending on the EKS cluster.
REFERENCE_OUTPUTS = {"eksCluster": "aws:eks/cluster:Cluster"}
# Values pulumi-eks looks up while it runs (also during a preview) and this offline engine cannot.
LOOKED_UP_ADDON_VERSION = "<looked up by pulumi-eks: latest for {version}>"  # aws.eks.getAddonVersion, mostRecent
LOOKED_UP_THUMBPRINT = "<CA thumbprint of the region's OIDC issuer, fetched by pulumi-eks>"

ACCOUNT = "123456789012"
_MANAGED_BY_PULUMI = "Managed by Pulumi"  # @pulumi/aws's schema default for SecurityGroup.description


def _partition(region: str) -> tuple[str, str]:
    """(partition, DNS suffix) of a region, what aws.getPartition answers (cluster.ts:482): the AWS SDK's
    endpoint data, as the AWS provider resolves it."""
    return regions.partition_of(region), regions.dns_suffix(region)


def _sha8(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]  # servicerole.ts:20-25 sha1hash


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
    partition, dns_suffix = _partition(region)
    tags = inputs.get("tags")
    with_tags = {"tags": dict(tags)} if tags else {}
    children: list[Child] = []

    def add(type_: str, child_name: str, child_inputs: dict, parent: Child | None = None, **extra: Any) -> Child:
        child_inputs = {k: v for k, v in child_inputs.items() if v is not None}  # undefined is not sent
        id_, outputs = new_resource(type_, child_name, child_inputs)
        child = Child(type_, child_name, child_inputs, outputs, id=id_, parent=parent, **extra)
        children.append(child)
        return child

    # The EKS service role: a ServiceRole component with the role and one policy attachment
    # (cluster.ts:529-544; servicerole.ts:73-121, the component registers {} like eks:index:Cluster).
    service_role = add("eks:index:ServiceRole", f"{name}-eksRole", {}, custom=False)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Action": ["sts:AssumeRole", "sts:TagSession"],
                "Effect": "Allow",
                "Principal": {"Service": ["eks.amazonaws.com"]},
            }
        ],
    }
    role = add(
        "aws:iam/role:Role",
        f"{name}-eksRole-role",
        {
            "description": "Allows EKS to manage clusters on your behalf.",
            "assumeRolePolicy": _js_json(trust),
            **with_tags,
        },
        service_role,
    )
    service_role.outputs = {"resolvedRole": role.id, "directRole": role.id}
    policy_id = "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"
    add(
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        f"{name}-eksRole-{_sha8(policy_id)}",
        # `role` is the Role resource; the provider receives its id, which for an IAM role is its name.
        {"policyArn": f"arn:{partition}:iam::aws:policy/AmazonEKSClusterPolicy", "role": role.outputs["name"]},
        service_role,
        unknown_in_preview=(("role",),),
    )

    # skipDefaultSecurityGroups is unset: the cluster security group and its egress rule (cluster.ts:548-585).
    vpc_unknown: tuple[Path, ...] = (("vpcId",),) if "vpcId" in unknown else ()
    cluster_sg = add(
        "aws:ec2/securityGroup:SecurityGroup",
        f"{name}-eksClusterSecurityGroup",
        {
            "vpcId": inputs["vpcId"],
            "revokeRulesOnDelete": True,
            "tags": {"Name": f"{name}-eksClusterSecurityGroup", **(tags or {})},
            "description": _MANAGED_BY_PULUMI,
        },
        unknown_in_preview=vpc_unknown,
    )
    add(
        "aws:ec2/securityGroupRule:SecurityGroupRule",
        f"{name}-eksClusterInternetEgressRule",
        {
            "description": "Allow internet access.",
            "type": "egress",
            "fromPort": 0,
            "toPort": 0,
            "protocol": "-1",
            "cidrBlocks": ["0.0.0.0/0"],
            "securityGroupId": cluster_sg.id,
        },
        unknown_in_preview=(("securityGroupId",),),
    )

    # The control plane (cluster.ts:687-762). Unset inputs stay unset: no kubernetesNetworkConfig,
    # computeConfig or storageConfig for this program's inputs.
    public = inputs.get("endpointPublicAccess")
    cidrs = inputs.get("publicAccessCidrs")
    if cidrs and public is False:  # the apply at cluster.ts:708-720 throws
        raise ModelError(
            f"pulumi-eks refuses {name}: `publicAccessCidrs` can only be set when `endpointPublicAccess` is true"
        )
    key_arn = inputs.get("encryptionConfigKeyArn")
    cluster_unknown: list[Path] = [("roleArn",), ("vpcConfig", "securityGroupIds", 0)]
    if "privateSubnetIds" in unknown:
        cluster_unknown.append(("vpcConfig", "subnetIds"))  # one apply over all subnet ids (cluster.ts:503-511)
    if key_arn and "encryptionConfigKeyArn" in unknown:
        cluster_unknown.append(("encryptionConfig",))  # one apply over the key ARN (cluster.ts:593-607)
    vpc_config = {
        "securityGroupIds": [cluster_sg.id],
        "subnetIds": list(inputs.get("privateSubnetIds") or []),
        "endpointPrivateAccess": inputs.get("endpointPrivateAccess"),
        "endpointPublicAccess": public,
        "publicAccessCidrs": list(cidrs) if cidrs else None,
    }
    cluster_name = inputs["name"]
    issuer = f"https://oidc.eks.{region}.{dns_suffix}/id/{_mock_hex(cluster_name)}"
    eks = add(
        "aws:eks/cluster:Cluster",
        f"{name}-eksCluster",
        {
            "name": cluster_name,
            "roleArn": role.outputs["arn"],
            "bootstrapSelfManagedAddons": True,
            "vpcConfig": {k: v for k, v in vpc_config.items() if v is not None},
            "version": inputs.get("version"),
            "enabledClusterLogTypes": inputs.get("enabledClusterLogTypes"),
            "tags": {"Name": f"{name}-eksCluster", **(tags or {})},
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
        unknown_in_preview=tuple(cluster_unknown),
    )
    # What AWS computes for the control plane (mock values): ARN, endpoint, OIDC issuer, CA.
    eks.outputs.update(
        {
            "arn": f"arn:{partition}:eks:{region}:{ACCOUNT}:cluster/{cluster_name}",
            "endpoint": f"https://{_mock_hex(cluster_name + '/endpoint')}.gr7.{region}.eks.{dns_suffix}",
            "identities": [{"oidcs": [{"issuer": issuer}]}],
            "certificateAuthority": {"data": "<certificate authority data>"},
        }
    )

    # kube-proxy add-on: kubeProxyAddonOptions unset, no auto mode (cluster.ts:764-797).
    add(
        "aws:eks/addon:Addon",
        f"{name}-kube-proxy",
        {
            "clusterName": cluster_name,
            "addonName": "kube-proxy",
            "preserve": True,
            **with_tags,
            "resolveConflictsOnCreate": "OVERWRITE",
            "resolveConflictsOnUpdate": "OVERWRITE",
            "addonVersion": LOOKED_UP_ADDON_VERSION.format(version=inputs.get("version")),
        },
    )

    # The Kubernetes provider pulumi-eks talks to the cluster with (cluster.ts:914-921); its kubeconfig
    # carries the endpoint and CA AWS computes.
    kubeconfig = {"apiVersion": "v1", "kind": "Config", "clusters": [{"name": cluster_name}]}
    add(
        "pulumi:providers:kubernetes",
        f"{name}-eks-k8s",
        {"kubeconfig": json.dumps(kubeconfig), "version": BUNDLED_KUBERNETES},
        unknown_in_preview=(("kubeconfig",),),
    )

    # API authentication mode: no aws-auth ConfigMap (authenticationMode.ts:102-109) and, with no instance
    # role or accessEntries, no access entries (cluster.ts:1031-1058). The VPC CNI add-on (cluster.ts:1091-1112).
    cni = add("eks:index:VpcCniAddon", f"{name}-vpc-cni", {}, custom=False)
    cni_addon = add(
        "aws:eks/addon:Addon",
        f"{name}-vpc-cni",
        {
            "clusterName": cluster_name,
            "addonVersion": LOOKED_UP_ADDON_VERSION.format(version=inputs.get("version")),
            "addonName": "vpc-cni",
            "resolveConflictsOnCreate": "OVERWRITE",
            "resolveConflictsOnUpdate": "OVERWRITE",
            "preserve": True,
            "configurationValues": _js_json(_CNI_DEFAULTS, sort=True),
            **with_tags,
        },
        cni,
    )
    cni.outputs = {"addon": cni_addon.id}
    # CoreDNS: no default node group, no Fargate, not explicitly enabled -> no add-on (cluster.ts:1175-1185).

    oidc_arn = ""
    if inputs.get("createOidcProvider"):  # cluster.ts:1245-1264
        oidc = add(
            "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
            f"{name}-oidcProvider",
            {"clientIdLists": ["sts.amazonaws.com"], "url": issuer, "thumbprintLists": [LOOKED_UP_THUMBPRINT]},
            unknown_in_preview=(("url",),),
        )
        oidc_arn = oidc.outputs["arn"] = f"arn:{partition}:iam::{ACCOUNT}:oidc-provider/{issuer[len('https://') :]}"

    # createCluster: the node security group and its rules, created although no node group is
    # (skipDefaultSecurityGroups unset; cluster.ts:2120-2148, nodes/securitygroup.ts:108-203).
    node_sg = add(
        "aws:ec2/securityGroup:SecurityGroup",
        f"{name}-nodeSecurityGroup",
        {
            "vpcId": inputs["vpcId"],
            "revokeRulesOnDelete": True,
            "tags": {
                "Name": f"{name}-nodeSecurityGroup",
                f"kubernetes.io/cluster/{cluster_name}": "owned",
                **(tags or {}),
            },
            "description": _MANAGED_BY_PULUMI,
        },
        unknown_in_preview=vpc_unknown,
    )
    rules = [
        ("eksNodeIngressRule", "Allow nodes to communicate with each other", "ingress", 0, 0, "-1", {"self": True}),
        (
            "eksNodeClusterIngressRule",
            "Allow worker Kubelets and pods to receive communication from the cluster control plane",
            "ingress",
            1025,
            65535,
            "tcp",
            {"sourceSecurityGroupId": cluster_sg.id},
        ),
        (
            "eksExtApiServerClusterIngressRule",
            "Allow pods running extension API servers on port 443 to receive communication from cluster control plane",
            "ingress",
            443,
            443,
            "tcp",
            {"sourceSecurityGroupId": cluster_sg.id},
        ),
        ("eksNodeInternetEgressRule", "Allow internet access.", "egress", 0, 0, "-1", {"cidrBlocks": ["0.0.0.0/0"]}),
    ]
    for suffix, description, kind, low, high, protocol, extra in rules:
        unknown_paths: tuple[Path, ...] = (("securityGroupId",),) + (
            (("sourceSecurityGroupId",),) if "sourceSecurityGroupId" in extra else ()
        )
        add(
            "aws:ec2/securityGroupRule:SecurityGroupRule",
            f"{name}-{suffix}",
            {
                "description": description,
                "type": kind,
                "fromPort": low,
                "toPort": high,
                "protocol": protocol,
                "securityGroupId": node_sg.id,
                **extra,
            },
            unknown_in_preview=unknown_paths,
        )
    ingress = add(
        "aws:ec2/securityGroupRule:SecurityGroupRule",
        f"{name}-eksClusterIngressRule",
        {
            "description": "Allow pods to communicate with the cluster API Server",
            "type": "ingress",
            "fromPort": 443,
            "toPort": 443,
            "protocol": "tcp",
            "securityGroupId": cluster_sg.id,
            "sourceSecurityGroupId": node_sg.id,
        },
        unknown_in_preview=(("securityGroupId",), ("sourceSecurityGroupId",)),
    )

    # Every child's provider-computed outputs (ids, ARNs) are unknown in a preview of a fresh stack;
    # names set or auto-named by the provider's Check are known.
    for child in children:
        child.unknown_in_preview += tuple((k,) for k in child.outputs if k not in child.inputs and k != "name")

    # The component's outputs (registerOutputs, cluster.ts:2301-2321; resource-valued ones as the ids
    # the engine hands analyzers), what the program reads from eks.Cluster.
    outputs = {
        "clusterSecurityGroup": cluster_sg.id,
        "eksCluster": eks.id,
        "nodeSecurityGroup": node_sg.id,
        "eksClusterIngressRule": ingress.id,
        "instanceRoles": [],
        "kubeconfig": {"apiVersion": "v1", "kind": "Config"},
        "kubeconfigJson": json.dumps(kubeconfig),
        "clusterSecurityGroupId": cluster_sg.id,
        "nodeSecurityGroupId": node_sg.id,
        "clusterIngressRuleId": ingress.id,
        "defaultNodeGroupAsgName": "",
        "fargateProfileId": "",
        "fargateProfileStatus": "",
        "oidcProviderArn": oidc_arn,
        "oidcProviderUrl": issuer,
        "oidcIssuer": issuer[len("https://") :],
        "autoModeNodeRoleName": "",
    }
    return Construction(
        props={},  # the bundled @pulumi/pulumi 3.173.0 drops a non-remote component's props (pulumi_eks_coverage.py)
        outputs=outputs,
        children=children,
        # Everything derived from the children's computed values; constants ("" and []) are known.
        unknown_in_preview=tuple((k,) for k, v in outputs.items() if v not in ("", [])),
    )
