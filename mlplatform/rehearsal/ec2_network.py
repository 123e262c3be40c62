"""EC2 networking: the VPC, its subnets, gateways and routes, security groups and their rules, flow logs."""

from __future__ import annotations

from typing import Any

from .api import Api
from .mapping import Resource, integer, maps, name_of, tag_specifications, tags


@maps("aws:ec2/vpc:Vpc", "internal/service/ec2/vpc_.go (resourceVPCCreate)")
def vpc(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "CreateVpc",
        CidrBlock=r.inputs.take("cidrBlock"),
        InstanceTenancy=r.inputs.take("instanceTenancy"),
        AmazonProvidedIpv6CidrBlock=r.inputs.take("assignGeneratedIpv6CidrBlock"),
        TagSpecifications=tag_specifications("vpc", r.inputs.take("tags")),
    )["Vpc"]
    vpc_id = answer["VpcId"]
    # vpc_.go modifies the DNS attributes after the create, one per call, where they differ from AWS's defaults
    # (hostnames off, support on).
    hostnames, support = r.inputs.take("enableDnsHostnames"), r.inputs.take("enableDnsSupport")
    r.inputs.done()
    if hostnames:
        api("ec2", "ModifyVpcAttribute", VpcId=vpc_id, EnableDnsHostnames={"Value": True})
    if support is False:
        api("ec2", "ModifyVpcAttribute", VpcId=vpc_id, EnableDnsSupport={"Value": False})
    arn = f"arn:{r.partition}:ec2:{api.region}:{api.account}:vpc/{vpc_id}"
    return {"id": vpc_id, "arn": arn}


def _permission(rule: dict[str, Any], group_id: str) -> dict[str, Any]:
    """One rule as an IpPermission (vpc_security_group.go expandIPPerm / vpc_security_group_rule.go)."""
    protocol = str(rule.get("protocol", "-1"))
    pairs = [{"GroupId": g} for g in rule.get("securityGroups") or []]
    if rule.get("sourceSecurityGroupId"):
        pairs.append({"GroupId": rule["sourceSecurityGroupId"]})
    if rule.get("self"):
        pairs.append({"GroupId": group_id})
    description = rule.get("description")
    for pair in pairs:
        if description:
            pair["Description"] = description
    permission: dict[str, Any] = {
        "IpProtocol": "-1" if protocol.lower() == "all" else protocol,
        "FromPort": integer(rule.get("fromPort")),
        "ToPort": integer(rule.get("toPort")),
        "IpRanges": [
            {"CidrIp": c, **({"Description": description} if description else {})} for c in rule.get("cidrBlocks") or []
        ],
        "Ipv6Ranges": [{"CidrIpv6": c} for c in rule.get("ipv6CidrBlocks") or []],
        "PrefixListIds": [{"PrefixListId": p} for p in rule.get("prefixListIds") or []],
        "UserIdGroupPairs": pairs,
    }
    return {k: v for k, v in permission.items() if v not in (None, [])}


def _inline_rules(api: Api, group_id: str, ingress: list, egress: list) -> None:
    for rule in ingress:
        api("ec2", "AuthorizeSecurityGroupIngress", GroupId=group_id, IpPermissions=[_permission(rule, group_id)])
    for rule in egress:
        api("ec2", "AuthorizeSecurityGroupEgress", GroupId=group_id, IpPermissions=[_permission(rule, group_id)])


