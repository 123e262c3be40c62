"""The tags a node group's Auto Scaling group needs for the Cluster Autoscaler."""

from __future__ import annotations

from .. import instances
from ..scheduling import EKS_CAPACITY_LABEL, GPU_RESOURCE
from .spec import NodeGroupSpec

AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"
# EKS puts a few tags of its own on each Auto Scaling group; an ASG holds at most 50.
MAX_ASG_TAGS = 44


def autoscaler_tags(spec: NodeGroupSpec, cluster_name: str) -> dict[str, str]:
    """Tags for the group's Auto Scaling group: discovery (autoscaled groups only) and node templates.

    EKS does not copy node-group labels and taints to the ASG, so without these
    the Cluster Autoscaler cannot tell what a node of an empty group would look like.
    """
    tags: dict[str, str] = {}
    if spec.autoscaled:
        tags[f"{AUTOSCALER_PREFIX}/enabled"] = "true"
        tags[f"{AUTOSCALER_PREFIX}/{cluster_name}"] = "owned"
    template = f"{AUTOSCALER_PREFIX}/node-template"
    tags[f"{template}/label/{EKS_CAPACITY_LABEL}"] = spec.capacity_type
    for key, value in spec.labels.items():
        tags[f"{template}/label/{key}"] = value
    for taint in spec.taints:
        tags[f"{template}/taint/{taint.key}"] = f"{taint.value}:{taint.effect}"
    if spec.gpu:
        tags[f"{template}/resources/{GPU_RESOURCE}"] = str(max(1, instances.gpu_count(spec.instance_types)))
    return tags
