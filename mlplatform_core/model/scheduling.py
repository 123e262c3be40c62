"""Kubernetes scheduling vocabulary shared by the layout, the placement check and the policies.

Plain data, no Pulumi import: labels the toolkit puts on nodes, taints and
tolerations with Kubernetes semantics, and the syntax rules Kubernetes applies
to label keys, label values and taint effects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# MLRun and Iguazio recognise spot nodes by this label (seeds 000-003).
LIFECYCLE_LABEL = "app.iguazio.com/lifecycle"
PREEMPTIBLE = "preemptible"
NON_PREEMPTIBLE = "non-preemptible"

ROLE_LABEL = "mlplatform.io/node-role"
# The toolkit's name of the node group; selects one group among several that share a role.
GROUP_LABEL = "mlplatform.io/node-group"
ENVIRONMENT_LABEL = "mlplatform.io/environment"

CPU, MEMORY = "cpu", "memory"
GPU_RESOURCE = "nvidia.com/gpu"
# The NVIDIA device plugin's default node affinity looks for this label.
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
# The Cluster Autoscaler's AWS provider knows a node's GPUs are still coming up by this label
# (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go GPULabel @ 55c37cd5).
ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
# Set on the GPU groups whose AMI needs the NVIDIA device plugin DaemonSet (AL2023 NVIDIA, not Bottlerocket).
DEVICE_PLUGIN_LABEL = "mlplatform.io/nvidia-device-plugin"
# Set on groups with EFA interfaces (efa: true): the EFA device plugin DaemonSet selects it.
EFA_LABEL = "mlplatform.io/efa"

# Labels EKS and the kubelet put on every node; users must not set them.
EKS_CAPACITY_LABEL = "eks.amazonaws.com/capacityType"
EKS_NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup"

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_EKS_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}
_K8S_EFFECTS = {v: k for k, v in _EKS_EFFECTS.items()}
MAX_TAINTS = 50  # EKS limit per managed node group


@dataclass(frozen=True, order=True)
class Taint:
    key: str
    value: str
    effect: str  # Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute

    @property
    def eks_effect(self) -> str:
        return _EKS_EFFECTS[self.effect]

    @property
    def repels(self) -> bool:
        """Whether the scheduler refuses pods that do not tolerate it (PreferNoSchedule only scores; an effect
        Kubernetes does not know, as a policy may read from a hand-written program, keeps nobody off)."""
        return self.effect in ("NoSchedule", "NoExecute")

    def to_dict(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value, "effect": self.effect}

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    @classmethod
    def from_eks(cls, key: str, value: str | None, effect: str) -> Taint:
        return cls(key, value or "", _K8S_EFFECTS.get(effect, effect))


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"  # Equal or Exists
    value: str = ""
    effect: str = ""  # empty tolerates every effect

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes' ToleratesTaint: effect empty or equal, key empty (Exists) or equal, value by operator."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if not self.key:  # an empty key is only valid with Exists
            return False
        return self.operator in ("Equal", "") and self.value == taint.value

    def to_dict(self) -> dict[str, str]:
        out = {"key": self.key} if self.key else {}
        out["operator"] = self.operator
        if self.operator != "Exists":
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        return out

    @classmethod
    def for_taint(cls, taint: Taint) -> Toleration:
        return cls(taint.key, "Equal", taint.value, taint.effect)

    @classmethod
    def from_dict(cls, d: dict) -> Toleration:
        return cls(
            key=d.get("key") or "",
            operator=d.get("operator") or "Equal",
            value=d.get("value") or "",
            effect=d.get("effect") or "",
        )


CRITICAL_ADDONS_TAINT = Taint("CriticalAddonsOnly", "true", "NoSchedule")
GPU_TAINT = Taint(GPU_RESOURCE, "true", "NoSchedule")
DEFAULT_SPOT_TAINT = Taint(LIFECYCLE_LABEL, PREEMPTIBLE, "NoSchedule")


# --- Kubernetes syntax rules (apimachinery validation) ---------------------------------------

_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def qualified_name_error(key: str) -> str | None:
    """Why Kubernetes would refuse `key` as a label or taint key, or None when it is valid."""
    if not isinstance(key, str) or not key:
        return "must be a non-empty string"
    prefix, _, name = key.rpartition("/")
    if "/" in key and not prefix:
        return "has an empty prefix before '/'"
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return "prefix must be a lowercase DNS subdomain of at most 253 characters (e.g. example.com)"
    if len(name) > 63 or not _NAME.match(name):
        return (
            "name part must be 1-63 characters of alphanumerics, '-', '_' or '.', "
            "starting and ending with an alphanumeric (e.g. my-label or example.com/my-label)"
        )
    return None


def label_value_error(value: str) -> str | None:
    """Why Kubernetes would refuse `value` as a label or taint value, or None when it is valid."""
    if not isinstance(value, str):
        return "must be a string"
    if value == "":
        return None
    if len(value) > 63 or not _NAME.match(value):
        return (
            "must be at most 63 characters of alphanumerics, '-', '_' or '.', "
            "starting and ending with an alphanumeric (or empty)"
        )
    return None


def dns_label_error(name: str) -> str | None:
    """Why `name` is not an RFC 1123 label (namespace names and the like), or None."""
    if not isinstance(name, str) or len(name) > 63 or not _DNS_LABEL.match(name):
        return "must be at most 63 lowercase alphanumerics or '-', starting and ending with an alphanumeric"
    return None


def dns_subdomain_error(name: str) -> str | None:
    """Why `name` is not an RFC 1123 subdomain (object names such as PriorityClass), or None."""
    if not isinstance(name, str) or len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        return "must be a lowercase RFC 1123 subdomain of at most 253 characters (e.g. igz-workload-medium)"
    return None
