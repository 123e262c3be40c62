"""Teams on one cluster as plain data: Kueue flavors (one per node group or pool), teams with their quotas.

Names a later change builds on (`place` queue answers, MLRun/Polyaxon exports, cost per team):
- `Teams.flavors` (tuple[Flavor]) and `Teams.flavor(name)`: one ResourceFlavor per layout group a team quotas,
  named after the group; `Flavor.node_labels` select its nodes, `Flavor.capacity` what it can reach at max size.
- `Teams.teams` (tuple[Team]): `Team.name` names its ClusterQueue and, in each of `Team.namespaces`, its
  LocalQueue (`Team.queue_name`, the value of the `kueue.x-k8s.io/queue-name` label, QUEUE_LABEL);
  `Team.quotas` (tuple[Quota]) in preference order; `Team.priority_classes` the class names it may use.
- `Teams.team_of(namespace)`: the team a namespace belongs to (None: no team).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..scheduling import Taint, Toleration

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"  # a job's WorkloadPriorityClass
KUEUE_NAMESPACE = "kueue-system"
CPU = "cpu"
MEMORY = "memory"


@dataclass(frozen=True)
class Flavor:
    """A Kueue ResourceFlavor: the nodes of one layout group (node group, Karpenter or Auto Mode pool)."""

    name: str  # the group's name (the ResourceFlavor's name)
    group: str  # the layout group it selects (same as name; kept apart for messages)
    kind: str  # for people: "node group", "Karpenter NodePool", "EKS Auto Mode NodePool"
    capacity_type: str  # ON_DEMAND, SPOT or CAPACITY_BLOCK (EKS spelling)
    node_labels: Mapping[str, str]  # labels every node of the group carries and no other group's node does
    node_taints: tuple[Taint, ...]  # taints a workload must tolerate to be given the flavor (spot, user taints)
    tolerations: tuple[Toleration, ...]  # added to admitted pods: the group's GPU and role taints
    gpu_resource: str | None  # the GPU resource its nodes advertise (nvidia.com/gpu, nvidia.com/mig-...); None: none
    # The most each resource (cpu, memory, gpu_resource) can reach at the group's max size: allocatable per node of
    # its largest type x max nodes, capped by a pool's limits. None: no upper bound (Auto Mode's built-in pools).
    capacity: Mapping[str, Fraction] | None
    max_nodes: int | None  # None: no upper bound
    environment_role: str  # the group's role (jobs, gpu, spot, ...)
    config_path: str  # where the group is configured, for messages

    @property
    def spot(self) -> bool:
        return self.capacity_type == "SPOT"

    @property
    def resources(self) -> tuple[str, ...]:
        """The resources a ClusterQueue quotas on it: cpu, memory and its GPU resource."""
        return (CPU, MEMORY) + ((self.gpu_resource,) if self.gpu_resource else ())


@dataclass(frozen=True)
class Quota:
    """A team's quota of one resource on one flavor (Kueue: nominalQuota, borrowingLimit, lendingLimit)."""

    flavor: str
    resource: str  # cpu, memory or the flavor's GPU resource
    nominal: Fraction
    borrowing_limit: Fraction | None  # None: unset (borrow what the cohort lends)
    lending_limit: Fraction | None  # None: unset (lend everything unused)
    text: str  # the nominal as the stack file wrote it, for messages and manifests
    borrowing_text: str | None = None
    lending_text: str | None = None
    config_path: str = ""


@dataclass(frozen=True)
class Team:
    name: str  # the ClusterQueue's name and each namespace's LocalQueue's name
    namespaces: tuple[str, ...]
    cohort: str
    weight: str  # fair sharing weight, a Kubernetes quantity
    priority_classes: tuple[str, ...]  # PriorityClass names its workloads may use
    quotas: tuple[Quota, ...]  # every (flavor, resource) the ClusterQueue lists, preference order of the flavors
    config_path: str

    @property
    def queue_name(self) -> str:
        """The LocalQueue every namespace of the team has: jobs carry `kueue.x-k8s.io/queue-name: <this>`."""
        return self.name

    @property
    def flavors(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(q.flavor for q in self.quotas))

    def quota(self, flavor: str, resource: str) -> Quota | None:
        return next((q for q in self.quotas if q.flavor == flavor and q.resource == resource), None)


@dataclass(frozen=True)
class WorkloadPriority:
    """A Kueue WorkloadPriorityClass mirroring one of the stack's workload PriorityClasses (same name, value)."""

    name: str
    value: int
    description: str


@dataclass(frozen=True)
class Teams:
    environment: str
    flavors: tuple[Flavor, ...]
    teams: tuple[Team, ...]
    priorities: tuple[WorkloadPriority, ...]
    integrations: tuple[str, ...]  # Kueue's config integrations.frameworks

    @property
    def cohorts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.cohort for t in self.teams))

    def flavor(self, name: str) -> Flavor:
        return next(f for f in self.flavors if f.name == name)

    def team(self, name: str) -> Team:
        return next(t for t in self.teams if t.name == name)

    def team_of(self, namespace: str) -> Team | None:
        return next((t for t in self.teams if namespace in t.namespaces), None)

    @property
    def resources(self) -> tuple[str, ...]:
        """Every resource a ClusterQueue covers: cpu, memory, then each GPU resource the flavors have."""
        gpus = dict.fromkeys(f.gpu_resource for f in self.flavors if f.gpu_resource)
        return (CPU, MEMORY, *gpus)
