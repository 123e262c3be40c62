"""The stack configuration model: what a platform team may set in stacks/Pulumi.<stack>.yaml.

Pure Python (pydantic, no Pulumi import). Every setting lives under the project
namespace (`ml-platform-eks:<key>`), except the region, read from `aws:region`.
Invalid input becomes a ConfigError that names the key path, the bad value and
what would be valid; the layout adds the checks that need defaults merged in.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, Mapping

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from .instances import INSTANCE_TYPE_PATTERN
from .quantity import QuantityError, parse_quantity
from .scheduling import (
    DEFAULT_SPOT_TAINT,
    EFFECTS,
    MAX_TAINTS,
    dns_label_error,
    dns_subdomain_error,
    label_value_error,
    qualified_name_error,
)

PROJECT = "ml-platform-eks"
REGION_KEY = "aws:region"
GPU_AMI_TYPES = ("AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA")
STANDARD_AMI_TYPES = ("AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD", "BOTTLEROCKET_x86_64", "BOTTLEROCKET_ARM_64")
SUPPORTED_KUBERNETES_VERSIONS = ("1.29", "1.30", "1.31", "1.32", "1.33", "1.34")
MAX_CONFIG_BYTES = 1_000_000  # a stack file larger than this is a mistake, not a configuration


# --- errors -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    path: str  # full key path, e.g. ml-platform-eks:nodeGroups.jupyter.minSize
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ConfigError(ValueError):
    """Invalid stack configuration. Raised before any resource is registered."""

    def __init__(self, problems: list[Problem], source: str | None = None):
        self.problems = problems
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" in {self.source}" if self.source else ""
        shown = self.problems[:20]
        lines = [f"invalid stack configuration{where}:"] + [f"  - {p}" for p in shown]
        if len(self.problems) > len(shown):
            lines.append(f"  ... and {len(self.problems) - len(shown)} more")
        return "\n".join(lines)


def show(value: Any) -> str:
    """A short, safe rendering of a user value for error messages."""
    text = json.dumps(value, default=str, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def key_path(*parts: Any) -> str:
    """`ml-platform-eks:nodeGroups.jupyter.minSize` from ("nodeGroups", "jupyter", "minSize")."""
    if parts and parts[0] == "region":
        return REGION_KEY
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return f"{PROJECT}:{out}"


# --- model --------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True, str_strip_whitespace=False
    )


def _check_labels(labels: dict[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        if err := qualified_name_error(key):
            raise ValueError(f"label key {show(key)} {err}")
        if err := label_value_error(value):
            raise ValueError(f"label {key}={show(value)}: value {err}")
    return labels


class TaintSettings(_Model):
    key: str
    value: str = ""
    effect: str = "NoSchedule"

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if err := qualified_name_error(v):
            raise ValueError(f"taint key {show(v)} {err}")
        return v

    @field_validator("value")
    @classmethod
    def _value(cls, v: str) -> str:
        if err := label_value_error(v):
            raise ValueError(f"taint value {show(v)} {err}")
        return v

    @field_validator("effect")
    @classmethod
    def _effect(cls, v: str) -> str:
        if v not in EFFECTS:
            raise ValueError(f"taint effect {show(v)} is not one of {', '.join(EFFECTS)} (Kubernetes spelling)")
        return v


class NodeGroupSettings(_Model):
    """Overrides of one node group's layout defaults. Unset fields keep the defaults."""

    enabled: bool | None = None
    instance_types: list[str] | None = Field(default=None, min_length=1, max_length=20)
    capacity_type: Literal["ON_DEMAND", "SPOT"] | None = None
    ami_type: Literal[GPU_AMI_TYPES + STANDARD_AMI_TYPES] | None = None  # type: ignore[valid-type]
    min_size: int | None = Field(default=None, ge=0, le=1000)
    max_size: int | None = Field(default=None, ge=1, le=1000)
    desired_size: int | None = Field(default=None, ge=0, le=1000)
    disk_size_gib: int | None = Field(default=None, ge=20, le=16384)
    max_unavailable: int | None = Field(default=None, ge=1, le=100)
    # Taint the group with its role so that only pods that ask for it (toleration + selector) land there.
    dedicated: bool | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[TaintSettings] = Field(default_factory=list, max_length=MAX_TAINTS)

    @field_validator("instance_types")
    @classmethod
    def _types(cls, v: list[str] | None) -> list[str] | None:
        for t in v or []:
            if not isinstance(t, str) or not INSTANCE_TYPE_PATTERN.match(t):
                raise ValueError(f"instance type {show(t)} is not an EC2 instance type name (e.g. m5.2xlarge)")
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"instance types {show(v)} list a type twice")
        return v

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        return _check_labels(v)


