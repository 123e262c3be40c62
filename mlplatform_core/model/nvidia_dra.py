"""The NVIDIA DRA driver's names, as pods and the placement proof use them (pure data, no Pulumi import).

From the driver's source at its release tag v25.12.0 (NVIDIA/k8s-dra-driver-gpu, now
kubernetes-sigs/dra-driver-nvidia-gpu): the driver's name, which is also the domain of its device attributes
(cmd/gpu-kubelet-plugin), the device types it publishes (cmd/gpu-kubelet-plugin/types.go GpuDeviceType,
MigStaticDeviceType) and the DeviceClasses its chart creates with their CEL selectors
(deployments/helm/nvidia-dra-driver-gpu/templates/deviceclass-gpu.yaml, deviceclass-mig.yaml).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DRIVER = "gpu.nvidia.com"
GPU_TYPE, MIG_TYPE = "gpu", "mig"
GPU_CLASS, MIG_CLASS = "gpu.nvidia.com", "mig.nvidia.com"
DEVICE_CLASSES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        GPU_CLASS: (f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == '{GPU_TYPE}'",),
        MIG_CLASS: (f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == '{MIG_TYPE}'",),
    }
)


def mig_profile_selector(profile: str) -> str:
    """The CEL selector of a request for one MIG profile (the `profile` attribute of a MIG device)."""
    return f"device.attributes['{DRIVER}'].profile == '{profile}'"