ALL_EGRESS = {"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}


@maps("aws:ec2/securityGroup:SecurityGroup", "internal/service/ec2/vpc_security_group.go (resourceSecurityGroupCreate)")
def security_group(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    ingress, egress = r.inputs.take("ingress") or [], r.inputs.take("egress") or []
    r.inputs.drop("revokeRulesOnDelete")  # used when the group is deleted
    answer = api(
        "ec2",
        "CreateSecurityGroup",
        GroupName=name,
        Description=r.inputs.take("description", "Managed by Pulumi"),
        VpcId=r.inputs.take("vpcId"),
        TagSpecifications=tag_specifications("security-group", r.inputs.take("tags")),
    )
    r.inputs.done()
    group_id = answer["GroupId"]
    # The provider removes AWS's default allow-all egress rule, then authorizes the group's own inline rules.
    api("ec2", "RevokeSecurityGroupEgress", GroupId=group_id, IpPermissions=[ALL_EGRESS])
    _inline_rules(api, group_id, ingress, egress)
    return {"id": group_id, "arn": answer.get("SecurityGroupArn", group_id), "name": name}


@maps("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", "internal/service/ec2/vpc_default_security_group.go")
def default_security_group(api: Api, r: Resource) -> dict[str, str]:
    vpc_id = r.inputs.need("vpcId")
    found = api(
        "ec2",
        "DescribeSecurityGroups",
        Filters=[{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "group-name", "Values": ["default"]}],
    )["SecurityGroups"]
    if len(found) != 1:
        raise ValueError(f"VPC {vpc_id} has {len(found)} default security groups")
    group = found[0]
    group_id = group["GroupId"]
    values = r.inputs.take("tags")
    ingress, egress = r.inputs.take("ingress") or [], r.inputs.take("egress") or []
    r.inputs.drop("revokeRulesOnDelete")
    r.inputs.done()
    if values:
        api("ec2", "CreateTags", Resources=[group_id], Tags=tags(values))
    # Adopting the default group, the provider revokes every rule AWS put in it, then adds the configured ones.
    if group.get("IpPermissions"):
        api("ec2", "RevokeSecurityGroupIngress", GroupId=group_id, IpPermissions=group["IpPermissions"])
    if group.get("IpPermissionsEgress"):
        api("ec2", "RevokeSecurityGroupEgress", GroupId=group_id, IpPermissions=group["IpPermissionsEgress"])
    _inline_rules(api, group_id, ingress, egress)
    return {"id": group_id, "arn": group.get("SecurityGroupArn", group_id), "name": "default"}


@maps("aws:ec2/securityGroupRule:SecurityGroupRule", "internal/service/ec2/vpc_security_group_rule.go")
def security_group_rule(api: Api, r: Resource) -> dict[str, str]:
    group_id, kind = r.inputs.need("securityGroupId"), r.inputs.need("type")
    rule = {
        k: r.inputs.take(k)
        for k in (
            "protocol", "fromPort", "toPort", "cidrBlocks", "ipv6CidrBlocks", "prefixListIds",
            "sourceSecurityGroupId", "self", "description",
        )
    }  # fmt: skip
    r.inputs.done()
    operation = "AuthorizeSecurityGroupIngress" if kind == "ingress" else "AuthorizeSecurityGroupEgress"
    answer = api("ec2", operation, GroupId=group_id, IpPermissions=[_permission(rule, group_id)])
    rules = answer.get("SecurityGroupRules") or [{}]
    return {"id": rules[0].get("SecurityGroupRuleId", f"{group_id}-{kind}")}


@maps("aws:ec2/subnet:Subnet", "internal/service/ec2/vpc_subnet.go (resourceSubnetCreate)")
def subnet(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "CreateSubnet",
        VpcId=r.inputs.need("vpcId"),
        CidrBlock=r.inputs.take("cidrBlock"),
        AvailabilityZone=r.inputs.take("availabilityZone"),
        AvailabilityZoneId=r.inputs.take("availabilityZoneId"),
        TagSpecifications=tag_specifications("subnet", r.inputs.take("tags")),
    )["Subnet"]
    public_ip = r.inputs.take("mapPublicIpOnLaunch")
    r.inputs.done()
    if public_ip:  # vpc_subnet.go: a ModifySubnetAttribute after the create
        api("ec2", "ModifySubnetAttribute", SubnetId=answer["SubnetId"], MapPublicIpOnLaunch={"Value": True})
    return {"id": answer["SubnetId"], "arn": answer.get("SubnetArn", answer["SubnetId"])}


@maps("aws:ec2/internetGateway:InternetGateway", "internal/service/ec2/vpc_internet_gateway.go")
def internet_gateway(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2", "CreateInternetGateway", TagSpecifications=tag_specifications("internet-gateway", r.inputs.take("tags"))
    )["InternetGateway"]
    gateway_id, vpc_id = answer["InternetGatewayId"], r.inputs.take("vpcId")
    r.inputs.done()
    if vpc_id:
        api("ec2", "AttachInternetGateway", InternetGatewayId=gateway_id, VpcId=vpc_id)
    return {"id": gateway_id, "arn": f"arn:{r.partition}:ec2:{api.region}:{api.account}:internet-gateway/{gateway_id}"}


@maps("aws:ec2/eip:Eip", "internal/service/ec2/ec2_eip.go (resourceEIPCreate)")
def eip(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "AllocateAddress",
        Domain=r.inputs.take("domain"),
        TagSpecifications=tag_specifications("elastic-ip", r.inputs.take("tags")),
    )
    r.inputs.done()
    return {"id": answer["AllocationId"], "allocationId": answer["AllocationId"], "publicIp": answer["PublicIp"]}


@maps("aws:ec2/natGateway:NatGateway", "internal/service/ec2/vpc_nat_gateway.go (resourceNATGatewayCreate)")
def nat_gateway(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "CreateNatGateway",
        SubnetId=r.inputs.need("subnetId"),
        AllocationId=r.inputs.take("allocationId"),
        ConnectivityType=r.inputs.take("connectivityType"),
        PrivateIpAddress=r.inputs.take("privateIp"),
        TagSpecifications=tag_specifications("natgateway", r.inputs.take("tags")),
    )["NatGateway"]
    r.inputs.done()
    return {"id": answer["NatGatewayId"]}


_ROUTE_TARGETS = {
    "cidrBlock": "DestinationCidrBlock",
    "ipv6CidrBlock": "DestinationIpv6CidrBlock",
    "destinationPrefixListId": "DestinationPrefixListId",
    "gatewayId": "GatewayId",
    "natGatewayId": "NatGatewayId",
    "egressOnlyGatewayId": "EgressOnlyInternetGatewayId",
    "transitGatewayId": "TransitGatewayId",
    "vpcEndpointId": "VpcEndpointId",
    "networkInterfaceId": "NetworkInterfaceId",
    "vpcPeeringConnectionId": "VpcPeeringConnectionId",
}


@maps("aws:ec2/routeTable:RouteTable", "internal/service/ec2/vpc_route_table.go (resourceRouteTableCreate)")
def route_table(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "CreateRouteTable",
        VpcId=r.inputs.need("vpcId"),
        TagSpecifications=tag_specifications("route-table", r.inputs.take("tags")),
    )["RouteTable"]
    table_id = answer["RouteTableId"]
    routes = r.inputs.take("routes") or []
    r.inputs.done()
    for route in routes:  # vpc_route_table.go: one CreateRoute per inline route, after the table
        unknown = set(route) - set(_ROUTE_TARGETS)
        if unknown:
            raise ValueError(f"route keys the rehearsal does not map: {sorted(unknown)}")
        api("ec2", "CreateRoute", RouteTableId=table_id, **{_ROUTE_TARGETS[k]: v for k, v in route.items() if v})
    return {"id": table_id}


@maps("aws:ec2/routeTableAssociation:RouteTableAssociation", "internal/service/ec2/vpc_route_table_association.go")
def route_table_association(api: Api, r: Resource) -> dict[str, str]:
    answer = api(
        "ec2",
        "AssociateRouteTable",
        RouteTableId=r.inputs.need("routeTableId"),
        SubnetId=r.inputs.take("subnetId"),
        GatewayId=r.inputs.take("gatewayId"),
    )
    r.inputs.done()
    return {"id": answer["AssociationId"]}


@maps("aws:ec2/flowLog:FlowLog", "internal/service/ec2/vpc_flow_log.go (resourceLogFlowCreate)")
def flow_log(api: Api, r: Resource) -> dict[str, str]:
    kinds = {"vpcId": "VPC", "subnetId": "Subnet", "eniId": "NetworkInterface", "transitGatewayId": "TransitGateway"}
    targets = {key: r.inputs.take(key) for key in kinds}
    ((key, resource_id),) = [(k, v) for k, v in targets.items() if v]
    answer = api(
        "ec2",
        "CreateFlowLogs",
        ResourceIds=[resource_id],
        ResourceType=kinds[key],
        TrafficType=r.inputs.take("trafficType"),
        LogDestinationType=r.inputs.take("logDestinationType"),
        LogDestination=r.inputs.take("logDestination"),
        DeliverLogsPermissionArn=r.inputs.take("iamRoleArn"),
        MaxAggregationInterval=integer(r.inputs.take("maxAggregationInterval")),
        LogFormat=r.inputs.take("logFormat"),
        TagSpecifications=tag_specifications("vpc-flow-log", r.inputs.take("tags")),
    )
    r.inputs.done()
    if answer.get("Unsuccessful"):  # vpc_flow_log.go fails the create on any unsuccessful item
        raise ValueError(f"CreateFlowLogs: {answer['Unsuccessful']}")
    return {"id": answer["FlowLogIds"][0]}