class AdditionalNodeGroup(NodeGroupSettings):
    """A group beyond the built-in layout, e.g. a second GPU or a memory-optimised group."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,37}[a-z0-9]$")
    role: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)
    gpu: bool = False


class EndpointConfig(_Model):
    private_access: bool = True
    public_access: bool = False
    public_access_cidrs: list[str] = Field(default_factory=list, max_length=40)

    @field_validator("public_access_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        for cidr in v:
            try:
                ipaddress.IPv4Network(cidr, strict=True)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{show(cidr)} is not an IPv4 CIDR block such as 203.0.113.0/24 ({exc})") from None
        return v

    @model_validator(mode="after")
    def _some_access(self) -> "EndpointConfig":
        if not (self.private_access or self.public_access):
            raise ValueError("privateAccess and publicAccess are both false; enable at least one")
        if self.public_access and not self.public_access_cidrs:
            raise ValueError(
                "publicAccess is true but publicAccessCidrs is empty; list the CIDR blocks allowed to reach the API "
                "(EKS would otherwise open it to 0.0.0.0/0)"
            )
        if self.public_access_cidrs and not self.public_access:
            raise ValueError("publicAccessCidrs is set but publicAccess is false; set publicAccess: true or drop it")
        return self


class NetworkConfig(_Model):
    """Either an existing VPC (vpcId + privateSubnetIds) or a new one (vpcCidr, availabilityZoneCount)."""

    vpc_id: str | None = Field(default=None, pattern=r"^vpc-[0-9a-f]{8,17}$")
    private_subnet_ids: list[str] | None = Field(default=None, min_length=2, max_length=16)
    vpc_cidr: str | None = None
    availability_zone_count: int | None = Field(default=None, ge=2, le=6)
    nat_gateways: Literal["single", "perAz"] | None = None

    @field_validator("private_subnet_ids")
    @classmethod
    def _subnets(cls, v: list[str] | None) -> list[str] | None:
        for s in v or []:
            if not isinstance(s, str) or not re.match(r"^subnet-[0-9a-f]{8,17}$", s):
                raise ValueError(f"{show(s)} is not a subnet id such as subnet-0abc1234def567890")
        if v is not None and len(set(v)) != len(v):
            raise ValueError("privateSubnetIds lists a subnet twice; give at least 2 distinct subnets in 2 AZs")
        return v

    @field_validator("vpc_cidr")
    @classmethod
    def _cidr(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            net = ipaddress.IPv4Network(v, strict=True)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{show(v)} is not an IPv4 CIDR block such as 10.0.0.0/16 ({exc})") from None
        if not 16 <= net.prefixlen <= 20:
            raise ValueError(f"{v} has prefix /{net.prefixlen}; use /16 to /20 so every AZ gets room for pods")
        return v

    @model_validator(mode="after")
    def _one_source(self) -> "NetworkConfig":
        existing = self.vpc_id is not None or self.private_subnet_ids is not None
        created = any(x is not None for x in (self.vpc_cidr, self.availability_zone_count, self.nat_gateways))
        if existing and created:
            raise ValueError(
                "give either vpcId + privateSubnetIds (existing VPC) or vpcCidr/availabilityZoneCount/natGateways "
                "(new VPC), not both"
            )
        if existing and (self.vpc_id is None or self.private_subnet_ids is None):
            raise ValueError("an existing VPC needs both vpcId and privateSubnetIds (at least 2 subnets in 2 AZs)")
        return self

    @property
    def creates_vpc(self) -> bool:
        return self.vpc_id is None


# --- workloads (priority classes, namespaces, default job resources) -----------------------------

# Kubernetes reserves values above this for system classes (system-cluster-critical is 2e9).
MAX_USER_PRIORITY = 1_000_000_000
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
PREEMPTION_MODES = ("prevent", "allow", "constrain", "none")  # MLRun's, seed 002
WORKLOAD_TIERS = ("low", "medium", "high")
SYSTEM_TIERS = ("medium", "high", "critical")
# ResourceQuota keys accepted as they are; extended resources go as requests.<name>, objects as count/<kind>.
QUOTA_KEYS = frozenset({
    "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory",
    "requests.storage", "ephemeral-storage", "requests.ephemeral-storage", "limits.ephemeral-storage",
    "pods", "services", "services.loadbalancers", "services.nodeports", "persistentvolumeclaims",
    "configmaps", "secrets", "replicationcontrollers", "resourcequotas",
})


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
        return (f"{show(key)}: extended resources such as GPUs cannot be overcommitted, so Kubernetes quotas them "
                "only as requests.<name> (e.g. requests.nvidia.com/gpu)")
    extended = key.startswith("requests.") and "/" in key and qualified_name_error(key[len("requests."):]) is None
    counted = key.startswith("count/") and len(key) > len("count/")
    storage_class = ".storageclass.storage.k8s.io/" in key
    if key not in QUOTA_KEYS and not (extended or counted or storage_class):
        return (f"{show(key)} is not a ResourceQuota resource; use e.g. requests.cpu, limits.memory, pods, "
                "requests.nvidia.com/gpu or count/<resource>")
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


class PriorityClassSettings(_Model):
    """One PriorityClass; unset fields keep the toolkit's defaults for its tier."""

    name: str | None = None
    value: int | None = Field(default=None, ge=-(2**31), le=MAX_USER_PRIORITY)
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


