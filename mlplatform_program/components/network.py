"""A VPC for the cluster: private subnets for nodes in every AZ, public subnets only for NAT gateways."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws

from mlplatform_core.model import hardening
from mlplatform_core.model.config.network import NetworkConfig
from mlplatform_core.model.network import DEFAULT_VPC_CIDR, DEFAULT_ZONES, nat_per_az, subnet_plan


class Vpc(pulumi.ComponentResource):
    """Creates the VPC when the stack does not bring its own: its flow logs go to CloudWatch Logs, and its default
    security group, which nothing uses, allows nothing (EC2 creates it allowing traffic within it and all egress)."""

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
        region: str = "us-east-1",
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
        # Adopted with no ingress and no egress: the provider removes the rules EC2 put there.
        aws.ec2.DefaultSecurityGroup(f"{name}-default", vpc_id=vpc.id, tags=tags, opts=child)
        # The flow logs come later (flow_logs): their group is encrypted with the stack's key, whose policy must
        # first let CloudWatch Logs use it, and that policy waits for the cluster role.
        self._name, self._vpc, self._cluster_name, self._region, self._tags = name, vpc, cluster_name, region, tags
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
            public = self._public_subnet(i, az, public_cidrs[i], public_rt)
            if i == 0 or one_nat_per_az:
                eip = aws.ec2.Eip(f"{name}-nat-{i}", domain="vpc", tags=tags, opts=child)
                nats.append(
                    aws.ec2.NatGateway(
                        f"{name}-nat-{i}", subnet_id=public.id, allocation_id=eip.id, tags=tags, opts=child
                    )
                )
            private = self._private_subnet(i, az, private_cidrs[i], nats[-1], private_subnet_tags or {})
            self.private_subnet_ids.append(private.id)
            self.private_subnet_zones.append(private.availability_zone)
        self.vpc_id = vpc.id
        self.register_outputs({"vpcId": vpc.id, "privateSubnetIds": self.private_subnet_ids})

    def _public_subnet(
        self, i: int, az: pulumi.Input[str], cidr: str, route_table: aws.ec2.RouteTable
    ) -> aws.ec2.Subnet:
        """Zone i's public subnet (for its NAT gateway and internet-facing load balancers), routed to the internet."""
        name, tags, child = self._name, self._tags, pulumi.ResourceOptions(parent=self)
        public = aws.ec2.Subnet(
            f"{name}-public-{i}",
            vpc_id=self._vpc.id,
            cidr_block=cidr,
            availability_zone=az,
            tags={**tags, "kubernetes.io/role/elb": "1"},
            opts=child,
        )
        aws.ec2.RouteTableAssociation(
            f"{name}-public-{i}", subnet_id=public.id, route_table_id=route_table.id, opts=child
        )
        return public

    def _private_subnet(
        self, i: int, az: pulumi.Input[str], cidr: str, nat: aws.ec2.NatGateway, extra_tags: dict[str, str]
    ) -> aws.ec2.Subnet:
        """Zone i's private subnet for nodes, with its own route table out through `nat`."""
        name, tags, child = self._name, self._tags, pulumi.ResourceOptions(parent=self)
        private = aws.ec2.Subnet(
            f"{name}-private-{i}",
            vpc_id=self._vpc.id,
            cidr_block=cidr,
            availability_zone=az,
            tags={**tags, "kubernetes.io/role/internal-elb": "1", **extra_tags},
            opts=child,
        )
        rt = aws.ec2.RouteTable(
            f"{name}-private-{i}",
            vpc_id=self._vpc.id,
            tags=tags,
            opts=child,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)],
        )
        aws.ec2.RouteTableAssociation(f"{name}-private-{i}", subnet_id=private.id, route_table_id=rt.id, opts=child)
        return private

    def flow_logs(self, key_arn: pulumi.Input[str], key_policy: pulumi.Resource) -> None:
        """ALL traffic to a log group kept FLOW_LOG_RETENTION_DAYS and encrypted with the stack's key (once
        `key_policy` lets CloudWatch Logs use it: CreateLogGroup fails otherwise), through a role that may write
        there only."""
        name, vpc, cluster_name, region, tags = self._name, self._vpc, self._cluster_name, self._region, self._tags
        child = pulumi.ResourceOptions(parent=self)
        group = aws.cloudwatch.LogGroup(
            f"{name}-flow-logs",
            name_prefix=hardening.flow_log_group_prefix(cluster_name),
            retention_in_days=hardening.FLOW_LOG_RETENTION_DAYS,
            kms_key_id=key_arn,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[key_policy]),
        )
        account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self)).account_id
        role = aws.iam.Role(
            f"{name}-flow-logs",
            assume_role_policy=account.apply(lambda a: json.dumps(hardening.flow_log_trust_policy(region, a))),
            description=f"VPC flow logs of {cluster_name} to CloudWatch Logs",
            tags=tags,
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-flow-logs",
            role=role.id,
            policy=group.arn.apply(lambda arn: json.dumps(hardening.flow_log_role_policy(arn))),
            opts=child,
        )
        aws.ec2.FlowLog(
            f"{name}-flow-logs",
            vpc_id=vpc.id,
            traffic_type="ALL",
            log_destination_type="cloud-watch-logs",
            log_destination=group.arn,
            iam_role_arn=role.arn,
            tags=tags,
            opts=child,
        )
