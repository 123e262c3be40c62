"""The stack configuration model and `parse`: from a stack's `config:` mapping to a validated StackConfig.

Pure Python (pydantic, no Pulumi import). Every setting lives under the project
namespace (`ml-platform-eks:<key>`), except the region, read from `aws:region`.
Invalid input becomes a ConfigError that names the key path, the bad value and
what would be valid; the layout adds the checks that need defaults merged in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from .. import eks_versions, regions, scheduler
from ..scheduling import DEFAULT_SPOT_TAINT
from . import cluster_name
from .access import AccessSettings, access_problems
from .automode import AutoModeSettings, auto_mode_region_problems, storage_key_problems
from .base import Count, SettingsModel
from .errors import PROJECT, REGION_KEY, ConfigError, Problem, escaped, key_path, show
from .images import image_registry_problems, registry_error
from .karpenter_settings import AUTO_MODE, NODE_GROUPS, PROVISIONERS, KarpenterSettings
from .kubernetes_layer import KUBERNETES_LAYERS, effective_layer, kubernetes_layer_problems
from .messages import ambiguity_note, type_message, unknown_key_message
from .namespaces import namespace_error, region_hint
from .network import EndpointConfig, NetworkConfig
from .node_groups import AdditionalNodeGroup, NodeGroupSettings, TaintSettings
from .pulumi_format import from_pulumi_text
from .quotas import QuotaSettings
from .scheduler import SchedulerSettings
from .teams import MAX_TEAMS, TeamSettings, check_team_names
from .upgrade_policy import UpgradePolicy, effective_support_type, upgrade_policy_problems
from .workloads import WorkloadsConfig

DEFAULT_KUBERNETES_VERSION = "1.35"


class StackConfig(SettingsModel):
    environment: Literal["dev", "prod"]
    region: str
    cluster_name: str | None = None
    # A deliberate pin, moved one minor at a time (EKS upgrades go one minor at a time): in standard support.
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    # What EKS does when that minor leaves standard support (upgrade_policy.py): STANDARD by default in dev,
    # a deliberate choice in prod.
    upgrade_policy: UpgradePolicy = Field(default_factory=UpgradePolicy)
    endpoint: EndpointConfig = Field(default_factory=EndpointConfig)
    # Deploy the Kubernetes layer with the cluster (inline) or from kubernetes-layer/ (separate); see kubernetes_layer.
    kubernetes_layer: Literal[KUBERNETES_LAYERS] | None = None  # type: ignore[valid-type]
    access: AccessSettings = Field(default_factory=AccessSettings)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    imds_hop_limit: Count = Field(default=1, ge=1, le=2)
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
    # Managed node groups + Cluster Autoscaler, or NodePools for every group but the initial one: Karpenter's
    # (you run the controller) or EKS Auto Mode's (AWS runs it).
    provisioner: Literal[PROVISIONERS] = NODE_GROUPS  # type: ignore[valid-type]
    karpenter: KarpenterSettings = Field(default_factory=KarpenterSettings)
    auto_mode: AutoModeSettings = Field(default_factory=AutoModeSettings)
    # A mirror registry the add-ons' images are pulled from instead of their upstream registries (China).
    image_registry: str | None = None

    @field_validator("image_registry", mode="before")
    @classmethod
    def _registry(cls, v: Any) -> Any:
        if v is not None and (err := registry_error(v)):
            raise ValueError(err)
        return v

    # Node health: EKS node auto repair on managed node groups and the node monitoring agent add-on (Karpenter:
    # its NodeRepair feature gate). On unless a stack opts out.
    node_repair: bool = True
    # NVIDIA DCGM exporter (GPU metrics for Prometheus) on every GPU group.
    gpu_metrics: bool = False
    # EKS Pod Identity instead of IRSA for the add-ons' AWS roles. Unset keeps IRSA, so existing clusters do not flip.
    pod_identity: bool = False
    quotas: QuotaSettings = Field(default_factory=QuotaSettings)
    # The scheduler's NodeResourcesFit scoring (model/scheduler.py); refused while the cluster cannot take it.
    scheduler: SchedulerSettings | None = None
    # Teams sharing the cluster through Kueue (config/teams.py); empty: no Kueue, nothing else changes.
    teams: dict[str, TeamSettings] = Field(default_factory=dict, max_length=MAX_TEAMS)

    @field_validator("scheduler")
    @classmethod
    def _scheduler(cls, v: SchedulerSettings | None) -> SchedulerSettings | None:
        if v is not None and (why := scheduler.refusal()):
            raise ValueError(why)
        return v

    @field_validator("teams")
    @classmethod
    def _teams(cls, v: dict[str, TeamSettings]) -> dict[str, TeamSettings]:
        return check_team_names(v)

    @field_validator("region", mode="before")
    @classmethod
    def _region(cls, v: Any) -> Any:
        if not isinstance(v, str):
            raise ValueError(f"{show(v)} is not an AWS region name such as us-west-2 or eu-central-1")
        if problem := regions.region_problem(v):
            raise ValueError(problem)
        return v

    @field_validator("cluster_name")
    @classmethod
    def _cluster_name(cls, v: str | None) -> str | None:
        if v is not None and (err := cluster_name.name_error(v)):
            raise ValueError(err)
        return v

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _version(cls, v: Any) -> Any:
        if not isinstance(v, str):
            raise ValueError(f'{show(v)} must be a quoted string such as "1.35" (YAML reads 1.30 as the number 1.3)')
        if err := eks_versions.version_error(v, eks_versions.today()):
            raise ValueError(err)
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
            raise ValueError(
                "spotTaint effect PreferNoSchedule would not keep prevent-mode jobs off spot nodes; "
                "use NoSchedule or NoExecute"
            )
        return v

    def cluster_name_for(self, stack: str) -> str:
        """The EKS cluster's name: stable, because IAM conditions, ASG tags and kubeconfigs refer to it. Never
        shortened: a derived name EKS refuses is a problem of the layout (cluster_name.derived_name_error)."""
        return self.cluster_name or cluster_name.derived_name(stack)

    @property
    def support_type(self) -> str:
        """The EKS upgrade policy's support type the cluster is created with (upgrade_policy.py)."""
        return effective_support_type(self.upgrade_policy, self.environment)

    @property
    def protected(self) -> bool:
        return self.protect_resources if self.protect_resources is not None else self.environment == "prod"