class WorkloadPriorityClasses(_Model):
    low: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    medium: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    high: PriorityClassSettings = Field(default_factory=PriorityClassSettings)


class SystemPriorityClasses(_Model):
    """Platform classes (igz-system-*) for core services; off unless the platform installer does not make them."""

    enabled: bool = False
    medium: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    high: PriorityClassSettings = Field(default_factory=PriorityClassSettings)
    critical: PriorityClassSettings = Field(default_factory=PriorityClassSettings)


class ResourceAmounts(_Model):
    """cpu and memory of one LimitRange field. No GPU: a GPU request must equal its limit, so no default fits."""

    cpu: str | None = None
    memory: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_gpu(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if isinstance(key, str) and "gpu" in key.lower():
                    raise ValueError(f"{show(key)}: no GPU defaults; a GPU request must equal its limit, so jobs "
                                     "ask for GPUs explicitly (MLRun: fn.gpus(n))")
        return data

    @field_validator("cpu", mode="before")
    @classmethod
    def _cpu(cls, v: Any) -> str | None:
        return None if v is None else _cpu_quantity(v)

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, v: Any) -> str | None:
        return None if v is None else _memory_quantity(v)


class LimitRangeSettings(_Model):
    """Per-container defaults and bounds of a workload namespace (a LimitRange of type Container)."""

    min: ResourceAmounts | None = None
    default_request: ResourceAmounts | None = None
    default: ResourceAmounts | None = None
    max: ResourceAmounts | None = None


class NamespaceSettings(_Model):
    enabled: bool | None = None
    labels: dict[str, str] = Field(default_factory=dict, max_length=20)
    limits: LimitRangeSettings = Field(default_factory=LimitRangeSettings)
    quota: dict[str, str | int | float] | None = Field(default=None, max_length=40)

    @field_validator("labels")
    @classmethod
    def _labels(cls, v: dict[str, str]) -> dict[str, str]:
        return _check_labels(v)

    @field_validator("quota")
    @classmethod
    def _quota(cls, v: dict[str, Any] | None) -> dict[str, str] | None:
        if v is None:
            return v
        for key, value in v.items():
            if err := quota_value_error(key, value):
                raise ValueError(err)
        return {k: (val if isinstance(val, str) else str(val)) for k, val in v.items()}


class WorkloadsConfig(_Model):
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
                raise ValueError(f"namespace {show(name)} belongs to Kubernetes; workload defaults go in "
                                 "namespaces of their own")
        return v


