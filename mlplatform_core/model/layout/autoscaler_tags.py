"""The tags a node group's Auto Scaling group needs for the Cluster Autoscaler."""

from __future__ import annotations

from .. import instances
from ..scheduling import EKS_CAPACITY_LABEL, GPU_RESOURCE
from .sharing import EFA_RESOURCE, node_devices
from .spec import NodeGroupSpec

AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"
# An ASG holds at most 50 tags; EKS puts its own on every managed node group's ASG (eks:cluster-name,
# eks:nodegroup-name, kubernetes.io/cluster/<cluster> and the two discovery tags below), so leave room.
MAX_ASG_TAGS = 44


def discovery_tags(cluster_name: str) -> dict[str, str]:
    """The autoscaler's auto-discovery tags, which EKS itself puts on every managed node group's ASG.

    EKS user guide, managed-node-groups.adoc ("automatically tagged for auto-discovery by the Kubernetes
    Cluster Autoscaler", awsdocs/amazon-eks-user-guide @ 4d52b4d0); the values are those AWS's
    least-privilege autoscaler policy conditions on (EKS best practices, cas.html). The toolkit never
    creates them: a tag resource of ours for these keys would delete EKS's own tag when destroyed.
    """
    return {f"{AUTOSCALER_PREFIX}/enabled": "true", f"{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}


def autoscaler_tags(spec: NodeGroupSpec, cluster_name: str) -> dict[str, str]:
    """Node-template tags for the group's Auto Scaling group: what a node of the group looks like.

    EKS does not copy node-group labels and taints to the ASG, so without these the Cluster Autoscaler
    cannot tell what a node of an empty group would look like (scale from zero). The discovery tags are
    EKS's own (discovery_tags) and not among them, so `cluster_name` names nothing here any more.
    """
    tags: dict[str, str] = {}
    template = f"{AUTOSCALER_PREFIX}/node-template"
    tags[f"{template}/label/{EKS_CAPACITY_LABEL}"] = spec.capacity_type
    for key, value in spec.labels.items():
        tags[f"{template}/label/{key}"] = value
    for taint in spec.taints:
        tags[f"{template}/taint/{taint.key}"] = f"{taint.value}:{taint.effect}"
    for resource, amount in template_resources(spec).items():
        tags[f"{template}/resources/{resource}"] = str(amount)
    return tags


def template_resources(spec: NodeGroupSpec) -> dict[str, int]:
    """The extended resources of the scale-from-zero node: what every node of the group is sure to advertise
    (sharing.node_devices, the smallest amount among the known types). The autoscaler counts the instance type's
    physical GPUs itself and lets these tags override them (kubernetes/autoscaler cluster-autoscaler/
    cloudprovider/aws/aws_manager.go buildNodeFromTemplate @ 55c37cd5): time-sliced GPUs count as their
    replicas, mixed MIG devices under their own name with nvidia.com/gpu 0, EFA interfaces on EFA groups."""
    known = [t for t in map(instances.lookup, spec.instance_types) if t is not None and t.known]
    out: dict[str, int] = {}
    if spec.gpu:
        out[GPU_RESOURCE] = max(1, instances.gpu_count(spec.instance_types))
    if not known:
        return out
    devices = [node_devices(spec, t) for t in known]
    names = {GPU_RESOURCE, EFA_RESOURCE} | ({spec.sharing.resource} if spec.sharing else set())
    for name in sorted(names):
        if name == EFA_RESOURCE and not spec.efa:
            continue
        if name == GPU_RESOURCE and not spec.gpu:
            continue
        out[name] = min(d.get(name, 0) for d in devices)
    return out
