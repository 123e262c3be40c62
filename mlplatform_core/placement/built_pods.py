"""Pods an operator builds from fields rather than from a pod template: Spark applications and Argo Workflows.

Pure Python. Each builder returns workload_kinds.PodTemplate-shaped tuples (role, path, spec, replicas, notes);
the PodSpec holds what the scheduler and the API server read (resources, selectors, tolerations, affinity,
priority), built the way the operator builds it, with a note on what it adds that is not modelled.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from .pod_template import KindError, PodTemplate, get

_SPARK_UNITS = {"": 2**20, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}  # JVM sizes; bare = MiB
_MIN_OVERHEAD = 384 * 2**20


def spark_bytes(value: Any, path: str) -> int:
    """A JVM memory size as Spark reads it (spark.driver.memory: 512m, 2g, 1024 = MiB), in bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([kmgtp]?)b?\s*", str(value).lower())
    if match is None:
        raise KindError(f"{path}: {value!r} is not a JVM memory size such as 512m or 4g")
    return int(match.group(1)) * _SPARK_UNITS[match.group(2)]


# --- SparkApplication: kubeflow/spark-operator v2.5.2 api/v1beta2/sparkapplication_types.go (driver, executor:
# SparkPodSpec with cores, coreLimit, memory, memoryOverhead, memoryLimit, gpu, nodeSelector, tolerations,
# affinity, template; executor.instances; spec.nodeSelector for both), defaults.go (cores 1, memory 1g,
# instances 1). Spark turns them into the pod (apache/spark resource-managers/kubernetes BasicDriverFeatureStep,
# BasicExecutorFeatureStep): cpu request = cores (coreRequest when set), cpu limit = coreLimit; memory request =
# limit = memory + overhead, overhead = memoryOverhead or max(factor x memory, 384MiB), factor
# spec.memoryOverheadFactor or 0.1 (0.4 for Python and R applications); a GPU goes to limits as gpu.name.
def _spark_pod(app: Mapping[str, Any], role: str, at: str) -> dict[str, Any]:
    part = app.get(role) if isinstance(app.get(role), Mapping) else {}
    base = get(part, "template.spec")
    spec: dict[str, Any] = copy.deepcopy(dict(base)) if isinstance(base, Mapping) else {}
    cores = part.get("cores", 1)
    request_cpu = part.get("coreRequest") or str(cores)
    memory = spark_bytes(part.get("memory", "1g"), f"{at}.{role}.memory")
    if part.get("memoryOverhead") is not None:
        overhead = spark_bytes(part["memoryOverhead"], f"{at}.{role}.memoryOverhead")
    else:
        jvm = str(app.get("type", "Scala")) in ("Java", "Scala")
        factor = Fraction(str(app.get("memoryOverheadFactor") or ("0.1" if jvm else "0.4")))
        overhead = max(int(factor * memory), _MIN_OVERHEAD)
    total = f"{(memory + overhead) // 2**20}Mi"
    limits: dict[str, Any] = {"memory": part.get("memoryLimit") or total}
    if part.get("coreLimit") is not None:
        limits["cpu"] = part["coreLimit"]
    gpu = part.get("gpu")
    if isinstance(gpu, Mapping) and gpu.get("name"):
        limits[gpu["name"]] = gpu.get("quantity", 1)
    container = {
        "name": f"spark-kubernetes-{role}",
        "image": part.get("image") or app.get("image") or "spark",
        "resources": {"requests": {"cpu": request_cpu, "memory": total}, "limits": limits},
    }
    others = [c for c in spec.get("containers") or [] if isinstance(c, Mapping)][1:]
    spec["containers"] = [container, *(part.get("sidecars") or []), *others]
    if part.get("initContainers"):
        spec["initContainers"] = list(part["initContainers"])
    selector = {**(app.get("nodeSelector") or {}), **(part.get("nodeSelector") or {})}
    if selector:
        spec["nodeSelector"] = selector
    for key, field in (
        ("tolerations", "tolerations"),
        ("affinity", "affinity"),
        ("priorityClassName", "priorityClassName"),
        ("schedulerName", "schedulerName"),
        ("hostNetwork", "hostNetwork"),
    ):
        if part.get(key) is not None:
            spec[field] = part[key]
    spec.setdefault("restartPolicy", "Never")
    return spec


