"""`place` against a real kube-apiserver and kube-scheduler (v1.20), on the same pods and the same nodes.

Opt-in (`make test-scheduler`, pytest marker `scheduler`): it needs the binaries scripts/build_kube.sh
builds. For each stack, the cluster gets the stack's own objects (namespaces, LimitRanges, priority
classes from model/workloads.py) and one Node per node group and instance type, labelled, tainted and
sized as placement/templates.py describes them. Every pod of the corpus is then
1. sent to the API server (dry run), to see whether it rejects the pod, and why, as `place` says;
2. if admitted, scheduled once per group with only that group's nodes open, to see on which groups it
   can land and why not elsewhere, as `place` says.

Where the two disagree `place` is wrong, except for the documented assumptions, which the corpus keeps
out or checks on their own: node names and zones are unknown before deploy (no pod here selects them),
and v1.20 predates sidecar init containers (it drops `restartPolicy: Always` on init containers and
counts them like any init container): test_sidecar_pods_are_the_known_difference pins that.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.quantity import format_cpu
from mlplatform_core.model.validation import ValidStack, validate_stack
from mlplatform_core.model.workloads import manifests
from mlplatform_core.placement.admission import ClusterObjects, admit
from mlplatform_core.placement.filters import PodPlacement, place_admitted
from mlplatform_core.placement.manifests import read_manifests
from mlplatform_core.placement.profiles import builtin_profiles
from mlplatform_core.placement.templates import NodeTemplate, node_templates
from tests.conftest import ROOT, stack_config

from .kube import Api, Cluster, PodWatch

pytestmark = pytest.mark.scheduler

P = "ml-platform-eks:"
MERGE = "application/merge-patch+json"
# A third stack beside the shipped ones: a namespace with LimitRange minimums, two groups that differ only in
# their name, and a small root volume (ephemeral-storage).
CUSTOM = {
    **stack_config("dev"),
    P + "additionalNodeGroups": [
        {"name": "batch-a", "role": "batch", "instanceTypes": ["c5.2xlarge"], "diskSizeGib": 40},
        {"name": "batch-b", "role": "batch", "instanceTypes": ["c5.2xlarge"], "diskSizeGib": 40},
    ],
    P + "workloads": {
        "namespaces": {"team-a": {"limits": {"min": {"cpu": "100m", "memory": "64Mi"}, "max": {"cpu": "4"}}}}
    },
}
STACKS = {"dev": stack_config("dev"), "prod": stack_config("prod"), "custom": CUSTOM}
EXTRA_NAMESPACES = ("feature-store", "team-a")  # namespaces a stack may not create (assumed to exist)
GPU_TOL = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
SPOT_TOL = {"key": "app.iguazio.com/lifecycle", "operator": "Equal", "value": "preemptible", "effect": "NoSchedule"}


def container(name: str = "c", requests: dict | None = None, limits: dict | None = None, **extra: Any) -> dict:
    c: dict[str, Any] = {"name": name, "image": "registry.invalid/pause:3.2", **extra}
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    if resources:
        c["resources"] = resources
    return c


def spec(*containers: dict, **fields: Any) -> dict:
    return {"containers": list(containers) or [container()], **fields}


def required(*expressions: dict) -> dict:
    terms = {"nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}


def corpus_cases() -> Iterator[tuple[str, str | None, dict]]:
    """(name, namespace, PodSpec): admission cases, resource edges, selectors and taints."""
    # LimitRange defaults, then its bounds (dev: at most 7 cpu and 28Gi per container in mlrun; prod: 15, 56Gi)
    yield "limitrange-defaults", "mlrun", spec()
    yield "sixteen-cpu-job", "mlrun", spec(container(limits={"cpu": "16", "memory": "8Gi"}))
    yield "request-above-default-limit", "mlrun", spec(container(requests={"cpu": "4"}))
    yield "at-the-limitrange-max", "mlrun", spec(container(limits={"cpu": "7", "memory": "28Gi"}))
    yield "below-the-minimum", "team-a", spec(container(requests={"cpu": "50m", "memory": "128Mi"}))
    yield "minimum-met", "team-a", spec(container(requests={"cpu": "100m", "memory": "64Mi"}))
    yield "init-container-above-max", "team-a", spec(container(), initContainers=[container("i", limits={"cpu": "6"})])
    # validation
    yield "requests-above-limits", "feature-store", spec(container(requests={"cpu": "2"}, limits={"cpu": "1"}))
    yield "gpu-request-without-limit", "feature-store", spec(container(requests={"nvidia.com/gpu": 1}))
    gpu_1_2 = container(requests={"nvidia.com/gpu": 1}, limits={"nvidia.com/gpu": 2})
    yield "gpu-request-not-limit", "feature-store", spec(gpu_1_2)
    yield "gpu-limit-only", "feature-store", spec(container(limits={"nvidia.com/gpu": 1}))
    yield "half-a-gpu", "feature-store", spec(container(limits={"nvidia.com/gpu": "500m"}))
    yield "unknown-resource-name", "feature-store", spec(container(requests={"gpu": 1}))
    pages_only = container(requests={"hugepages-2Mi": "4Mi"}, limits={"hugepages-2Mi": "4Mi"})
    yield "hugepages-without-cpu-or-memory", "feature-store", spec(pages_only)
    yield "toleration-empty-key-equal", None, spec(tolerations=[{"operator": "Equal", "value": "x"}])
    yield "toleration-exists-with-value", None, spec(tolerations=[{"key": "a", "operator": "Exists", "value": "x"}])
    seconds = {"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30}
    yield "toleration-seconds-noschedule", None, spec(tolerations=[seconds])
    yield "toleration-bad-effect", None, spec(tolerations=[{"key": "a", "operator": "Exists", "effect": "Never"}])
    yield "affinity-in-without-values", None, spec(affinity=required({"key": "a", "operator": "In"}))
    # admission plugins
    yield "unknown-priority-class", "mlrun", spec(priorityClassName="does-not-exist")
    yield "known-priority-class", "mlrun", spec(priorityClassName="igz-workload-high")
    yield "overhead-without-runtimeclass", None, spec(overhead={"cpu": "100m"})
    yield "unknown-runtimeclass", None, spec(runtimeClassName="nvidia")
    # resources the scheduler counts
    yield "gpu-job", "mlrun", spec(container(limits={"nvidia.com/gpu": 1, "cpu": "2", "memory": "8Gi"}))
    yield "two-gpus", "feature-store", spec(container(limits={"nvidia.com/gpu": 2}))
    yield "ephemeral-storage-30Gi", "feature-store", spec(container(requests={"ephemeral-storage": "30Gi"}))
    yield "ephemeral-storage-89Gi", "feature-store", spec(container(requests={"ephemeral-storage": "89Gi"}))
    yield "ephemeral-storage-90Gi", "feature-store", spec(container(requests={"ephemeral-storage": "90Gi"}))
    big_disk = container(requests={"ephemeral-storage": "150Gi"})
    yield "ephemeral-storage-150Gi", "feature-store", spec(big_disk, tolerations=[GPU_TOL])
    pages = {"hugepages-2Mi": "4Mi", "memory": "1Gi"}
    yield "hugepages", "feature-store", spec(container(requests=pages, limits=pages))
    yield "unknown-extended-resource", "feature-store", spec(container(limits={"example.com/fpga": 1}))
    init = [container("init", requests={"memory": "60Gi"})]
    yield "big-init-container", "feature-store", spec(container(requests={"cpu": "1"}), initContainers=init)
    yield "overcommitted-cpu", "feature-store", spec(container(requests={"cpu": "30"}))
    yield "cpu-7910m", "feature-store", spec(container(requests={"cpu": "7910m"}))
    yield "cpu-7911m", "feature-store", spec(container(requests={"cpu": "7911m"}))
    # selectors, affinity and taints
    yield "jobs-selector", None, spec(nodeSelector={"mlplatform.io/node-role": "jobs"})
    yield "spot-tolerant", None, spec(tolerations=[SPOT_TOL])
    gpu_selector = {"nvidia.com/gpu.present": "true"}
    yield "gpu-tolerant-selector", None, spec(nodeSelector=gpu_selector, tolerations=[GPU_TOL, SPOT_TOL])
    not_spot = {"key": "app.iguazio.com/lifecycle", "operator": "NotIn", "values": ["preemptible"]}
    yield "notin-spot", None, spec(affinity=required(not_spot))
    yield "arm64-only", None, spec(nodeSelector={"kubernetes.io/arch": "arm64"})
    m5 = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.2xlarge"]}
    yield "instance-type-in", None, spec(affinity=required(m5))
    yield "tolerate-everything", None, spec(tolerations=[{"operator": "Exists"}])
    yield "one-batch-group", None, spec(nodeSelector={"mlplatform.io/node-group": "batch-a"})


@dataclass
class Case:
    name: str
    namespace: str | None
    spec: dict


def corpus(valid: ValidStack) -> list[Case]:
    cases = [Case(*c) for c in corpus_cases()]
    for path in sorted((ROOT / "examples" / "manifests").glob("*.yaml")):
        for m in read_manifests(path.read_text(encoding="utf-8")):
            cases.append(Case(f"{path.stem}-{m.name}", m.namespace, dict(m.spec)))
    profiles, _ = builtin_profiles(valid.layout)
    cases += [Case(f"profile-{p.name}", None, copy.deepcopy(dict(p.spec))) for p in profiles]
    return cases


# --- the cluster -----------------------------------------------------------------------------------


def node_manifests(template: NodeTemplate) -> Iterator[tuple[str, dict, dict]]:
    """(name, Node, status) per instance type of a group whose resources the catalog knows."""
    for v in template.variants:
        if v.allocatable is None:
            continue
        name = f"{template.group}.{v.instance_type}"
        labels = {**v.labels, "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": "us-east-1a"}
        alloc = {k: (format_cpu(n) if k == "cpu" else str(n)) for k, n in v.allocatable.items()}
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
        node["spec"] = {"taints": [t.to_dict() for t in template.taints]}
        ready = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "no kubelet: a test node"}
        yield name, node, {"status": {"capacity": alloc, "allocatable": alloc, "conditions": [ready]}}


class Differential:
    """A cluster loaded with a stack's objects and nodes, and the means to try pods on it."""

    def __init__(self, cluster: Cluster, valid: ValidStack):
        assert cluster.api is not None
        self.api: Api = cluster.api
        self.valid = valid
        self.objects = manifests(valid.workloads)
        self.cluster_objects = ClusterObjects.from_manifests(self.objects)
        self.templates = node_templates(valid.layout)
        self.nodes: dict[str, list[str]] = {}  # group -> node names
        self.room: dict[str, str] = {}  # node -> allocatable pods
        self.closed: set[str] = set()
        self.ids = itertools.count()
        namespaces = {o["metadata"]["name"] for o in self.objects if o["kind"] == "Namespace"}
        for ns in EXTRA_NAMESPACES:
            if ns not in namespaces:
                self.api.ok("POST", "/api/v1/namespaces", {"kind": "Namespace", "metadata": {"name": ns}})
        for obj in self.objects:
            if obj["kind"] == "Namespace":
                self.api.ok("POST", "/api/v1/namespaces", obj)
            elif obj["kind"] == "PriorityClass":
                self.api.ok("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", obj)
            elif obj["kind"] == "LimitRange":
                self.api.ok("POST", f"/api/v1/namespaces/{obj['metadata']['namespace']}/limitranges", obj)
        for t in self.templates:
            for name, node, status in node_manifests(t):
                self.api.ok("POST", "/api/v1/nodes", node)
                self.api.ok("PATCH", f"/api/v1/nodes/{name}/status", status, MERGE)
                self.nodes.setdefault(t.group, []).append(name)
                self.room[name] = status["status"]["allocatable"]["pods"]
        self.watch = PodWatch(self.api)

    def only(self, group: str) -> None:
        """Close every node but those of `group`: cordoned (the scheduler's first filter) and with room for no
        pod (which stops even a pod that tolerates every taint, the cordon's too). The group's nodes open last."""
        changes = [
            (n, g != group) for g, names in self.nodes.items() for n in names if (g != group) != (n in self.closed)
        ]
        for name, close in sorted(changes, key=lambda change: not change[1]):
            self.api.ok("PATCH", f"/api/v1/nodes/{name}", {"spec": {"unschedulable": close}}, MERGE)
            pods = "0" if close else self.room[name]
            self.api.ok("PATCH", f"/api/v1/nodes/{name}/status", {"status": {"allocatable": {"pods": pods}}}, MERGE)
            (self.closed.add if close else self.closed.discard)(name)

    def pod(self, case: Case) -> tuple[str, dict]:
        name = f"{re.sub(r'[^a-z0-9-]', '-', case.name.lower())[:40].strip('-')}-{next(self.ids)}"
        ns = case.namespace or "default"
        return ns, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": case.spec}

    def admission(self, case: Case) -> tuple[int, dict]:
        """What the API server says to the pod (a dry run: admitted and validated, not stored)."""
        ns, pod = self.pod(case)
        return self.api.request("POST", f"/api/v1/namespaces/{ns}/pods?dryRun=All", pod)

    def schedule(self, case: Case, group: str) -> tuple[str, str]:
        """Create the pod, see it bound or unschedulable, delete it and see it gone (its resources free again).
        A pod bound outside `group` met a scheduler that had not yet seen the last node change: tried again."""
        for _ in range(5):
            ns, pod = self.pod(case)
            name = pod["metadata"]["name"]
            self.api.ok("POST", f"/api/v1/namespaces/{ns}/pods", pod)
            outcome = self.watch.wait(ns, name, ("bound", "unschedulable"))
            self.api.ok("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}?gracePeriodSeconds=0")
            self.watch.wait(ns, name, ("deleted",))
            if outcome[0] != "bound" or outcome[1] in self.nodes[group]:
                return outcome
        raise AssertionError(f"{case.name} kept landing outside {group}")


