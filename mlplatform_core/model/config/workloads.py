"""Settings of the workload layer: priority classes, workload namespaces, default job resources, MLRun defaults."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ..quantity import QuantityError, parse_quantity
from ..scheduling import dns_label_error, dns_subdomain_error, qualified_name_error
from .base import Count, QuotaAmount, SettingsModel, check_labels
from .errors import show

MAX_USER_PRIORITY = 1_000_000_000
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
PREEMPTION_MODES = ("prevent", "allow", "constrain", "none")  # MLRun's, seed 002
WORKLOAD_TIERS = ("low", "medium", "high")
SYSTEM_TIERS = ("medium", "high", "critical")
# ResourceQuota keys accepted as they are; extended resources go as requests.<name>, objects as count/<kind>.
QUOTA_KEYS = frozenset(
    {
        "cpu",
        "memory",
        "requests.cpu",
        "requests.memory",
        "limits.cpu",
        "limits.memory",
        "requests.storage",
        "ephemeral-storage",
        "requests.ephemeral-storage",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "services.loadbalancers",
        "services.nodeports",
        "persistentvolumeclaims",
        "configmaps",
        "secrets",
        "replicationcontrollers",
        "resourcequotas",
    }
)


def _non_negative(value: Any, what: str) -> Fraction:
    """A Kubernetes quantity as a number, as a validator error when it is malformed or negative."""
    try:
        q = parse_quantity(value)
    except QuantityError as exc:
        raise ValueError(str(exc)) from None
    if q < 0:
        raise ValueError(f"{show(value)} is negative; {what} must be >= 0")
    return q


def _cpu_quantity(value: Any) -> str:
    """A cpu quantity as Kubernetes text; rejects what Kubernetes would refuse or silently round."""
    q = _non_negative(value, "cpu")
    if (q * 1000).denominator != 1:
        raise ValueError(f"{show(value)} is finer than 1m (a thousandth of a cpu); Kubernetes cannot apply it")
    return value if isinstance(value, str) else str(value)


def _memory_quantity(value: Any) -> str:
    q = _non_negative(value, "memory")
    if q.denominator != 1:
        hint = f"; did you mean {str(value)[:-1]}Mi?" if isinstance(value, str) and value.endswith("m") else ""
        raise ValueError(f"{show(value)} is not a whole number of bytes ('m' means thousandths){hint}")
    return value if isinstance(value, str) else str(value)


def _count_quantity(value: Any) -> str:
    q = _non_negative(value, "a count")
    if q.denominator != 1:
        raise ValueError(f"{show(value)} is not a whole number >= 0")
    return value if isinstance(value, str) else str(value)


def quota_value_error(key: str, value: Any) -> str | None:
    """Why `key: value` is not a valid ResourceQuota hard limit, or None."""
    if not isinstance(key, str):
        return "quota keys must be strings such as requests.cpu"
    if key.startswith("limits.") and key not in QUOTA_KEYS:
        return (
            f"{show(key)}: extended resources such as GPUs cannot be overcommitted, so Kubernetes quotas them "
            "only as requests.<name> (e.g. requests.nvidia.com/gpu)"
        )
    extended = key.startswith("requests.") and "/" in key and qualified_name_error(key[len("requests.") :]) is None
    counted = key.startswith("count/") and len(key) > len("count/")
    storage_class = ".storageclass.storage.k8s.io/" in key
    if key not in QUOTA_KEYS and not (extended or counted or storage_class):
        return (
            f"{show(key)} is not a ResourceQuota resource; use e.g. requests.cpu, limits.memory, pods, "
            "requests.nvidia.com/gpu or count/<resource>"
        )
    try:
        if key in ("cpu", "requests.cpu", "limits.cpu"):
            _cpu_quantity(value)
        elif key in ("memory", "requests.memory", "limits.memory") or "storage" in key:
            _memory_quantity(value)
        else:
            _count_quantity(value)
    except ValueError as exc:
        return f"{key}: {exc}"
    return None


class PriorityClassSettings(SettingsModel):
    """One PriorityClass; unset fields keep the toolkit's defaults for its tier."""

    name: str | None = None
    value: Count | None = Field(default=None, ge=-(2**31), le=MAX_USER_PRIORITY)
    preemption_policy: Literal[PREEMPTION_POLICIES] | None = None  # type: ignore[valid-type]
    description: str | None = Field(default=None, max_length=500)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if err := dns_subdomain_error(v):
            raise ValueError(f"priority class name {show(v)} {err}")
        if v.startswith("system-"):
            raise ValueError(f"priority class name {show(v)}: the system- prefix is reserved by Kubernetes")
        return v