def _installs_charts(cfg: StackConfig) -> bool:
    """Whether the stack may install the mirrored charts (autoscaler, Karpenter, device plugin): every stack but an
    Auto Mode one that keeps neither Karpenter nor managed node groups (Auto Mode runs their work itself)."""
    return cfg.provisioner != AUTO_MODE or cfg.auto_mode.keep_karpenter or cfg.auto_mode.keep_node_groups


# Checks across settings, each with the settings it reads (stack-file keys): access principals against the
# region's partition, the Kubernetes layer against the endpoint and the network.
_CROSS_CHECKS: tuple[tuple[frozenset[str], Callable[[StackConfig], list[Problem]]], ...] = (
    (frozenset({"access", "region"}), lambda cfg: access_problems(cfg.access, cfg.region)),
    (
        frozenset({"kubernetesLayer", "endpoint", "network"}),
        lambda cfg: kubernetes_layer_problems(cfg.kubernetes_layer, cfg.endpoint, cfg.network),
    ),
    (
        frozenset({"imageRegistry", "region", "provisioner", "autoMode"}),
        lambda cfg: image_registry_problems(cfg.image_registry, cfg.region, _installs_charts(cfg)),
    ),
    (
        frozenset({"autoMode", "region"}),
        lambda cfg: storage_key_problems(cfg.auto_mode.ephemeral_storage_kms_key, cfg.region),
    ),
    (
        frozenset({"provisioner", "region"}),
        lambda cfg: auto_mode_region_problems(cfg.provisioner, cfg.region),
    ),
    (
        frozenset({"upgradePolicy", "environment"}),
        lambda cfg: upgrade_policy_problems(cfg.upgrade_policy, cfg.environment),
    ),
)


def cross_setting_problems(cfg: StackConfig, set_aside: Collection[str] = ()) -> list[Problem]:
    """Checks across settings, once each setting is valid on its own. A check that reads a setting in
    `set_aside` (invalid, and left out to check the rest) is skipped: it would judge a default in its place."""
    return [p for reads, check in _CROSS_CHECKS if not reads & set(set_aside) for p in check(cfg)]