class StackConfig(_Model):
    environment: Literal["dev", "prod"]
    region: str
    cluster_name: str | None = Field(default=None, pattern=r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$")
    kubernetes_version: str = "1.33"
    endpoint: EndpointConfig = Field(default_factory=EndpointConfig)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    imds_hop_limit: int = Field(default=1, ge=1, le=2)
    spot_taint: TaintSettings = Field(
        default_factory=lambda: TaintSettings(
            key=DEFAULT_SPOT_TAINT.key, value=DEFAULT_SPOT_TAINT.value, effect=DEFAULT_SPOT_TAINT.effect
        )
    )
    node_groups: dict[str, NodeGroupSettings] = Field(default_factory=dict)
    additional_node_groups: list[AdditionalNodeGroup] = Field(default_factory=list, max_length=1000)
    protect_resources: bool | None = None
    tags: dict[str, str] = Field(default_factory=dict, max_length=40)
    workloads: WorkloadsConfig = Field(default_factory=WorkloadsConfig)

    @field_validator("region", mode="before")
    @classmethod
    def _region(cls, v: Any) -> Any:
        if not isinstance(v, str) or not re.match(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$", v):
            raise ValueError(f"{show(v)} is not an AWS region name such as us-west-2 or eu-central-1")
        return v

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _version(cls, v: Any) -> Any:
        if not isinstance(v, str):
            raise ValueError(f"{show(v)} must be a quoted string such as \"1.33\" (YAML reads 1.30 as the number 1.3)")
        if v not in SUPPORTED_KUBERNETES_VERSIONS:
            raise ValueError(f"{show(v)} is not a supported EKS version; use one of "
                             f"{', '.join(SUPPORTED_KUBERNETES_VERSIONS)}")
        return v

    @field_validator("tags")
    @classmethod
    def _aws_tags(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not 1 <= len(key) <= 128 or len(value) > 256:
                raise ValueError(f"tag {show(key)}: AWS tag keys have 1-128 characters and values at most 256")
            if key.lower().startswith("aws:"):
                raise ValueError(f"tag {show(key)}: the aws: prefix is reserved for AWS")
        return v

    @field_validator("spot_taint")
    @classmethod
    def _spot_taint_repels(cls, v: TaintSettings) -> TaintSettings:
        if v.effect == "PreferNoSchedule":
            raise ValueError("spotTaint effect PreferNoSchedule would not keep prevent-mode jobs off spot nodes; "
                             "use NoSchedule or NoExecute")
        return v

    def cluster_name_for(self, stack: str) -> str:
        """The EKS cluster's name: stable, because IAM conditions, ASG tags and kubeconfigs refer to it."""
        return self.cluster_name or f"mlp-{stack}"[:100]

    @property
    def protected(self) -> bool:
        return self.protect_resources if self.protect_resources is not None else self.environment == "prod"


# --- loading ------------------------------------------------------------------------------------


def _unknown_key_hint(loc: tuple, model: type[BaseModel]) -> str:
    """List the valid settings at the location of an unknown key."""
    cls: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or cls is None:
            continue
        field = next((f for n, f in cls.model_fields.items() if (f.alias or n) == part), None)
        if field is None:  # a dict key such as a group name
            continue
        ann = field.annotation
        cls = next((a for a in getattr(ann, "__args__", (ann,)) if isinstance(a, type) and issubclass(a, BaseModel)),
                   None)
        if cls is None:
            args = [a for a in getattr(ann, "__args__", ()) for a in getattr(a, "__args__", (a,))]
            cls = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
    if cls is None:
        return "unknown setting"
    valid = sorted(f.alias or n for n, f in cls.model_fields.items())
    return f"unknown setting; valid settings here: {', '.join(valid)}"


def _problems(exc: ValidationError) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            msg = _unknown_key_hint(loc, StackConfig)
        else:
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] not in ("value_error", "missing"):
                msg = f"{msg} (got {show(err['input'])})"
        if err["type"] == "missing" and loc == ("region",):
            msg = "missing; set aws:region (e.g. us-west-2)"
        elif err["type"] == "missing":
            msg = "missing; this setting is required"
        out.append(Problem(key_path(*loc) if loc else PROJECT, msg))
    return out


def _decode(value: Any) -> Any:
    """Pulumi hands structured config to programs as JSON text; YAML files hold it as objects."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def parse(raw: Mapping[str, Any], source: str | None = None) -> StackConfig:
    """Build the model from a stack's `config:` mapping (namespaced keys). Raises ConfigError."""
    if not isinstance(raw, Mapping):
        raise ConfigError([Problem("config", f"must be a mapping of settings (got {show(raw)})")], source)
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in raw.items():
        if not isinstance(key, str):
            problems.append(Problem(show(key), "config keys must be strings such as ml-platform-eks:environment"))
        elif key == REGION_KEY:
            data["region"] = _decode(value)
        elif key.startswith(PROJECT + ":"):
            data[key[len(PROJECT) + 1:]] = _decode(value)
        elif ":" not in key:
            problems.append(Problem(key, f"config keys need a namespace; did you mean {PROJECT}:{key}?"))
        # Other namespaces (aws:profile, kubernetes:..., pulumi:tags) belong to their providers.
    if problems:
        raise ConfigError(problems, source)
    try:
        return StackConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems(exc), source) from None


MAX_CONFIG_VALUES = 500_000  # values in a stack file once YAML aliases are expanded (a 1 MB file holds far fewer)
MAX_CONFIG_DEPTH = 64  # mappings and lists nested in each other; the deepest setting is under 10
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster, same safe types


def _expanded_values(doc: Any, limit: int) -> str | None:
    """Why the loaded YAML is unusable (a cycle, too deep, more than `limit` values with aliases expanded), or None.

    YAML aliases share one object, so an 'alias bomb' of a few hundred bytes stands for billions of
    values that JSON encoding (the Pulumi engine's config format) would write out. Counts each
    shared object once (memoized) and walks without recursion, so deep nesting cannot overflow.
    """
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack = [doc]
    while stack:
        node = stack[-1]
        key = id(node)
        if not isinstance(node, (dict, list)) or key in sizes:
            stack.pop()
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if key not in open_:
            open_.add(key)
            if len(open_) > MAX_CONFIG_DEPTH:
                return f"is nested more than {MAX_CONFIG_DEPTH} levels deep; stack settings nest a few levels at most"
            for child in children:
                if isinstance(child, (dict, list)):
                    if id(child) in open_:
                        return "refers to itself through a YAML alias (*name inside the &name it points to)"
                    if id(child) not in sizes:
                        stack.append(child)
            continue
        total = 1 + len(node) + sum(sizes[id(c)] - 1 for c in children if isinstance(c, (dict, list)))
        if total > limit:
            return (f"expands to more than {limit:,} values once YAML aliases (*name) are expanded; "
                    "write the settings out or use fewer nested aliases")
        sizes[key] = total
        open_.discard(key)
        stack.pop()
    return None


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi stack file. Raises ConfigError for unreadable or malformed files."""
    p = Path(path)
    src = str(path)
    try:
        size = p.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError([Problem(src, f"is {size:,} bytes; stack files are limited to {MAX_CONFIG_BYTES:,}")])
        with p.open("rb") as f:  # read at most the limit: devices and pipes report size 0
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError([Problem(src, f"cannot read the stack file ({exc.strerror or exc})")]) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError([Problem(src, f"is larger than {MAX_CONFIG_BYTES:,} bytes, the limit for stack files")])
    try:
        doc = yaml.load(data.decode("utf-8"), Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError([Problem(src, f"is not valid YAML: {first}")]) from None
    except RecursionError:
        raise ConfigError([Problem(src, "is nested too deeply to be a stack configuration")]) from None
    if err := _expanded_values(doc, MAX_CONFIG_VALUES):
        raise ConfigError([Problem(src, err)])
    if doc is None:
        raise ConfigError([Problem(src, "is empty; it needs a 'config:' mapping with at least "
                                        f"{PROJECT}:environment and aws:region")])
    if not isinstance(doc, dict):
        raise ConfigError([Problem(src, f"must be a YAML mapping with a 'config:' key (got {type(doc).__name__})")])
    extra = sorted(set(map(str, doc)) - {"config", "encryptionsalt", "secretsprovider", "encryptedkey", "environment"})
    if extra:
        raise ConfigError([Problem(src, f"unknown top-level key(s) {', '.join(extra)}; stack settings go under 'config:'")])
    config = doc.get("config")
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{src}: config", f"must be a mapping of settings (got {show(config)})")])
    return config


def load_stack_file(path: str | Path) -> StackConfig:
    return parse(read_stack_file(path), source=str(path))


def _json_plain(value: Any) -> Any:
    """YAML's extra types (dates, sets, binary, non-string keys) as JSON has them: strings and lists."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(k, default=str): _json_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def to_pulumi_config(raw: Mapping[str, Any]) -> dict[str, str]:
    """Render a stack's config mapping the way the Pulumi engine hands it to a program: strings, JSON for objects."""
    out = {}
    for key, value in raw.items():
        if isinstance(value, (dict, list, set)):
            out[key] = json.dumps(_json_plain(value))
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        else:
            out[key] = str(value)
    return out