def spark_templates(obj: Mapping[str, Any], kind: str) -> Iterator[Any]:
    at = "spec.template" if kind == "ScheduledSparkApplication" else "spec"
    app = get(obj, at)
    if not isinstance(app, Mapping) or not isinstance(app.get("driver"), Mapping):
        raise KindError(f"{at}.driver is missing; a {kind} describes its driver pod there")
    note = (
        "built as Spark builds it: cpu request = cores, memory = memory + overhead "
        "(max(10%, or 40% for Python and R, of memory; 384Mi))"
    )
    yield PodTemplate("driver", f"{at}.driver", _spark_pod(app, "driver", at), 1, (note,))
    instances = get(app, "executor.instances")
    if instances is not None and (isinstance(instances, bool) or not isinstance(instances, int) or instances < 0):
        raise KindError(f"{at}.executor.instances must be a whole number >= 0 (got {instances!r})")
    notes = (note,)
    if get(app, "dynamicAllocation.enabled"):
        notes += (f"dynamic allocation: up to {get(app, 'dynamicAllocation.maxExecutors')} executors",)
    yield PodTemplate(
        "executor", f"{at}.executor", _spark_pod(app, "executor", at), 1 if instances is None else instances, notes
    )


# --- Argo Workflows: argoproj/argo-workflows v4.1.2 pkg/apis/workflow/v1alpha1/workflow_types.go (spec.templates[]
# with container, script or containerSet; nodeSelector, affinity, tolerations, priorityClassName, schedulerName
# per template or for the workflow: podPriorityClassName, templateDefaults), cron_workflow_types.go
# (spec.workflowSpec). workflow/controller/workflowpod.go addSchedulingConstraints: the template's nodeSelector,
# affinity, tolerations, priority class win, else the workflow's (replaced, not merged).
_POD_FIELDS = (
    ("nodeSelector", "nodeSelector", "nodeSelector"),
    ("affinity", "affinity", "affinity"),
    ("tolerations", "tolerations", "tolerations"),
    ("priorityClassName", "podPriorityClassName", "priorityClassName"),
    ("schedulerName", "schedulerName", "schedulerName"),
    ("securityContext", "securityContext", "securityContext"),
    ("hostNetwork", "hostNetwork", "hostNetwork"),
)


def _argo_pod(wf: Mapping[str, Any], tmpl: Mapping[str, Any]) -> dict[str, Any] | None:
    if isinstance(tmpl.get("container"), Mapping):
        containers = [{"name": "main", **tmpl["container"]}]
    elif isinstance(tmpl.get("script"), Mapping):
        containers = [{"name": "main", **{k: v for k, v in tmpl["script"].items() if k != "source"}}]
    elif isinstance(get(tmpl, "containerSet.containers"), list):
        containers = list(get(tmpl, "containerSet.containers"))
    else:
        return None  # steps, dag, suspend, resource, http, plugin: no pod of its own (or the agent's)
    strip = ("mirrorVolumeMounts",)
    sidecars = [
        {k: v for k, v in s.items() if k not in strip} for s in tmpl.get("sidecars") or [] if isinstance(s, Mapping)
    ]
    spec: dict[str, Any] = {"containers": containers + sidecars, "restartPolicy": "Never"}
    inits = [
        {k: v for k, v in s.items() if k not in strip}
        for s in tmpl.get("initContainers") or []
        if isinstance(s, Mapping)
    ]
    if inits:
        spec["initContainers"] = inits
    for mine, workflows, field in _POD_FIELDS:
        value = tmpl.get(mine) if tmpl.get(mine) not in (None, {}, []) else wf.get(workflows)
        if value not in (None, {}, [], ""):
            spec[field] = value
    return spec


def argo_templates(obj: Mapping[str, Any], kind: str) -> Iterator[Any]:
    at = "spec.workflowSpec" if kind == "CronWorkflow" else "spec"
    wf = get(obj, at)
    templates = get(wf, "templates")
    if not isinstance(templates, list):
        raise KindError(f"{at}.templates is missing; a {kind} keeps its templates there")
    defaults = wf.get("templateDefaults") if isinstance(wf.get("templateDefaults"), Mapping) else {}
    note = (
        "one pod per step that runs this template; Argo adds its init and wait containers (the executor's "
        "resources come from the controller's configuration, not counted here)"
    )
    for i, tmpl in enumerate(templates):
        if not isinstance(tmpl, Mapping):
            raise KindError(f"{at}.templates[{i}] must be a mapping")
        merged = {**defaults, **tmpl}
        spec = _argo_pod(wf, merged)
        if spec is None:
            continue
        name = tmpl.get("name") or str(i)
        notes = (
            (note,)
            if tmpl.get("podSpecPatch") is None and wf.get("podSpecPatch") is None
            else (note, "podSpecPatch is applied by the controller at run time and not modelled here")
        )
        yield PodTemplate(f"template {name}", f"{at}.templates[{i}]", spec, 1, notes)
