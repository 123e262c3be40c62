"""EKS: the cluster, managed node groups, add-ons, access entries and their policies, Pod Identity associations.

moto's EKS implements clusters and node groups; the others are built and validated only (gaps.py). What EKS
creates on its own side and moto does not (the cluster security group, a node group's Auto Scaling group) the
rehearsal creates as EKS would, so that the stack's tags on them are replayed (gaps.EKS_SIDE).
"""

from __future__ import annotations

from typing import Any

from .api import Api
from .mapping import Resource, integer, maps, name_of

_ADDON_VERSION_PLACEHOLDERS = ("<", "(")  # a version looked up at deploy (pulumi-eks, aws.eks.getAddonVersion)


def _role_exists(api: Api, arn: str | None) -> None:
    """What EKS checks of a role it is handed in the account (its answer when the role does not exist is an
    InvalidParameterException): asked of IAM, so that a request validated only still names a real role."""
    if not arn or f":iam::{api.account}:role/" not in arn:
        return  # unset, or another account's principal (an access entry for a platform team's role)
    api("iam", "GetRole", RoleName=arn.rsplit("/", 1)[1])


def _cluster_exists(api: Api, name: str) -> None:
    """The cluster a validated-only request names must exist (EKS answers ResourceNotFoundException)."""
    api("eks", "DescribeCluster", name=name)


def _clean(value: Any) -> Any:
    """Nested inputs as the EKS API takes them (it is camelCase too): integral floats as ints, unset dropped."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@maps("aws:eks/cluster:Cluster", "internal/service/eks/cluster.go (resourceClusterCreate)")
def cluster(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    vpc = r.inputs.need("vpcConfig")
    encryption = r.inputs.take("encryptionConfig")
    log_types = r.inputs.take("enabledClusterLogTypes")
    answer = api(
        "eks",
        "CreateCluster",
        name=name,
        version=r.inputs.take("version"),
        roleArn=r.inputs.need("roleArn"),
        resourcesVpcConfig=_clean(
            {
                k: vpc.get(k)
                for k in (
                    "subnetIds",
                    "securityGroupIds",
                    "endpointPublicAccess",
                    "endpointPrivateAccess",
                    "publicAccessCidrs",
                )
            }
        ),
        kubernetesNetworkConfig=_clean(r.inputs.take("kubernetesNetworkConfig")),
        logging={"clusterLogging": [{"types": log_types, "enabled": True}]} if log_types else None,
        encryptionConfig=[_clean(encryption)] if encryption else None,
        accessConfig=_clean(r.inputs.take("accessConfig")),
        bootstrapSelfManagedAddons=r.inputs.take("bootstrapSelfManagedAddons"),
        upgradePolicy=_clean(r.inputs.take("upgradePolicy")),
        computeConfig=_clean(r.inputs.take("computeConfig")),
        storageConfig=_clean(r.inputs.take("storageConfig")),
        zonalShiftConfig=_clean(r.inputs.take("zonalShiftConfig")),
        remoteNetworkConfig=_clean(r.inputs.take("remoteNetworkConfig")),
        deletionProtection=r.inputs.take("deletionProtection"),
        tags=r.inputs.take("tags"),
    )["cluster"]
    r.inputs.done()
    real = {
        "id": name,
        "name": name,
        "arn": answer["arn"],
        "endpoint": answer.get("endpoint", ""),
        "identities.0.oidcs.0.issuer": answer["identity"]["oidc"]["issuer"],
    }
    group = (answer.get("resourcesVpcConfig") or {}).get("clusterSecurityGroupId")
    if not group:  # EKS's side (gaps.EKS_SIDE): the cluster security group EKS creates in the cluster's VPC
        subnet = api("ec2", "DescribeSubnets", SubnetIds=vpc["subnetIds"][:1])["Subnets"][0]
        group = api(
            "ec2",
            "CreateSecurityGroup",
            GroupName=f"eks-cluster-sg-{name}-{r.physical[-7:]}",
            Description="EKS created security group applied to ENI that is attached to EKS Control Plane master nodes",
            VpcId=subnet["VpcId"],
            TagSpecifications=[
                {"ResourceType": "security-group", "Tags": [{"Key": f"kubernetes.io/cluster/{name}", "Value": "owned"}]}
            ],
        )["GroupId"]
    real["vpcConfig.clusterSecurityGroupId"] = group
    return real


@maps("aws:eks/nodeGroup:NodeGroup", "internal/service/eks/node_group.go (resourceNodeGroupCreate)")
def node_group(api: Api, r: Resource) -> dict[str, str]:
    cluster_name = r.inputs.need("clusterName")
    name = name_of(r, "nodeGroupName", "nodeGroupNamePrefix")
    template = _clean(r.inputs.take("launchTemplate"))
    scaling = _clean(r.inputs.need("scalingConfig"))
    answer = api(
        "eks",
        "CreateNodegroup",
        clusterName=cluster_name,
        nodegroupName=name,
        nodeRole=r.inputs.need("nodeRoleArn"),
        subnets=r.inputs.need("subnetIds"),
        scalingConfig=scaling,
        amiType=r.inputs.take("amiType"),
        capacityType=r.inputs.take("capacityType"),
        diskSize=integer(r.inputs.take("diskSize")),
        instanceTypes=r.inputs.take("instanceTypes"),
        labels=r.inputs.take("labels"),
        launchTemplate=template,
        releaseVersion=r.inputs.take("releaseVersion"),
        version=r.inputs.take("version"),
        remoteAccess=_clean(r.inputs.take("remoteAccess")),
        taints=_clean(r.inputs.take("taints")),
        updateConfig=_clean(r.inputs.take("updateConfig")),
        nodeRepairConfig=_clean(r.inputs.take("nodeRepairConfig")),
        tags=r.inputs.take("tags"),
    )["nodegroup"]
    r.inputs.done()
    groups = (answer.get("resources") or {}).get("autoScalingGroups") or []
    asg = groups[0]["name"]
    # EKS's side (gaps.EKS_SIDE): the Auto Scaling group EKS runs the nodes in, with the group's launch template;
    # desired 0 so that the emulator starts no instances.
    found = api("autoscaling", "DescribeAutoScalingGroups", AutoScalingGroupNames=[asg])["AutoScalingGroups"]
    if not found:
        version = str((template or {}).get("version") or "$Default")
        api(
            "autoscaling",
            "CreateAutoScalingGroup",
            AutoScalingGroupName=asg,
            LaunchTemplate={"LaunchTemplateId": template["id"], "Version": version} if template else None,
            MinSize=0,
            MaxSize=int(scaling["maxSize"]),
            DesiredCapacity=0,
            VPCZoneIdentifier=",".join(answer.get("subnets") or []),
        )
    return {
        "id": f"{cluster_name}:{name}",
        "name": name,
        "nodeGroupName": name,
        "arn": answer["nodegroupArn"],
        "resources.0.autoscalingGroups.0.name": asg,
    }


def _addon_version(value: Any) -> str | None:
    """The version to send: a version looked up at deploy is AWS's default for the cluster when omitted."""
    return None if value is None or str(value).startswith(_ADDON_VERSION_PLACEHOLDERS) else str(value)