# --- comparing ---------------------------------------------------------------------------------------

_TAINT = re.compile(r"taint \{([^:}]+):")
_INSUFFICIENT = re.compile(r"Insufficient ([\w./-]+)")


def scheduler_reasons(message: str) -> set[str]:
    """The scheduler's reasons as categories: taint:<key>, affinity, insufficient:<resource>."""
    out = {f"taint:{k}" for k in _TAINT.findall(message)}
    if "didn't match Pod's node affinity" in message or "didn't match node selector" in message:
        out.add("affinity")
    return out | {f"insufficient:{r}" for r in _INSUFFICIENT.findall(message)}


def place_reasons(result: PodPlacement, group: str) -> set[str]:
    out = set()
    for r in result.group(group).reasons:
        if r.kind == "taint":
            out.add(f"taint:{_TAINT.search(r.message).group(1)}")
        elif r.kind == "affinity":
            out.add("affinity")
        else:
            out.add(f"insufficient:{_INSUFFICIENT.search(r.message).group(1)}")
    return out


def first_filter(reasons: set[str]) -> set[str]:
    """The scheduler reports a node's first failing filter (TaintToleration, NodeAffinity, NodeResourcesFit)."""
    for prefix in ("taint:", "affinity", "insufficient:"):
        found = {r for r in reasons if r.startswith(prefix)}
        if found:
            return found
    return set()


