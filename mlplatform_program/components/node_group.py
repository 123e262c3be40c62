"""One managed node group: launch template, aws.eks.NodeGroup and the node-template tags its Auto Scaling group needs.

Built from aws.eks.NodeGroup rather than pulumi_eks.ManagedNodeGroup so that
labels, taints, capacity type, scaling and tags are plain resource inputs that
tests and policies can see, offline and in a real preview alike.

Multi-node training and reservations live in the launch template (model/layout/training.py says why): EFA
interfaces (laid out by model/efa.py: by default an ENA primary interface and `efa-only` ones, with the
cluster's and the EFA security group), the placement group, and the capacity reservation target with the
instance type (and `capacity-block` market type) that EKS requires for reservations. A group whose launch
template names the instance type gives the node group none.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws

from mlplatform_core.model import efa
from mlplatform_core.model.layout import NodeGroupSpec, autoscaler_tags
from mlplatform_core.model.layout.spec import root_device

from .training_network import GroupNetwork


def _efa_interfaces(spec: NodeGroupSpec, network: GroupNetwork) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    """The group's interfaces as model/efa.py lays them out (efaOnly: an ENA primary interface, EFA-only ones)."""
    groups = [network.cluster_security_group, *([network.efa_security_group] if network.efa_security_group else [])]
    return [
        aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            network_card_index=i.network_card,
            device_index=i.device,
            # The ENA primary interface is EC2's default type, "interface": the provider's schema takes it as is.
            interface_type=i.interface_type,
            security_groups=groups,
            delete_on_termination="true",
        )
        for i in efa.interfaces(spec.efa_interfaces, spec.efa_layout)
    ]


def _reservation_args(spec: NodeGroupSpec) -> dict:
    r = spec.reservation
    if r is None:
        return {}
    out: dict = {
        "instance_type": spec.instance_types[0],
        "capacity_reservation_specification": aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
            capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                capacity_reservation_id=r.id
            )
        ),
    }
    if r.capacity_block:
        out["instance_market_options"] = aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
    return out


def _training_args(spec: NodeGroupSpec, network: GroupNetwork | None) -> dict:
    """The launch template's inputs for multi-node training and reservations: the reservation, and with a
    single-zone group's network its EFA interfaces and placement group."""
    training: dict = _reservation_args(spec)
    if network is not None:
        if spec.efa:
            training["network_interfaces"] = _efa_interfaces(spec, network)
        if network.placement_group is not None:
            training["placement"] = aws.ec2.LaunchTemplatePlacementArgs(group_name=network.placement_group)
    return training


def _launch_template(
    spec: NodeGroupSpec, cluster_name: str, imds_hop_limit: int, tags: dict[str, str], training: dict, opts
) -> aws.ec2.LaunchTemplate:
    return aws.ec2.LaunchTemplate(
        f"{spec.name}-lt",
        description=f"{cluster_name} {spec.name} nodes",
        update_default_version=True,
        # IMDSv2 only, hop limit 1: pods cannot borrow the node role's credentials.
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled",
            http_tokens="required",
            http_put_response_hop_limit=imds_hop_limit,
        ),
        block_device_mappings=[
            aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=root_device(spec.ami_type),
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=spec.disk_size_gib,
                    volume_type="gp3",
                    encrypted="true",
                    delete_on_termination="true",
                ),
            )
        ],
        tag_specifications=[
            aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=tags) for kind in ("instance", "volume")
        ],
        tags=tags,
        opts=opts,
        **training,
    )


