"""Usable groups: a pod that takes a GPU or EFA node whole must get past its namespace's LimitRange.

Pure Python. A GPU node is filled by one training pod: every GPU of the node and the cpu and memory left
beside the DaemonSets (the data loaders and the framework need them). A CPU group is shared by many pods and
is usable as long as a default pod fits (the other invariants prove that); a GPU or EFA group is usable only
if its namespace's container maximum (LimitRange `max`) lets one container ask for a whole node. So per GPU
and EFA group, `whole_node_profiles` builds that pod as MLRun submits it into its namespace with its default
priority class, and the invariants run it through the API server's admission (admission.py): a refusal names
the namespace, the LimitRange, the field and its value, with the edit that makes the group usable.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence

from ..model.layout import Layout
from ..model.layout.sharing import EFA_RESOURCE
from ..model.quantity import format_bytes, parse_quantity
from ..model.scheduling import CPU, GPU_RESOURCE, MEMORY
from .claim_profiles import claim_pod
from .profiles import Profile, ProfileInputs, mlrun_pod_spec
from .templates import NodeTemplate, node_templates

WHOLE_NODE = "whole-node-{}"


def daemonset_requests(profiles: Iterable[Profile], group: str) -> dict[str, int]:
    """cpu (millicores) and memory (bytes) the DaemonSets the stack runs on `group` request on each node."""
    total = {CPU: 0, MEMORY: 0}
    for p in profiles:
        if p.per_node and p.expected_groups is not None and group in p.expected_groups:
            requests = p.pod().requests
            for r in total:
                total[r] += requests.get(r, 0)
    return total


def _fits_whole(t: NodeTemplate, resource: str) -> bool:
    alloc = t.allocatable
    return alloc is not None and (alloc.get(resource, 0) > 0 or alloc.get(EFA_RESOURCE, 0) > 0)


def whole_node_profiles(
    layout: Layout, inputs: ProfileInputs, profiles: Sequence[Profile], namespace: str
) -> list[Profile]:
    """Per GPU or EFA group (its largest instance type), the MLRun job that takes one node whole, in `namespace`."""
    out = []
    specs = dict(layout.node_sources)
    for t in node_templates(layout):
        g = specs.get(t.group)
        if g is None or g.is_initial or not (g.gpu or g.efa):
            continue
        resource = g.sharing.resource if g.sharing else GPU_RESOURCE
        dra = g.gpu and g.gpu_allocation == "dra"  # its GPUs through a claim of every device (claim_profiles.py)
        if not _fits_whole(t, resource) and not (dra and t.allocatable is not None):
            continue  # instance types known only by their network limits: said in the proof's notes
        alloc: Mapping[str, int] = t.allocatable  # type: ignore[assignment]
        used = daemonset_requests(profiles, t.group)
        cpu_m, memory = alloc[CPU] - used[CPU], alloc[MEMORY] - used[MEMORY]
        amounts: dict[str, object] = {"cpu": f"{cpu_m}m", "memory": f"{memory // 2**20}Mi"}
        gpus = alloc.get(resource, 0)
        if gpus:
            amounts[resource] = gpus
        if alloc.get(EFA_RESOURCE):
            amounts[EFA_RESOURCE] = alloc[EFA_RESOURCE]
        # MLRun's pod, tolerating the group's taints (a dedicated or spot group is meant for the pods that do):
        # what is proven is the namespace's cap, not who may use the group.
        spec = mlrun_pod_spec(inputs, "none", "mlrun/mlrun-gpu")
        spec["containers"][0]["resources"] = {"requests": copy.copy(amounts), "limits": copy.copy(amounts)}
        spec["tolerations"] = [
            {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
            if taint.value
            else {"key": taint.key, "operator": "Exists", "effect": taint.effect}
            for taint in t.taints
        ]
        claims = None
        if dra:
            spec, claims = claim_pod([g], spec, all_devices=True)
        efa = f"{alloc.get(EFA_RESOURCE, 0)} EFA interfaces"
        what = f"{gpus} {resource}" if gpus else efa
        if dra:
            what = "every GPU device its DRA driver publishes" + (f" and {efa}" if alloc.get(EFA_RESOURCE) else "")
        biggest = t.largest.instance_type  # type: ignore[union-attr]
        out.append(
            Profile(
                WHOLE_NODE.format(t.group),
                f"MLRun job taking a whole {t.group} node ({biggest}: {what}, {cpu_m}m cpu and "
                f"{format_bytes(memory)} beside the DaemonSets) in namespace {namespace}",
                spec,
                gpu=(bool(gpus) or dra) and g.gpu,
                efa=g.efa,
                namespace=namespace,
                must_reach=t.group,
                claims=claims,
            )
        )
    return out


def limit_edit(namespace: str, rejected: Sequence[str], spec: Mapping[str, object]) -> str:
    """The edit that lets a whole-node pod in: the `max` each refused resource needs, as stack settings."""
    container = spec["containers"][0]  # type: ignore[index]
    limits = container["resources"]["limits"]  # type: ignore[index]
    needed = [r for r in ("cpu", "memory") if any(f"maximum {r} usage" in reason for reason in rejected)]
    if not needed:
        return ""
    # Rounded up to whole cpus and GiB: a bound above what a node has costs nothing and reads better.
    whole = {"cpu": lambda q: str(math.ceil(q)), "memory": lambda q: f"{math.ceil(q / 2**30)}Gi"}
    sets = ", ".join(f"{r}: {whole[r](parse_quantity(limits[r]))!r}" for r in needed)
    return (
        f"; to let one pod use the whole node, set workloads.namespaces.{namespace}.limits.max to at least "
        f"{{{sets}}}, or remove the max there so it follows the largest GPU or EFA node"
    )
