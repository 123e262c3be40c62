"""The cluster scheduler's NodeResourcesFit scoring: how `place` ranks the groups a pod fits, and whether the stack
can set it.

Pure Python. kube-scheduler scores every node a pod fits with NodeResourcesFit (k8s pkg/scheduler/framework/
plugins/noderesources): per resource of the strategy, LeastAllocated gives (allocatable - requested) * 100 /
allocatable (emptier nodes first: spreads), MostAllocated requested * 100 / allocatable, capped at 100 (fuller nodes
first: packs, which leaves whole nodes free for GPU gangs and lets autoscalers remove empty ones); the node's score
is the weighted mean over the resources the node has (a resource the node does not allocate is left out). The
default is LeastAllocated with cpu and memory weighted 1 (pkg/scheduler/apis/config/v1/default_plugins.go,
defaults.go). `place` models a fresh node per group, so the score compares how much of each group's node the pod
takes.

EKS can set the strategy on the control plane (2026: CreateCluster/UpdateClusterConfig `kubeSchedulerConfig`,
shape KubeSchedulerConfigRequest -> nodeResourcesFit.scoringStrategy {type, resources[{name, weight 1-100}], at
most 100}; botocore data eks/2017-11-01/service-2.json). pulumi-aws has it on aws.eks.Cluster
(`kube_scheduler_config`, 7.51.1), but the toolkit's cluster is pulumi-eks's Cluster (pyproject: pulumi-eks >=4.1,
<4.5; 4.4.0 is the newest release), whose inputs have no kubeSchedulerConfig and which creates the aws.eks.Cluster
itself. So a stack's `scheduler` setting cannot reach the cluster: it is refused (CLUSTER_SUPPORT), and `place`
ranks by the cluster's actual scoring, the default. tests/program pins the pulumi-eks fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

LEAST_ALLOCATED, MOST_ALLOCATED = "LeastAllocated", "MostAllocated"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED)
MAX_NODE_SCORE = 100  # framework.MaxNodeScore
MIN_WEIGHT, MAX_WEIGHT, MAX_RESOURCES = 1, 100, 100  # botocore: ResourceWeightValue 1-100, ResourceWeightList max 100

# Which provider passes EKS's scheduler configuration to the cluster the toolkit creates: None while none does, with
# what would be needed. A pulumi-eks bump whose Cluster takes kubeSchedulerConfig flips this (and its test).
CLUSTER_SUPPORT: str | None = None
NEEDED_PROVIDER = (
    "a pulumi-eks release whose Cluster passes kubeSchedulerConfig to the aws.eks.Cluster it creates (none up to "
    "4.4.0, the newest the toolkit pins; pulumi-aws 7.51.1's aws.eks.Cluster has kube_scheduler_config)"
)


@dataclass(frozen=True)
class Scoring:
    strategy: str = LEAST_ALLOCATED
    weights: Mapping[str, int] = field(default_factory=lambda: {"cpu": 1, "memory": 1})

    def __post_init__(self) -> None:
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))


DEFAULT_SCORING = Scoring()


def refusal() -> str | None:
    """Why a stack's `scheduler` setting cannot be applied to its cluster, or None when it can."""
    if CLUSTER_SUPPORT is not None:
        return None
    return (
        "EKS's control-plane scheduler configuration (kubeSchedulerConfig) cannot be set on the toolkit's cluster: "
        f"it needs {NEEDED_PROVIDER}; remove it (the cluster keeps kube-scheduler's default, LeastAllocated with "
        "cpu and memory weighted 1)"
    )


def _resource_score(strategy: str, requested: Fraction, allocatable: Fraction) -> Fraction:
    if strategy == MOST_ALLOCATED:
        return min(requested, allocatable) * MAX_NODE_SCORE / allocatable
    if requested > allocatable:
        return Fraction(0)
    return (allocatable - requested) * MAX_NODE_SCORE / allocatable


# A pod that requests no cpu or memory is scored as asking 100m and 200Mi (k8s pkg/scheduler/util/pod_resources.go,
# DefaultMilliCPURequest, DefaultMemoryRequest): cpu in millicores, memory in bytes, as `place` counts them.
NONZERO_DEFAULTS = {"cpu": 100, "memory": 200 * 1024 * 1024}


Amounts = Mapping[str, int | Fraction]


def fit_score(requests: Amounts, allocatable: Amounts, scoring: Scoring = DEFAULT_SCORING) -> Fraction:
    """NodeResourcesFit's score (0-100) of a pod with `requests` on an empty node with `allocatable`."""
    total, weight_sum = Fraction(0), 0
    for name, weight in scoring.weights.items():
        alloc = Fraction(allocatable.get(name, 0))
        if alloc <= 0:
            continue  # a resource the node does not allocate is not scored
        requested = Fraction(requests.get(name, 0)) or Fraction(NONZERO_DEFAULTS.get(name, 0))
        total += _resource_score(scoring.strategy, requested, alloc) * weight
        weight_sum += weight
    return total / weight_sum if weight_sum else Fraction(0)


def cluster_scoring(settings: object = None) -> Scoring:
    """The scoring the cluster's scheduler uses: the stack's when it can be set (CLUSTER_SUPPORT), else the default."""
    if CLUSTER_SUPPORT is not None and isinstance(settings, Scoring):
        return settings
    return DEFAULT_SCORING


def best_fit(requests: Amounts, allocatables: Iterable[Amounts | None], scoring: Scoring | None = None) -> Fraction:
    """A group's score for `place`: the best of its node types (the cluster's scoring unless `scoring` says);
    types of unknown allocatable are not scored."""
    use = scoring or cluster_scoring()
    return max((fit_score(requests, a, use) for a in allocatables if a), default=Fraction(0))