def api_fields(status: dict) -> set[str]:
    """The fields a 422 Invalid names (details.causes), spelled as `place` spells them (limits.cpu)."""
    causes = (status.get("details") or {}).get("causes") or []
    return {re.sub(r"\[([^\]\d][^\]]*)\]", r".\1", c.get("field", "")) for c in causes}


def place_fields(result: PodPlacement) -> set[str]:
    return {r.removeprefix("invalid: ").split(": ", 1)[0] for r in result.rejected}


def judge(diff: Differential, case: Case) -> PodPlacement:
    return place_admitted(admit(case.spec, diff.cluster_objects, case.name, case.namespace), diff.templates)


def admission_mismatch(result: PodPlacement, status: int, body: dict) -> str | None:
    message = body.get("message", "")
    if status < 400:
        return f"place rejects it ({list(result.rejected)}); the API server admits it" if result.rejected else None
    if not result.rejected:
        return f"the API server refuses it ({status}: {message}); place admits it"
    if status == 422:
        if api_fields(body) != place_fields(result):
            return f"invalid fields differ: API server {sorted(api_fields(body))}, place {sorted(place_fields(result))}"
        return None
    # 403 Forbidden from an admission plugin (LimitRanger, Priority, RuntimeClass): the gist of each reason is ours.
    if not all(r.startswith("forbidden: ") for r in result.rejected):
        return f"the API server forbids it ({message!r}); place says {list(result.rejected)}"
    gists = [r.removeprefix("forbidden: ").split(": ", 1)[-1].split(", but")[0] for r in result.rejected]
    if not all(g.split(" (the stack")[0] in message for g in gists):
        return f"the API server says {message!r}; place says {list(result.rejected)}"
    return None


