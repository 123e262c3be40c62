"""EC2 for the nodes: launch templates (network interfaces, block devices, metadata options), placement groups,
tags on resources the stack does not create, and the Cluster Autoscaler's tags on node groups' Auto Scaling
groups."""

from __future__ import annotations

from typing import Any

from .api import Api
from .mapping import Resource, boolean, integer, maps, name_of, tag_specifications, tags


def _pascal(key: str) -> str:
    return key[:1].upper() + key[1:]


# The launch template data blocks as ec2_launch_template.go expands them (expandRequestLaunchTemplateData):
# the schema's name -> the API's, and the blocks whose booleans the schema types as strings.
_DATA_RENAMES = {"vpcSecurityGroupIds": "SecurityGroupIds", "securityGroups": "Groups"}
_STRING_BOOLEANS = {"encrypted", "deleteOnTermination", "associatePublicIpAddress", "ebsOptimized"}
_INTEGERS = {
    "volumeSize", "iops", "throughput", "deviceIndex", "networkCardIndex", "httpPutResponseHopLimit",
    "ipv4AddressCount", "ipv6AddressCount", "partitionNumber", "coreCount", "threadsPerCore",
}  # fmt: skip
_DATA_KEYS = {
    "blockDeviceMappings", "metadataOptions", "networkInterfaces", "tagSpecifications", "imageId", "instanceType",
    "keyName", "userData", "ebsOptimized", "iamInstanceProfile", "placement", "vpcSecurityGroupIds", "monitoring",
    "capacityReservationSpecification", "instanceMarketOptions", "cpuOptions", "disableApiTermination",
    "instanceInitiatedShutdownBehavior", "privateDnsNameOptions", "enclaveOptions", "maintenanceOptions",
}  # fmt: skip


def _data(value: Any, key: str = "") -> Any:
    """A launch template input (camelCase, provider types) as LaunchTemplateData (PascalCase, API types)."""
    if key in _STRING_BOOLEANS:
        return boolean(value)
    if key in _INTEGERS:
        return integer(value)
    if key == "tags" and isinstance(value, dict):
        return tags(value)
    if isinstance(value, dict):
        return {_DATA_RENAMES.get(k, _pascal(k)): _data(v, k) for k, v in value.items() if v not in (None, "")}
    if isinstance(value, list):
        return [_data(v) for v in value]
    return value


@maps(
    "aws:ec2/launchTemplate:LaunchTemplate",
    "internal/service/ec2/ec2_launch_template.go (resourceLaunchTemplateCreate)",
)
def launch_template(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    r.inputs.drop("updateDefaultVersion", "defaultVersion")  # versions after the first (UpdateLaunchTemplate)
    data = {key: r.inputs.take(key) for key in _DATA_KEYS}
    answer = api(
        "ec2",
        "CreateLaunchTemplate",
        LaunchTemplateName=name,
        VersionDescription=r.inputs.take("description"),
        LaunchTemplateData=_data({k: v for k, v in data.items() if v is not None}),
        TagSpecifications=tag_specifications("launch-template", r.inputs.take("tags")),
    )["LaunchTemplate"]
    r.inputs.done()
    template_id = answer["LaunchTemplateId"]
    return {
        "id": template_id,
        "name": name,
        "arn": f"arn:{r.partition}:ec2:{api.region}:{api.account}:launch-template/{template_id}",
        "latestVersion": str(answer["LatestVersionNumber"]),
    }


@maps("aws:ec2/placementGroup:PlacementGroup", "internal/service/ec2/ec2_placement_group.go")
def placement_group(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)  # the group's id is its name; launch templates and node classes name it
    api(
        "ec2",
        "CreatePlacementGroup",
        GroupName=name,
        Strategy=r.inputs.need("strategy"),
        PartitionCount=integer(r.inputs.take("partitionCount")),
        SpreadLevel=r.inputs.take("spreadLevel"),
        TagSpecifications=tag_specifications("placement-group", r.inputs.take("tags")),
    )
    r.inputs.done()
    return {"id": name, "name": name}


@maps("aws:ec2/tag:Tag", "internal/service/ec2/tag.go (resourceTagCreate)")
def ec2_tag(api: Api, r: Resource) -> dict[str, str]:
    resource_id, key = r.inputs.need("resourceId"), r.inputs.need("key")
    api("ec2", "CreateTags", Resources=[resource_id], Tags=[{"Key": key, "Value": r.inputs.need("value")}])
    r.inputs.done()
    return {"id": f"{resource_id},{key}"}


@maps("aws:autoscaling/tag:Tag", "internal/service/autoscaling/tag.go (resourceTagCreate)")
def autoscaling_tag(api: Api, r: Resource) -> dict[str, str]:
    group, tag = r.inputs.need("autoscalingGroupName"), r.inputs.need("tag")
    r.inputs.done()
    unknown = set(tag) - {"key", "value", "propagateAtLaunch"}
    if unknown:
        raise ValueError(f"tag keys the rehearsal does not map: {sorted(unknown)}")
    api(
        "autoscaling",
        "CreateOrUpdateTags",
        Tags=[
            {
                "ResourceId": group,
                "ResourceType": "auto-scaling-group",
                "Key": tag["key"],
                "Value": tag["value"],
                "PropagateAtLaunch": bool(tag.get("propagateAtLaunch")),
            }
        ],
    )
    return {"id": f"{group},{tag['key']}"}
