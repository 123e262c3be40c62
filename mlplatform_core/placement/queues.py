"""Which Kueue queue admits a workload of a team namespace, on which flavor and quota, or why it waits.

Pure Python. `place` asks it once per object of the manifest (a Job, a PyTorchJob with its Master and Workers, a
RayJob, a JobSet, a LeaderWorkerSet, a plain Pod...), before the pods are placed: a workload Kueue admits runs
with its flavor's nodeLabels added to the pods' nodeSelector and its tolerations added to theirs, so the landing
group is the placement of that pod. Kueue's behaviour, read at the pinned tag (scripts/upstream.json kueue-chart):
- queue: the job object's label `kueue.x-k8s.io/queue-name` (pkg/controller/jobframework/utils.go
  QueueNameForObject reads the labels only); without it Kueue leaves the job alone, since the stack keeps
  `manageJobsWithoutQueueName` false (jobframework/reconciler.go, base_webhook.go ApplyDefaultForSuspend); a job
  kind with no integration enabled (model/teams/integrations.py) is not Kueue's either;
- flavor (pkg/scheduler/flavorassigner/flavorassigner.go findFlavorForPodSets, checkFlavorForPodSets,
  fitsResourceQuota): pod set by pod set, the ClusterQueue's flavors in resource-group order; a flavor is skipped
  when one of its nodeTaints (NoSchedule/NoExecute) is tolerated neither by the pod nor by the flavor's own
  tolerations, or when the pod's nodeSelector / required node affinity, read on the flavor's own label keys only,
  does not match its nodeLabels; then each resource's request (pod request x pods, plus what earlier pod sets took
  there) must fit the quota: within nominal (fit), else within nominal + what it may borrow (model/teams/
  borrowing.py: the borrowingLimit capped by what the cohort's other ClusterQueues lend) — fit by borrowing, and
  the default flavorFungibility whenCanBorrow MayStopSearch (apis/kueue/v1beta2/clusterqueue_types.go) stops
  there; above that the workload "exceeds max quota" and waits; a resource the ClusterQueue does not cover waits
  ("resource ... unavailable in ClusterQueue") unless excluded (resources.excludeResourcePrefixes);
- admission: pkg/podset/podset.go FromAssignment / Merge add the flavor's nodeLabels and tolerations to the pods.
`place` judges an empty cluster: what other workloads use is not known, so "fits" means the quota can hold it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..model.teams.borrowing import reach
from ..model.teams.manifests import EXCLUDED_RESOURCE_PREFIXES
from ..model.teams.spec import PRIORITY_LABEL, QUEUE_LABEL, Flavor, Team, Teams
from .admission import Admission
from .filters import PodPlacement
from .manifests import ManifestPod
from .pods import Pod

# Kind -> the Kueue integration (config integrations.frameworks name) that manages it. Pod-template kinds
# (Deployment, StatefulSet, ...) come to Kueue through the pod integration, one pod at a time.
FRAMEWORKS: Mapping[str, str] = {
    "Job": "batch/job",
    "CronJob": "batch/job",
    "Pod": "pod",
    "Deployment": "pod",
    "StatefulSet": "pod",
    "ReplicaSet": "pod",
    "ReplicationController": "pod",
    "PodTemplate": "pod",
    "PyTorchJob": "kubeflow.org/pytorchjob",
    "TFJob": "kubeflow.org/tfjob",
    "XGBoostJob": "kubeflow.org/xgboostjob",
    "JAXJob": "kubeflow.org/jaxjob",
    "MPIJob": "kubeflow.org/mpijob",
    "PaddleJob": "kubeflow.org/paddlejob",
    "TrainJob": "trainer.kubeflow.org/trainjob",
    "RayJob": "ray.io/rayjob",
    "RayCluster": "ray.io/raycluster",
    "JobSet": "jobset.x-k8s.io/jobset",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io/leaderworkerset",
}
_REPELLING = ("NoSchedule", "NoExecute")  # the effects checkFlavorForPodSets looks at


@dataclass(frozen=True)
class PodSetAssignment:
    """One pod set (a role) of the workload: the flavor Kueue gives it, or every flavor's reason why not."""

    name: str
    pods: int
    flavor: str | None
    borrows: bool = False
    reasons: tuple[str, ...] = ()  # per flavor tried and not taken


