"""Where multi-node training groups sit: one subnet each, a cluster placement group, a security group for EFA.

For every single-zone group (EFA, a placement group, a capacity reservation or an explicit availabilityZone),
managed node group or Karpenter pool alike:
- its subnet: the stack's private subnet in the group's AZ (availabilityZone), or the first private subnet;
- a cluster placement group (aws.ec2.PlacementGroup, strategy cluster) when the group has one, or the existing
  one its On-Demand Capacity Reservation was created in (capacityReservation.placementGroup, by name);
- with EFA, a security group whose members may exchange all traffic with each other, in and out: EFA's
  OS-bypass traffic needs a self-referencing rule both ways (EC2 user guide efa-start, "Prepare an
  EFA-enabled security group"); the nodes keep the cluster's security group too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.config import ConfigError, Problem
from mlplatform_core.model.layout import Layout, NodeGroupSpec


@dataclass
class GroupNetwork:
    """What one single-zone group's nodes get."""

    subnet_id: pulumi.Output[str]
    zone: pulumi.Output[str]
    placement_group: pulumi.Output[str] | None  # the placement group's name
    efa_security_group: pulumi.Output[str] | None
    cluster_security_group: pulumi.Output[str]


def _pick(
    zones: Sequence[str], subnet_ids: Sequence[str], wanted: str | None, group: str, config_path: str = ""
) -> tuple[str, str]:
    """The subnet in the wanted AZ (the first one without a wish). A zone the stack has no private subnet in
    is the user's to fix (an InputError: `mlplatform plan` exits 2 naming the setting, `pulumi up` stops)."""
    if wanted is None:
        return subnet_ids[0], zones[0]
    for zone, subnet in zip(zones, subnet_ids, strict=True):
        if zone == wanted:
            return subnet, zone
    where = f"{config_path}.availabilityZone" if config_path else f"node group {group}: availabilityZone"
    raise ConfigError(
        [
            Problem(
                where,
                f"{wanted} has no private subnet of this stack (its subnets are in {', '.join(zones)}); choose one of "
                "those zones, or give the VPC a subnet there",
            )
        ]
    )


def single_zone_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    """Every group whose nodes sit in one AZ, managed node groups and Karpenter pools alike."""
    by_name = {g.name: g for g in (*layout.groups, *layout.retained_groups)}
    return tuple(g for g in by_name.values() if g.single_zone)


class TrainingNetwork(pulumi.ComponentResource):
    groups: dict[str, GroupNetwork]

    def __init__(
        self,
        name: str,
        layout: Layout,
        vpc_id: pulumi.Input[str],
        subnet_ids: Sequence[pulumi.Input[str]],
        subnet_zones: Sequence[pulumi.Input[str]],
        cluster: pulumi.Resource,
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ):
        """`subnet_zones`: the AZ of each private subnet, in the same order."""
        super().__init__("mlplatform:training:TrainingNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(tags or {})
        # The security group EKS made for the cluster: managed node groups without a launch template's
        # interfaces get it from EKS; interfaces of our own must name it.
        cluster_sg = aws.eks.get_cluster_output(
            name=layout.cluster_name, opts=pulumi.InvokeOutputOptions(parent=self, depends_on=[cluster])
        ).vpc_config.cluster_security_group_id
        chosen = pulumi.Output.all(list(subnet_zones), list(subnet_ids))
        self.groups = {}
        for g in single_zone_groups(layout):
            picked = chosen.apply(lambda a, g=g: _pick(a[0], a[1], g.availability_zone, g.name, g.config_path))
            pg = None
            if g.placement_group and g.reservation is not None and g.reservation.placement_group is not None:
                # The reservation's own group: only instances launched into it use the reservation (EC2 user
                # guide cr-cpg); a group of the stack's would never hold it.
                pg = pulumi.Output.from_input(g.reservation.placement_group)
            elif g.placement_group:
                pg = aws.ec2.PlacementGroup(
                    f"{name}-{g.name}",
                    strategy="cluster",
                    tags={**tags, "mlplatform.io/node-group": g.name},
                    opts=child,
                ).name
            sg = None
            if g.efa:
                group_sg = aws.ec2.SecurityGroup(
                    f"{name}-{g.name}-efa",
                    description=f"EFA traffic between the nodes of {layout.cluster_name} group {g.name}",
                    vpc_id=vpc_id,
                    tags={**tags, "mlplatform.io/node-group": g.name},
                    opts=child,
                )
                for direction in ("ingress", "egress"):
                    aws.ec2.SecurityGroupRule(
                        f"{name}-{g.name}-efa-{direction}",
                        type=direction,
                        description=f"all {direction} traffic among the group's nodes (EFA)",
                        protocol="-1",
                        from_port=0,
                        to_port=0,
                        self=True,
                        security_group_id=group_sg.id,
                        opts=child,
                    )
                sg = group_sg.id
            self.groups[g.name] = GroupNetwork(picked[0], picked[1], pg, sg, cluster_sg)
        self.register_outputs({"groups": sorted(self.groups)})

    def exports(self) -> dict[str, pulumi.Output]:
        """Per group: its zone, placement group and EFA security group (what the Kubernetes layer's NodePools read)."""
        return {
            name: pulumi.Output.all(n.zone, n.placement_group, n.efa_security_group).apply(
                lambda a: {"zone": a[0], "placementGroup": a[1], "efaSecurityGroup": a[2]}
            )
            for name, n in self.groups.items()
        }