def _node_group_inputs(spec: NodeGroupSpec, template_names_type: bool, template: aws.ec2.LaunchTemplate) -> dict:
    """The aws.eks.NodeGroup's inputs from the spec (capacity, scaling, labels, taints) and its launch template;
    a group whose launch template names the instance type gives the node group none."""
    return {
        "capacity_type": spec.capacity_type,
        "instance_types": None if template_names_type else list(spec.instance_types),
        "ami_type": spec.ami_type,
        "scaling_config": aws.eks.NodeGroupScalingConfigArgs(
            min_size=spec.min_size, max_size=spec.max_size, desired_size=spec.desired_size
        ),
        "update_config": aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=spec.max_unavailable),
        # EKS node auto repair, from the conditions the node monitoring agent add-on reports (nodeRepair).
        "node_repair_config": aws.eks.NodeGroupNodeRepairConfigArgs(enabled=spec.node_repair),
        "labels": dict(spec.labels),
        "taints": [
            aws.eks.NodeGroupTaintArgs(key=t.key, value=t.value or None, effect=t.eks_effect) for t in spec.taints
        ],
        "launch_template": aws.eks.NodeGroupLaunchTemplateArgs(
            id=template.id, version=template.latest_version.apply(str)
        ),
    }


class NodeGroup(pulumi.ComponentResource):
    node_group: aws.eks.NodeGroup

    def __init__(
        self,
        spec: NodeGroupSpec,
        cluster_name: str,
        kubernetes_version: str,
        node_role_arn: pulumi.Input[str],
        subnet_ids: pulumi.Input[list],
        imds_hop_limit: int = 1,
        tags: dict[str, str] | None = None,
        depends_on: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
        eks_cluster_name: pulumi.Input[str] | None = None,
        network: GroupNetwork | None = None,
        autoscaler: bool = True,
    ):
        """`eks_cluster_name`: the cluster's name as an Output of the EKS cluster (default `cluster_name`).
        `depends_on`: what the aws.eks.NodeGroup itself waits for besides (a component's own depends_on is not
        inherited by its children): the node role's policy attachments, so that destroy detaches them only
        after the nodes are gone.

        Only the EKS node group waits for the control plane: the launch template and the component itself are
        created alongside the cluster.

        `autoscaler`: whether the Cluster Autoscaler runs (layout.runs_cluster_autoscaler); without it, as for
        the groups a Karpenter or Auto Mode migration keeps, the group gets none of the autoscaler's tags.

        `network`: a single-zone group's subnet, placement group and security groups (components/training_network.py).
        """
        super().__init__("mlplatform:node_group:NodeGroup", spec.name, None, opts)
        tags = {**(tags or {}), "mlplatform.io/node-group": spec.name}
        child = pulumi.ResourceOptions(parent=self)
        training = _training_args(spec, network)
        if network is not None:
            subnet_ids = [network.subnet_id]
        template = _launch_template(spec, cluster_name, imds_hop_limit, tags, training, child)

        # The autoscaler owns the desired size of autoscaled groups; `pulumi up` must not reset it. Nor once a
        # migration to Karpenter or Auto Mode removes the autoscaler: the kept group holds the nodes it has.
        ignore = ["scalingConfig.desiredSize"] if spec.autoscaled else []
        self.node_group = aws.eks.NodeGroup(
            spec.name,
            cluster_name=eks_cluster_name if eks_cluster_name is not None else cluster_name,
            version=kubernetes_version,
            node_role_arn=node_role_arn,
            subnet_ids=subnet_ids,
            **_node_group_inputs(spec, "instance_type" in training, template),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=ignore, depends_on=list(depends_on)),
        )

        if autoscaler:
            self._autoscaler_tags(spec, cluster_name, child)
        self.node_group_name = self.node_group.node_group_name
        self.register_outputs({"nodeGroupName": self.node_group_name})

    def _autoscaler_tags(self, spec: NodeGroupSpec, cluster_name: str, opts: pulumi.ResourceOptions) -> None:
        """EKS does not copy node-group labels and taints to the Auto Scaling group, where the autoscaler reads
        what an empty group's nodes look like. The discovery tags are EKS's own: never created here."""
        asg_name = self.node_group.resources.apply(lambda res: res[0].autoscaling_groups[0].name)
        for key, value in autoscaler_tags(spec, cluster_name).items():
            aws.autoscaling.Tag(
                f"{spec.name}-asg-{key}",
                autoscaling_group_name=asg_name,
                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                opts=opts,
            )