def kubernetes_layer_of(cfg: StackConfig) -> str:
    """`inline` (the cluster program deploys the Kubernetes layer) or `separate` (kubernetes-layer/ does)."""
    return effective_layer(cfg.kubernetes_layer, cfg.endpoint)


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
        cls = next(
            (a for a in getattr(ann, "__args__", (ann,)) if isinstance(a, type) and issubclass(a, BaseModel)), None
        )
        if cls is None:
            args = [a for a in getattr(ann, "__args__", ()) for a in getattr(a, "__args__", (a,))]
            cls = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
    if cls is None:
        return "unknown setting"
    valid = sorted(f.alias or n for n, f in cls.model_fields.items())
    return unknown_key_message(loc[-1], valid)


def _problems(exc: ValidationError, raw: Mapping[str, Any]) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            msg = _unknown_key_hint(loc, StackConfig)
        elif typed := type_message(err):
            msg = typed
        else:
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "value_error" and "is ambiguous" not in msg:
                msg += ambiguity_note(err.get("input"))
            elif err["type"] != "missing":
                msg = f"{msg} (got {show(err['input'])})"
        if err["type"] == "missing" and loc == ("region",):
            msg = region_hint(raw) or "missing; set aws:region (e.g. us-west-2)"
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


def _scalar_kind(annotation: Any) -> type | None:
    """bool or int when a top-level setting is one of those (optional or not), else None."""
    kinds = {a for a in getattr(annotation, "__args__", (annotation,)) if a is not type(None)}
    return next(iter(kinds)) if len(kinds) == 1 and kinds <= {bool, int} else None


# Top-level settings the Pulumi engine hands over as text although they are booleans or numbers.
_TOP_LEVEL_KINDS = {
    (f.alias or n): kind for n, f in StackConfig.model_fields.items() if (kind := _scalar_kind(f.annotation))
}


_SETTING_NAMES = frozenset(f.alias or n for n, f in StackConfig.model_fields.items())


def split_keys(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The project's settings (namespace removed, JSON text decoded, top-level booleans and numbers read from
    the text Pulumi writes for them: pulumi_format.py) and the problems of the keys themselves: keys without
    a namespace, and namespaces that are neither this project's nor a provider's (namespaces.py)."""
    data: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in raw.items():
        if not isinstance(key, str):
            problems.append(Problem(show(key), "config keys must be strings such as ml-platform-eks:environment"))
        elif value is None and (key == REGION_KEY or key.startswith(PROJECT + ":")):
            # The engine would hand the program the text "None"; the model would read "not set". Say which.
            problems.append(Problem(key, "has no value (YAML null); give it one, or remove the key for the default"))
        elif key == REGION_KEY:
            data["region"] = _decode(value)
        elif key.startswith(PROJECT + ":"):
            name = key[len(PROJECT) + 1 :]
            data[name] = from_pulumi_text(_decode(value), _TOP_LEVEL_KINDS.get(name))
        elif ":" not in key:
            problems.append(
                Problem(escaped(key), f"config keys need a namespace; did you mean {PROJECT}:{escaped(key)}?")
            )
        elif err := namespace_error(key, _SETTING_NAMES):
            problems.append(Problem(escaped(key), err))
        # Other namespaces (aws:profile, kubernetes:..., pulumi:tags) belong to their providers.
    return data, problems


def model_problems(exc: ValidationError, raw: Mapping[str, Any]) -> list[Problem]:
    """The model's validation errors as problems with key paths."""
    return _problems(exc, raw)


def parse(raw: Mapping[str, Any], source: str | None = None) -> StackConfig:
    """Build the model from a stack's `config:` mapping (namespaced keys). Raises ConfigError with every problem
    of the keys and the settings at once."""
    if not isinstance(raw, Mapping):
        raise ConfigError([Problem("config", f"must be a mapping of settings (got {show(raw)})")], source)
    data, problems = split_keys(raw)
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(problems + _problems(exc, raw), source) from None
    if problems:
        raise ConfigError(problems, source)
    # Checks across settings, once each setting is valid on its own.
    if problems := cross_setting_problems(cfg):
        raise ConfigError(problems, source)
    return cfg
