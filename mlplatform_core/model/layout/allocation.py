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
- what the provisioner that launches the group's nodes needs (model/provisioners, `Provisioner.dra_problem`;
  `launched_by`): a managed node group must not scale from zero (the Cluster Autoscaler's template node of an
  empty group publishes no devices), a Karpenter pool needs a static pool (`staticNodes`) or a pinned Karpenter
  that launches nodes for claims (karpenter/release.py), an Auto Mode pool needs Kubernetes 1.36, where Auto
  Mode's node runtime ships the NVIDIA DRA driver (on 1.35 and below Auto Mode runs the device plugin);
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
from ..config.node_groups import NodeGroupSettings
from ..eks_versions import minor_key
from ..provisioners import Provisioner, launching
from ..scheduling import DEVICE_PLUGIN_LABEL
from .sharing import DEVICE_PLUGIN_CONFIG_LABEL

Add = Callable[[tuple, str], None]
DEVICE_PLUGIN = "devicePlugin"
DRA = "dra"
DRA_MIN_KUBERNETES = "1.34"  # resource.k8s.io/v1, DRA GA
SETTING = "gpuAllocation"


def allocation_of(
    name: str,
    o: NodeGroupSettings,
    gpu: bool,
    ami_type: str,
    provisioner: Provisioner,
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
    if need := provisioner.dra_problem(minor, *sizes, o):
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


def launched_by(cfg: Any, name: str) -> Provisioner:
    """The provisioner that launches the group's nodes: the stack's for one of its pools, node groups otherwise."""
    return launching(cfg, name)