@maps("aws:eks/addon:Addon", "internal/service/eks/addon.go (resourceAddonCreate)")
def addon(api: Api, r: Resource) -> dict[str, str]:
    cluster_name, addon_name = r.inputs.need("clusterName"), r.inputs.need("addonName")
    r.inputs.drop("preserve", "resolveConflictsOnUpdate")  # delete- and update-time settings
    associations = r.inputs.take("podIdentityAssociations")
    service_role = r.inputs.take("serviceAccountRoleArn")
    for role in [service_role, *(a.get("roleArn") for a in associations or [])]:
        _role_exists(api, role)
    _cluster_exists(api, cluster_name)
    api(
        "eks",
        "CreateAddon",
        clusterName=cluster_name,
        addonName=addon_name,
        addonVersion=_addon_version(r.inputs.take("addonVersion")),
        serviceAccountRoleArn=service_role,
        resolveConflicts=r.inputs.take("resolveConflictsOnCreate"),
        configurationValues=r.inputs.take("configurationValues"),
        podIdentityAssociations=_clean(associations),
        tags=r.inputs.take("tags"),
    )
    r.inputs.done()
    return {"id": f"{cluster_name}:{addon_name}"}


@maps("aws:eks/accessEntry:AccessEntry", "internal/service/eks/access_entry.go (resourceAccessEntryCreate)")
def access_entry(api: Api, r: Resource) -> dict[str, str]:
    cluster_name, principal = r.inputs.need("clusterName"), r.inputs.need("principalArn")
    _role_exists(api, principal)
    _cluster_exists(api, cluster_name)
    api(
        "eks",
        "CreateAccessEntry",
        clusterName=cluster_name,
        principalArn=principal,
        kubernetesGroups=r.inputs.take("kubernetesGroups"),
        type=r.inputs.take("type"),
        userName=r.inputs.take("userName"),
        tags=r.inputs.take("tags"),
    )
    r.inputs.done()
    return {"id": f"{cluster_name}:{principal}"}


@maps("aws:eks/accessPolicyAssociation:AccessPolicyAssociation", "internal/service/eks/access_policy_association.go")
def access_policy_association(api: Api, r: Resource) -> dict[str, str]:
    cluster_name, principal = r.inputs.need("clusterName"), r.inputs.need("principalArn")
    policy_arn = r.inputs.need("policyArn")
    _cluster_exists(api, cluster_name)
    api(
        "eks",
        "AssociateAccessPolicy",
        clusterName=cluster_name,
        principalArn=principal,
        policyArn=policy_arn,
        accessScope=_clean(r.inputs.need("accessScope")),
    )
    r.inputs.done()
    return {"id": f"{cluster_name}#{principal}#{policy_arn}"}


@maps("aws:eks/podIdentityAssociation:PodIdentityAssociation", "internal/service/eks/pod_identity_association.go")
def pod_identity_association(api: Api, r: Resource) -> dict[str, str]:
    cluster_name, role = r.inputs.need("clusterName"), r.inputs.need("roleArn")
    _role_exists(api, role)
    _cluster_exists(api, cluster_name)
    api(
        "eks",
        "CreatePodIdentityAssociation",
        clusterName=cluster_name,
        namespace=r.inputs.need("namespace"),
        serviceAccount=r.inputs.need("serviceAccount"),
        roleArn=role,
        targetRoleArn=r.inputs.take("targetRoleArn"),
        disableSessionTags=r.inputs.take("disableSessionTags"),
        tags=r.inputs.take("tags"),
    )
    r.inputs.done()
    return {"id": f"{cluster_name}:{r.name}"}
