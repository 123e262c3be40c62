"""Day one: `kubernetesSupport`, `deployment` (the programs in order; `deployment.autoMode` on EKS Auto Mode),
`access` (the EKS access entries) and `storage` (the EBS CSI add-on or Auto Mode's block storage)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from .base import Part, SparsePart


class KubernetesSupport(SparsePart):
    """The EKS support phase of the stack's minor today (extended support costs more per hour)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"end_of_standard_support", "end_of_extended_support", "note"})

    minor: str | None = None
    phase: str | None = None  # standard, extended; null when the EKS calendar does not know the minor
    upgrade_policy: dict[str, Any] = Field(default_factory=dict)  # cost/extended_support.py upgrade_policy_view
    end_of_standard_support: str | None = None
    end_of_extended_support: str | None = None
    note: str = ""


class DeploymentProgram(Part):
    """One Pulumi program of the stack: what it deploys, what its machine must reach, and the command."""

    project: str | None = None
    directory: str
    deploys: str = ""
    kubernetes_api: bool = False  # talks to the cluster's API server
    reaches: list[str] = Field(default_factory=list)
    runs_from: str = ""
    identity: str = ""
    command: str = ""
    resources: int = 0


class AutoModeSection(Part):
    """What an EKS Auto Mode cluster enables and what AWS runs in the stack's place (reports/auto_mode.py)."""

    compute: bool = False
    block_storage: bool = False
    load_balancing: bool = False
    built_in_node_pools: list[str] = Field(default_factory=list)
    initial_group: str | None = None
    node_role_arn: str | None = None
    node_role_access_entry: str = ""
    run_by_aws: dict[str, str] = Field(default_factory=dict)
    core_services_on: list[str] = Field(default_factory=list)


class DeploymentSection(SparsePart):
    """The programs the stack runs, in order (`autoMode` on EKS Auto Mode; `clusterStackReference` when the
    Kubernetes layer is a program of its own)."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"auto_mode", "cluster_stack_reference"})

    kubernetes_layer: str | None = None
    endpoint: dict[str, Any] = Field(default_factory=dict)
    order: str = ""
    programs: list[DeploymentProgram] = Field(default_factory=list)
    auto_mode: AutoModeSection | None = None
    cluster_stack_reference: str | None = None


class AccessPolicy(SparsePart):
    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset({"policy_arn"})

    policy: str
    policy_arn: Any = None
    scope: str | None = None
    namespaces: list[str] = Field(default_factory=list)


class AccessEntry(Part):
    """Who may use the cluster: an access entry with its policies, and who manages it."""

    principal: Any = None  # an ARN, or a role this stack creates (its offline placeholder)
    type: str = "STANDARD"
    policies: list[AccessPolicy] = Field(default_factory=list)
    managed_by: str = ""


class StorageSection(SparsePart):
    """The EBS CSI add-on (version, role, configuration) and the StorageClasses; on EKS Auto Mode without the
    add-on, `blockStorage` and Auto Mode's StorageClass."""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset(
        {
            "block_storage",
            "version",
            "preserve",
            "service_account_role_arn",
            "role_through",
            "role_arn",
            "configuration",
        }
    )

    addon: str | None = None
    block_storage: str | None = None
    version: str | None = None
    preserve: bool = False
    service_account_role_arn: Any = None
    role_through: str | None = None
    role_arn: Any = None
    configuration: Any = None
    storage_classes: list[dict[str, Any]] = Field(default_factory=list)  # the StorageClass objects' inputs
