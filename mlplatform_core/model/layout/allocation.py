"""How pods get a GPU group's GPUs: the NVIDIA device plugin or Dynamic Resource Allocation (`gpuAllocation`).

Pure Python. `devicePlugin` (the default: a stack that omits the setting keeps what it had) advertises the GPUs as
the extended resource nvidia.com/gpu. `dra` publishes them as devices of the NVIDIA DRA driver (ResourceSlices;
pods ask through ResourceClaims of DeviceClass gpu.nvidia.com or mig.nvidia.com, resource.k8s.io/v1), and the
device plugin stays off the group's nodes: a DRA driver and a device plugin must never manage the same device
(EKS user guide "Manage hardware devices on Amazon EKS", Considerations; the driver's chart refuses GPUs without
`gpuResourcesEnabledOverride` for that reason, deployments/helm/nvidia-dra-driver-gpu/templates/validation.yaml).

What `dra` needs, checked here before anything is created:
- Kubernetes 1.34 or later: DRA (resource.k8s.io/v1) is GA in 1.34, where EKS recommends it;
- a GPU group on an AL2023 NVIDIA AMI: Bottlerocket runs NVIDIA's device plugin as a host service the toolkit
  cannot stop (the EKS guide: "if you use Bottlerocket, continue using device plugins");
- where the group's nodes come from (`_PROVISIONER_NEEDS`, a table by provisioner name): a managed node group
  must not scale from zero, because the Cluster Autoscaler builds an empty group's node from its Auto Scaling
  group with no ResourceSlices (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go
  TemplateNodeInfo: `framework.NewNodeInfo(node, nil, ...)` @ 55c37cd5), so a pod's ResourceClaim never fits the
  template and the group never grows; from one live node it copies that node's slices; a Karpenter pool needs
  a static pool (`staticNodes`) or a pinned Karpenter that launches nodes for claims (karpenter/release.py); an Auto
  Mode pool needs Kubernetes 1.36, where Auto Mode's node runtime ships the NVIDIA DRA driver (on 1.35 and below
  Auto Mode runs the device plugin);
- GPU sharing the pinned driver can express as static configuration (NVIDIA/k8s-dra-driver-gpu @ v25.12.0):
  static MIG is published as is (the MIG manager partitions the GPUs; cmd/gpu-kubelet-plugin/deviceinfo.go
  publishes each MIG device with type `mig` and its `profile`; dynamic MIG is the alpha DynamicMIG gate, off).
  MIG's `strategy` names the device plugin's resources and has no meaning under DRA, so it is refused when
  written. Time slicing has no node-level form in the driver (no replicas: pods share a GPU by sharing one
  ResourceClaim, whose GpuConfig picks TimeSlicing; its settings are the alpha TimeSlicingSettings gate,
  api/nvidia.com/resource/v1beta1/sharing.go, pkg/featuregates/featuregates.go): refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config import show
from ..config.karpenter_settings import AUTO_MODE, KARPENTER, NODE_GROUPS
from ..config.node_groups import NodeGroupSettings
from ..eks_versions import minor_key
from ..karpenter import release as karpenter_release
from ..scheduling import DEVICE_PLUGIN_LABEL
from .sharing import DEVICE_PLUGIN_CONFIG_LABEL

Add = Callable[[tuple, str], None]
DEVICE_PLUGIN = "devicePlugin"
DRA = "dra"
DRA_MIN_KUBERNETES = "1.34"  # resource.k8s.io/v1, DRA GA
AUTO_MODE_DRA_MIN_KUBERNETES = "1.36"  # Auto Mode's node runtime ships the NVIDIA and EFA DRA drivers from 1.36
SETTING = "gpuAllocation"


def _node_group_need(minor: str, min_size: int, max_size: int, o: NodeGroupSettings) -> str | None:
    reservation = o.capacity_reservation
    if reservation is not None and reservation.type == "capacity-block":
        # EKS scales a Capacity Block group to zero outside its block, so it must start from zero (training.py).
        return (
            "a Capacity Block group starts from zero nodes (EKS scales it down outside its block), and the Cluster "
            "Autoscaler cannot grow a managed node group from zero for ResourceClaims (its template node of an "
            "empty group publishes no devices); use gpuAllocation: devicePlugin for this group"
        )
    if min_size >= 1 or max_size == 0:
        return None
    return (
        "a managed node group scaled by the Cluster Autoscaler cannot grow from zero nodes for ResourceClaims (its "
        "template node of an empty group publishes no devices); set minSize: 1 or more, or gpuAllocation: "
        "devicePlugin"
    )


def _karpenter_need(minor: str, min_size: int, max_size: int, o: NodeGroupSettings) -> str | None:
    # A static pool's nodes exist, so claims are allocated from their ResourceSlices; a dynamic pool needs a
    # Karpenter that launches nodes for pending claims (karpenter/release.py, per pinned minor).
    return karpenter_release.dra_pool_problem(getattr(o, "static_nodes", None) is not None)


def _auto_mode_need(minor: str, min_size: int, max_size: int, o: NodeGroupSettings) -> str | None:
    if minor_key(minor) >= minor_key(AUTO_MODE_DRA_MIN_KUBERNETES):
        return None
    return (
        f"Auto Mode's node runtime brings the NVIDIA DRA driver from Kubernetes {AUTO_MODE_DRA_MIN_KUBERNETES}; on "
        f"{minor} its GPU nodes run the device plugin; use gpuAllocation: devicePlugin, or kubernetesVersion "
        f'"{AUTO_MODE_DRA_MIN_KUBERNETES}" or later'
    )


# What `dra` needs beyond Kubernetes 1.34, by the provisioner that launches the group's nodes (a table, not a test
# per provisioner: the provisioner protocol is the place for it).
_PROVISIONER_NEEDS: dict[str, Callable[[str, int, int, NodeGroupSettings], str | None]] = {
    NODE_GROUPS: _node_group_need,
    KARPENTER: _karpenter_need,
    AUTO_MODE: _auto_mode_need,
}
# What each provisioner installs for `dra` groups: the NVIDIA DRA driver chart, or nothing (Auto Mode's own).
INSTALLS_DRIVER: dict[str, bool] = {NODE_GROUPS: True, KARPENTER: True, AUTO_MODE: False}


def allocation_of(
    name: str,
    o: NodeGroupSettings,
    gpu: bool,
    ami_type: str,
    provisioner: str,
    minor: str,
    sizes: tuple[int, int],
    path: tuple,
    add: Add,
) -> str:
    """The group's allocation (problems go to `add`). `provisioner`: what launches the group's nodes; `sizes`: its
    (minSize, maxSize)."""
    written = o.gpu_allocation
    apath = path + (SETTING,)
    if written is None:
        return DEVICE_PLUGIN
    if not gpu:
        add(apath, f"{show(written)} is set on a group without GPUs; {SETTING} belongs on a GPU group (gpu: true)")
        return DEVICE_PLUGIN
    if written != DRA:
        return written
    if minor_key(minor) < minor_key(DRA_MIN_KUBERNETES):
        add(
            apath,
            f"{show(DRA)}: Dynamic Resource Allocation needs Kubernetes {DRA_MIN_KUBERNETES} or later (resource.k8s.io/"
            f'v1), the cluster runs {minor}; set kubernetesVersion: "{DRA_MIN_KUBERNETES}" or later, or {SETTING}: '
            f"{DEVICE_PLUGIN}",
        )
    if ami_type.startswith("BOTTLEROCKET"):
        add(
            apath,
            f"{show(DRA)} cannot be used on {ami_type}: Bottlerocket runs NVIDIA's device plugin as a host service, "
            "and a DRA driver and a device plugin must not manage the same GPUs (EKS user guide: with Bottlerocket, "
            f"keep the device plugin); use an AL2023 NVIDIA AMI, or {SETTING}: {DEVICE_PLUGIN}",
        )
    if need := _PROVISIONER_NEEDS[provisioner](minor, *sizes, o):
        add(apath, f"{show(DRA)}: {need}")
    _sharing_problems(name, o, path, add)
    return DRA


def _sharing_problems(name: str, o: NodeGroupSettings, path: tuple, add: Add) -> None:
    s = o.gpu_sharing
    if s is None:
        return
    spath = path + ("gpuSharing",)
    if s.time_slicing is not None:
        add(
            spath + ("timeSlicing",),
            f"group {name}: time slicing with {SETTING}: {DRA} cannot be expressed as the pinned NVIDIA DRA driver's "
            "static configuration (it has no per-GPU replicas: pods share a GPU by sharing one ResourceClaim, and "
            "its time-slice settings are alpha); use gpuAllocation: devicePlugin for time slicing, or remove "
            "timeSlicing and share claims",
        )
    if s.mig is not None and "strategy" in s.mig.model_fields_set:
        add(
            spath + ("mig", "strategy"),
            f"{show(s.mig.strategy)}: group {name}: the MIG strategy names the device plugin's resources "
            f"(nvidia.com/gpu or nvidia.com/mig-<profile>); with {SETTING}: {DRA} every MIG device is published as "
            "a device of DeviceClass mig.nvidia.com with its profile; remove strategy",
        )


def drop_plugin_labels(labels: dict[str, Any], allocation: str) -> None:
    """A `dra` group's nodes carry none of the device plugin's labels: its DaemonSet selects them (never both)."""
    if allocation == DRA:
        labels.pop(DEVICE_PLUGIN_LABEL, None)
        labels.pop(DEVICE_PLUGIN_CONFIG_LABEL, None)


def launched_by(cfg: Any, name: str, is_pool: bool) -> str:
    """The provisioner that launches the group's nodes: the stack's for a pool, node groups otherwise."""
    return cfg.provisioner if is_pool else NODE_GROUPS
