"""A VPC for the cluster: private subnets for nodes in every AZ, public subnets only for NAT gateways."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.config.network import NetworkConfig
from mlplatform_core.model.network import DEFAULT_VPC_CIDR, DEFAULT_ZONES, nat_per_az, subnet_plan


class Vpc(pulumi.ComponentResource):
    """Creates the VPC when the stack does not bring its own."""

    vpc_id: pulumi.Output[str]
    private_subnet_ids: list[pulumi.Output[str]]

    def __init__(
        self,
        name: str,
        net: NetworkConfig,
        environment: str,
        cluster_name: str,
        tags: dict[str, str],
        opts: pulumi.ResourceOptions | None = None,
        private_subnet_tags: dict[str, str] | None = None,
    ):
        """`private_subnet_tags`: extra tags of the node subnets (e.g. Karpenter's discovery tag)."""
        super().__init__("mlplatform:network:Vpc", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        zones_wanted = net.availability_zone_count or DEFAULT_ZONES
        one_nat_per_az = nat_per_az(net, environment)
        cidr = net.vpc_cidr or DEFAULT_VPC_CIDR
        private_cidrs, public_cidrs = subnet_plan(cidr, zones_wanted)

        azs = aws.get_availability_zones_output(state="available", opts=pulumi.InvokeOptions(parent=self))
        vpc = aws.ec2.Vpc(
            f"{name}",
            cidr_block=cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={**tags, "Name": f"{cluster_name}-vpc"},
            opts=child,
        )
        igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=tags, opts=child)
        public_rt = aws.ec2.RouteTable(
            f"{name}-public",
            vpc_id=vpc.id,
            tags=tags,
            opts=child,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
        )
        nats: list[aws.ec2.NatGateway] = []
        self.private_subnet_ids = []
        self.private_subnet_zones: list[pulumi.Output[str]] = []
        for i in range(zones_wanted):
            az = azs.names[i]
            public = aws.ec2.Subnet(
                f"{name}-public-{i}",
                vpc_id=vpc.id,
                cidr_block=public_cidrs[i],
                availability_zone=az,
                tags={**tags, "kubernetes.io/role/elb": "1"},
                opts=child,
            )
            aws.ec2.RouteTableAssociation(
                f"{name}-public-{i}", subnet_id=public.id, route_table_id=public_rt.id, opts=child
            )
            if i == 0 or one_nat_per_az:
                eip = aws.ec2.Eip(f"{name}-nat-{i}", domain="vpc", tags=tags, opts=child)
                nats.append(
                    aws.ec2.NatGateway(
                        f"{name}-nat-{i}", subnet_id=public.id, allocation_id=eip.id, tags=tags, opts=child
                    )
                )
            private = aws.ec2.Subnet(
                f"{name}-private-{i}",
                vpc_id=vpc.id,
                cidr_block=private_cidrs[i],
                availability_zone=az,
                tags={**tags, "kubernetes.io/role/internal-elb": "1", **(private_subnet_tags or {})},
                opts=child,
            )
            rt = aws.ec2.RouteTable(
                f"{name}-private-{i}",
                vpc_id=vpc.id,
                tags=tags,
                opts=child,
                routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nats[-1].id)],
            )
            aws.ec2.RouteTableAssociation(f"{name}-private-{i}", subnet_id=private.id, route_table_id=rt.id, opts=child)
            self.private_subnet_ids.append(private.id)
            self.private_subnet_zones.append(private.availability_zone)
        self.vpc_id = vpc.id
        self.register_outputs({"vpcId": vpc.id, "privateSubnetIds": self.private_subnet_ids})