def schedule_mismatch(result: PodPlacement, group: str, outcome: tuple[str, str]) -> str | None:
    state, detail = outcome
    ours = result.group(group)
    if state == "bound":
        return None if ours.schedulable else f"the scheduler binds it to {detail}; place: {ours.short}"
    if ours.schedulable:
        return f"the scheduler says {detail!r}; place says it can land on {', '.join(ours.instance_types)}"
    real, want = scheduler_reasons(detail), first_filter(place_reasons(result, group))
    if {r.split(":")[0] for r in real} != {r.split(":")[0] for r in want} or not real & want:
        return f"the scheduler's reasons {sorted(real)}, place's {sorted(want)} ({detail})"
    return None


def mismatches(diff: Differential, cases: list[Case]) -> tuple[list[str], dict[str, int]]:
    problems: list[str] = []
    seen = {"rejected": 0, "landed": 0, "pending": 0}
    admitted: list[tuple[Case, PodPlacement]] = []
    for case in cases:
        result = judge(diff, case)
        status, body = diff.admission(case)
        seen["rejected"] += status >= 400
        if why := admission_mismatch(result, status, body):
            problems.append(f"{case.name}: {why}")
        elif status < 400:
            admitted.append((case, result))
    for t in diff.templates:
        if t.group not in diff.nodes:
            continue
        diff.only(t.group)
        for case, result in admitted:
            outcome = diff.schedule(case, t.group)
            if schedule_mismatch(result, t.group, outcome):  # once more: the scheduler may have lagged a change
                outcome = diff.schedule(case, t.group)
            seen["landed" if outcome[0] == "bound" else "pending"] += 1
            if why := schedule_mismatch(result, t.group, outcome):
                problems.append(f"{case.name} on {t.group}: {why}")
    return problems, seen