class WorkloadPriorityClasses(SettingsModel):
    low: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    medium: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    high: PriorityClassSettings = Field(default_factory=PriorityClassSettings)


class SystemPriorityClasses(SettingsModel):
    """Platform classes (igz-system-*) for core services; off unless the platform installer does not make them."""

    enabled: bool = False
    medium: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    high: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    critical: PriorityClassSettings = Field(default_factory=PriorityClassSettings)


class ResourceAmounts(SettingsModel):
    """cpu and memory of one LimitRange field. No GPU: a GPU request must equal its limit, so no default fits."""

    cpu: str | None = None
    memory: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_gpu(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if isinstance(key, str) and "gpu" in key.lower():
                    raise ValueError(
                        f"{show(key)}: no GPU defaults; a GPU request must equal its limit, so jobs "
                        "ask for GPUs explicitly (MLRun: fn.gpus(n))"
                    )
        return data

    @field_validator("cpu", mode="before")
    @classmethod
    def _cpu(cls, v: Any) -> str | None:
        return None if v is None else _cpu_quantity(v)

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, v: Any) -> str | None:
        return None if v is None else _memory_quantity(v)


class LimitRangeSettings(SettingsModel):
    """Per-container defaults and bounds of a workload namespace (a LimitRange of type Container)."""

    min: ResourceAmounts | None = None
    default_request: ResourceAmounts | None = None
    default: ResourceAmounts | None = None
    max: ResourceAmounts | None = None


class NamespaceSettings(SettingsModel):
    enabled: bool | None = None
    labels: dict[str, str] = Field(default_factory=dict, max_length=20)
    limits: LimitRangeSettings = Field(default_factory=LimitRangeSettings)
    quota: dict[str, QuotaAmount] | None = Field(default=None, max_length=40)

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        return check_labels(v)

    @field_validator("quota")
    @classmethod
    def _quota(cls, v: dict[str, Any] | None) -> dict[str, str] | None:
        if v is None:
            return v
        for key, value in v.items():
            if err := quota_value_error(key, value):
                raise ValueError(err)
        return {k: (val if isinstance(val, str) else str(val)) for k, val in v.items()}


class WorkloadsConfig(SettingsModel):
    """The workload layer: priority classes, workload namespaces with default job resources, MLRun defaults."""

    priority_classes: WorkloadPriorityClasses = Field(default_factory=WorkloadPriorityClasses)
    system_priority_classes: SystemPriorityClasses = Field(default_factory=SystemPriorityClasses)
    # The one class pods without priorityClassName get, cluster-wide: a tier (low/medium/high) or a class name.
    global_default: str | None = None
    default_priority: Literal[WORKLOAD_TIERS] = "medium"  # type: ignore[valid-type]
    preemption_mode: Literal[PREEMPTION_MODES] = "prevent"  # type: ignore[valid-type]
    mlrun_namespace: str = "mlrun"
    namespaces: dict[str, NamespaceSettings] = Field(default_factory=dict, max_length=50)

    @field_validator("mlrun_namespace")
    @classmethod
    def _mlrun_ns(cls, v: str) -> str:
        if err := dns_label_error(v):
            raise ValueError(f"namespace {show(v)} {err}")
        return v

    @field_validator("namespaces")
    @classmethod
    def _namespaces(cls, v: dict[str, NamespaceSettings]) -> dict[str, NamespaceSettings]:
        for name in v:
            if err := dns_label_error(name):
                raise ValueError(f"namespace name {show(name)} {err}")
            if name.startswith("kube-") or name == "default":
                raise ValueError(
                    f"namespace {show(name)} belongs to Kubernetes; workload defaults go in namespaces of their own"
                )
        return v