@dataclass(frozen=True)
class QueueAnswer:
    """What Kueue does with one workload: not managed, admitted on a flavor (with the quota it uses), or waits."""

    workload: str
    namespace: str
    managed: bool
    team: str | None = None
    local_queue: str | None = None
    cluster_queue: str | None = None
    podsets: tuple[PodSetAssignment, ...] = ()
    usage: tuple[tuple[str, str, str], ...] = ()  # (flavor, resource, amount) the workload takes of the quota
    borrowing: bool = False
    waits: tuple[str, ...] = ()  # why it waits; empty when admitted (or not Kueue's)
    notes: tuple[str, ...] = ()

    @property
    def admitted(self) -> bool:
        return self.managed and not self.waits

    @property
    def flavors(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.flavor for p in self.podsets if p.flavor))

    def flavor_of(self, role: str) -> str | None:
        return next((p.flavor for p in self.podsets if p.name == role), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "namespace": self.namespace,
            "managed": self.managed,
            "admitted": self.admitted,
            "team": self.team,
            "localQueue": self.local_queue,
            "clusterQueue": self.cluster_queue,
            "flavors": list(self.flavors),
            "podSets": [
                {"name": p.name, "pods": p.pods, "flavor": p.flavor, "borrows": p.borrows, "reasons": list(p.reasons)}
                for p in self.podsets
            ],
            "usage": [{"flavor": f, "resource": r, "amount": a} for f, r, a in self.usage],
            "borrowing": self.borrowing,
            "waits": list(self.waits),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class QueuedPlacement(PodPlacement):
    """A pod's placement with its workload's queue answer (None: the stack has no teams, so no Kueue)."""

    queue: QueueAnswer | None = None
    first_of_workload: bool = True  # the answer is said once, with the workload's first pod set

    def to_dict(self) -> dict[str, Any]:
        return super().to_dict() | {"queue": None if self.queue is None else self.queue.to_dict()}


# --- amounts ------------------------------------------------------------------------------------------


def _request(pod: Pod, resource: str) -> Fraction:
    """A pod's request as Kueue counts it: cores for cpu (Pod keeps millicores), bytes, devices."""
    value = Fraction(pod.requests.get(resource, 0))
    return value / 1000 if resource == "cpu" else value


def show_amount(resource: str, value: Fraction) -> str:
    if resource == "memory":
        gib = value / 2**30
        return f"{float(gib):g}Gi" if gib >= 1 else f"{float(value / 2**20):g}Mi"
    return f"{float(value):g}"


# --- flavor assignment ------------------------------------------------------------------------------------


def _selector_matches(pod: Pod, flavor: Flavor) -> bool:
    """Kueue's flavorSelector: the pod's nodeSelector and required node affinity on the flavor's label keys only."""
    labels = flavor.node_labels
    if any(k in labels and labels[k] != v for k, v in pod.node_selector.items()):
        return False
    if not pod.required_terms:
        return True
    for term in pod.required_terms:
        own = [r for r in term.expressions if r.key in labels]
        if all(r.matches(labels) for r in own):
            return True
    return False


def _flavor_refusal(pod: Pod, flavor: Flavor) -> str | None:
    tolerations = (*pod.effective_tolerations, *flavor.tolerations)
    for taint in flavor.node_taints:
        if taint.effect in _REPELLING and not any(t.tolerates(taint) for t in tolerations):
            return f"{flavor.name}: untolerated taint {taint} (the flavor's nodeTaints)"
    if not _selector_matches(pod, flavor):
        return f"{flavor.name}: the pod's node selector or affinity does not match the flavor's nodeLabels"
    return None


def _fit(
    teams: Teams, team: Team, flavor: str, requests: Mapping[str, Fraction], used: Mapping[tuple[str, str], Fraction]
) -> tuple[bool, bool, str | None]:
    """(fits, borrows, why not) of a pod set's requests on one flavor, after what earlier pod sets took there."""
    borrows = False
    for resource, amount in requests.items():
        total = used.get((flavor, resource), Fraction(0)) + amount
        nominal, borrow = reach(teams, team, flavor, resource)
        if total <= nominal:
            continue
        if total <= nominal + borrow:
            borrows = True
            continue
        why = (
            f"{flavor}: needs {show_amount(resource, total)} {resource}, more than the team's nominal quota "
            f"{show_amount(resource, nominal)} plus the {show_amount(resource, borrow)} it may borrow in cohort "
            f"{team.cohort}"
        )
        return False, False, why
    return True, borrows, None


def _assign(
    teams: Teams, team: Team, role: str, pod: Pod, pods: int, used: dict[tuple[str, str], Fraction]
) -> PodSetAssignment:
    covered = set(teams.resources)
    requests = {r: _request(pod, r) * pods for r in pod.requests if pod.requests[r]}
    requests = {r: v for r, v in requests.items() if not r.startswith(EXCLUDED_RESOURCE_PREFIXES)}
    missing = [r for r in requests if r not in covered]
    if missing:
        why = f"resource {', '.join(missing)} unavailable in ClusterQueue {team.name} (no team quotas it)"
        return PodSetAssignment(role, pods, None, reasons=(why,))
    reasons = []
    for name in team.flavors:
        if (refused := _flavor_refusal(pod, teams.flavor(name))) is not None:
            reasons.append(refused)
            continue
        fits, borrows, why = _fit(teams, team, name, requests, used)
        if fits:
            for r, v in requests.items():
                used[(name, r)] = used.get((name, r), Fraction(0)) + v
            return PodSetAssignment(role, pods, name, borrows, tuple(reasons))
        reasons.append(why or name)
    return PodSetAssignment(role, pods, None, reasons=tuple(reasons))


# --- the answer -----------------------------------------------------------------------------------------------


def _role(m: ManifestPod) -> str:
    return m.name.split(" ", 1)[1] if " " in m.name else m.name


def _workload(m: ManifestPod) -> str:
    return m.name.split(" ", 1)[0]


def _unmanaged(pods: Sequence[ManifestPod], namespace: str, teams: Teams) -> QueueAnswer | None:
    """The answer for a workload Kueue leaves alone (None: Kueue manages it)."""
    head = pods[0]
    team = teams.team_of(namespace)
    framework = FRAMEWORKS.get(head.kind)
    queue = head.labels.get(QUEUE_LABEL)
    where = f"team {team.name}'s namespace {namespace}" if team else f"namespace {namespace}, no team's"
    if framework is None or framework not in teams.integrations:
        why = f"Kueue does not manage a {head.kind} (no integration for it is enabled)"
    elif queue is None:
        hint = f"; label it {QUEUE_LABEL}: {team.queue_name} to run in the team's quota" if team else ""
        why = f"no {QUEUE_LABEL} label, so Kueue leaves it alone (manageJobsWithoutQueueName is false){hint}"
    else:
        return None
    return QueueAnswer(_workload(head), namespace, False, team and team.name, notes=(f"{where}: {why}",))


def _priority_waits(pods: Sequence[tuple[ManifestPod, Admission]], team: Team, teams: Teams) -> tuple[list, list]:
    """(waits, notes) about the workload's priority: an unknown WorkloadPriorityClass, a class the team may not use."""
    waits, notes = [], []
    label = pods[0][0].labels.get(PRIORITY_LABEL)
    known = {p.name for p in teams.priorities}
    if label is not None and label not in known:
        waits.append(f"WorkloadPriorityClass {label} ({PRIORITY_LABEL}) does not exist (known: {', '.join(known)})")
    classes = {label} if label else {c for _, a in pods if (c := a.spec.get("priorityClassName"))}
    for c in sorted(classes - set(team.priority_classes)):
        notes.append(
            f"priority class {c} is not one team {team.name} may use ({', '.join(team.priority_classes)}; "
            f"{team.config_path}.priorityClasses); Kueue does not check it, so nothing on the cluster stops it"
        )
    return waits, notes


def _usage(podsets: Sequence[PodSetAssignment], used: Mapping[tuple[str, str], Fraction]) -> tuple:
    return tuple((f, r, show_amount(r, v)) for (f, r), v in used.items() if v and any(p.flavor == f for p in podsets))


def queue_answer(pods: Sequence[tuple[ManifestPod, Admission]], teams: Teams) -> QueueAnswer:
    """Kueue's verdict on one workload: its pod sets (manifest pods) with the API server's admission of each."""
    head, first = pods[0]
    namespace = first.namespace
    if (unmanaged := _unmanaged([m for m, _ in pods], namespace, teams)) is not None:
        return unmanaged
    queue = head.labels[QUEUE_LABEL]
    team = teams.team_of(namespace)
    if team is None or team.queue_name != queue:
        queues = f"its LocalQueue is {team.queue_name}" if team else "no team's, so it has no LocalQueue"
        why = f"LocalQueue {queue} does not exist in namespace {namespace} ({queues}); Kueue keeps it suspended"
        return QueueAnswer(_workload(head), namespace, True, team and team.name, queue, waits=(why,))
    waits, notes = _priority_waits(pods, team, teams)
    used: dict[tuple[str, str], Fraction] = {}
    podsets = [_assign(teams, team, _role(m), a.pod, m.replicas or 1, used) for m, a in pods if a.admitted]
    if not podsets:
        waits.append("the API server refuses its pods, so Kueue never sees a workload to admit")
    for p in podsets:
        if p.flavor is None:
            waits.append(f"pod set {p.name} ({p.pods} pod(s)) fits no flavor: " + "; ".join(p.reasons))
    return QueueAnswer(
        _workload(head),
        namespace,
        True,
        team.name,
        queue,
        team.name,
        tuple(podsets),
        _usage(podsets, used) if not waits else (),
        any(p.borrows for p in podsets),
        tuple(waits),
        tuple(notes),
    )


def admitted_pod(pod: Pod, flavor: Flavor) -> Pod:
    """The pod as Kueue starts it on a flavor: the flavor's nodeLabels in its nodeSelector, its tolerations added."""
    added = tuple(t for t in flavor.tolerations if t not in pod.tolerations)
    selector = {**pod.node_selector, **flavor.node_labels}
    return dataclasses.replace(pod, node_selector=selector, tolerations=(*pod.tolerations, *added))


def _key(m: ManifestPod) -> tuple:
    return (m.document, m.item, _workload(m))


def _grouped(pods: Iterable[ManifestPod]) -> Iterator[list[ManifestPod]]:
    """The manifest's pods, one object (workload) at a time: its roles come one after the other."""
    group: list[ManifestPod] = []
    for m in pods:
        if group and _key(group[0]) != _key(m):
            yield group
            group = []
        group.append(m)
    if group:
        yield group


def place_workloads(
    pods: Iterable[ManifestPod],
    admit: Callable[[ManifestPod], Admission],
    place: Callable[[Admission], PodPlacement],
    teams: Teams | None,
) -> Iterator[tuple[ManifestPod, PodPlacement]]:
    """Each pod admitted, asked of Kueue (with its workload's other pod sets) and placed: the pod Kueue starts
    carries its flavor's labels and tolerations, so the placement says where it lands."""
    for group in _grouped(pods):
        admissions = [admit(m) for m in group]
        answer = None if teams is None else queue_answer(list(zip(group, admissions, strict=True)), teams)
        for i, (m, adm) in enumerate(zip(group, admissions, strict=True)):
            flavor = answer.flavor_of(_role(m)) if answer is not None and answer.admitted else None
            if flavor is not None and teams is not None:
                adm = dataclasses.replace(adm, pod=admitted_pod(adm.pod, teams.flavor(flavor)))
            placed = place(adm)
            fields = {f.name: getattr(placed, f.name) for f in dataclasses.fields(PodPlacement)}
            yield m, QueuedPlacement(**fields, queue=answer, first_of_workload=i == 0)