@pytest.fixture(scope="module", params=sorted(STACKS))
def differential(request) -> Iterator[Differential]:
    valid = validate_stack(STACKS[request.param], request.param)
    with Cluster() as cluster:
        diff = Differential(cluster, valid)
        try:
            yield diff
        finally:
            diff.watch.close()


def test_place_answers_what_the_api_server_and_scheduler_answer(differential):
    problems, seen = mismatches(differential, corpus(differential.valid))
    assert not problems, "\n".join(problems)
    # The corpus exercises every outcome: refused, landed somewhere, pending somewhere.
    assert seen["rejected"] >= 15 and seen["landed"] >= 20 and seen["pending"] >= 20, seen


def test_sidecar_pods_are_the_known_difference(differential):
    """v1.20 drops restartPolicy Always on an init container and counts it as a plain init container (the
    max of init and app containers); `place` counts a sidecar as running beside the app containers, as
    Kubernetes 1.29+ does. A pod whose app and sidecar each take 60% of a node shows the difference."""
    group = "jobs" if "jobs" in differential.nodes else "workload"
    template = next(t for t in differential.templates if t.group == group)
    cpu = f"{min(v.allocatable['cpu'] for v in template.variants if v.allocatable) * 6 // 10}m"
    sidecar = container("proxy", requests={"cpu": cpu}, restartPolicy="Always")
    pod = spec(
        container(requests={"cpu": cpu}), initContainers=[sidecar], nodeSelector={"mlplatform.io/node-role": group}
    )
    case = Case("sidecar", "feature-store", pod)
    result = judge(differential, case)
    differential.only(group)
    state, _ = differential.schedule(case, group)
    assert state == "bound"  # v1.20: max(60%, 60%) fits
    assert not result.group(group).schedulable  # place: 60% + 60% does not


def test_the_shipped_stacks_are_the_ones_compared():
    for stack in ("dev", "prod"):
        assert STACKS[stack] == read_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
