"""What scripts/generators/render_charts.py records of a helm rendering, and how it finds which values change what.

A rendering's workloads (pod placement and security fields, containers with image, resources and securityContext)
and the RBAC bound to their service accounts; probing sets one value at a time to a marker and compares.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Protocol

from mlplatform_core.model.charts.helm_values import FREEFORM, MISSING, coalesce, empty, get, leaf_paths

WORKLOAD_KINDS = ("Deployment", "DaemonSet", "StatefulSet")
POD_FIELDS = (
    "nodeSelector",
    "tolerations",
    "affinity",
    "priorityClassName",
    "securityContext",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "topologySpreadConstraints",
)
CONTAINER_FIELDS = ("image", "resources", "securityContext")
# What a chart's facts record beyond those, where a proof reads it (render_charts.py EXTRA_FACTS): more container
# fields (e.g. `env`, `args`) and the ConfigMaps the release renders (their `data`).
NO_EXTRA: dict[str, Any] = {}
PROBED_NAMES = FREEFORM | {"priorityClassName", "repository", "tag", "digest", "hostNetwork", "replicas"}
# Chart settings a stack may set that its sample stacks do not: Karpenter's StaticCapacity gate (static pools) and
# its DRA switch (pools of gpuAllocation dra), probed so that the proof of such a stack rests on a rendering.
PROBED_NAMES |= {"staticCapacity", "ignoreDRARequests"}


class Renderer(Protocol):
    def template(self, chart: Path, release: str, namespace: str, values: dict, kube: str) -> list[dict] | None: ...


# --- facts from a rendering -----------------------------------------------------------------------------------


def _kept(value: Any) -> bool:
    return not empty(value)


def workload_facts(obj: dict, namespace: str, extra: dict[str, Any] = NO_EXTRA) -> dict[str, Any]:
    tpl = obj["spec"]["template"]["spec"]
    pod = {k: tpl[k] for k in POD_FIELDS if _kept(tpl.get(k))}
    host_paths = [v["hostPath"]["path"] for v in tpl.get("volumes") or [] if "hostPath" in v]
    if host_paths:
        pod["hostPaths"] = host_paths
    if extra.get("configMaps"):  # volume name -> the ConfigMap it mounts
        mounted = {v["name"]: v["configMap"]["name"] for v in tpl.get("volumes") or [] if "configMap" in v}
        if mounted:
            pod["configMapVolumes"] = mounted

    def containers(key: str) -> list[dict]:
        out = []
        for c in tpl.get(key) or []:
            kept = (*CONTAINER_FIELDS, *extra.get("container", ()))
            out.append({"name": c["name"], **{k: c[k] for k in kept if _kept(c.get(k))}})
        return out

    out = {
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "namespace": obj["metadata"].get("namespace", namespace),
        "serviceAccount": tpl.get("serviceAccountName", "default"),
        "pod": pod,
        "containers": containers("containers"),
    }
    if inits := containers("initContainers"):
        out["initContainers"] = inits
    if obj["kind"] != "DaemonSet":
        out["replicas"] = obj["spec"].get("replicas", 1)
    return out


def rbac_facts(objects: list[dict], accounts: set[tuple[str, str]], namespace: str) -> list[dict[str, Any]]:
    """The roles bound to the workloads' service accounts, with their rules."""
    roles = {
        (o["kind"], o["metadata"]["name"], o["metadata"].get("namespace")): o
        for o in objects
        if o["kind"][-4:] == "Role"
    }
    out = []
    for binding in objects:
        if binding["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        bound_ns = binding["metadata"].get("namespace", namespace) if binding["kind"] == "RoleBinding" else None
        for subject in binding.get("subjects") or []:
            account = (subject.get("namespace", namespace), subject.get("name"))
            if subject.get("kind") != "ServiceAccount" or account not in accounts:
                continue
            ref = binding["roleRef"]
            role_ns = bound_ns if ref["kind"] == "Role" else None
            role = roles.get((ref["kind"], ref["name"], role_ns)) or roles.get((ref["kind"], ref["name"], None))
            out.append(
                {
                    "serviceAccount": f"{account[0]}/{account[1]}",
                    "kind": ref["kind"],
                    "name": ref["name"],
                    "namespace": bound_ns,
                    "rules": (role or {}).get("rules") or [],
                    **({} if role else {"external": True}),
                }
            )
    return sorted(out, key=lambda g: (g["serviceAccount"], g["kind"], g["name"], g["namespace"] or ""))


def facts_of(objects: list[dict], namespace: str, extra: dict[str, Any] = NO_EXTRA) -> tuple[list[dict], list[dict]]:
    """(workloads, RBAC); with `extra` configMaps, the ConfigMaps follow the workloads (kind ConfigMap, `data`)."""
    workloads = [workload_facts(o, namespace, extra) for o in objects if o.get("kind") in WORKLOAD_KINDS]
    workloads.sort(key=lambda w: (w["kind"], w["name"]))
    accounts = {(w["namespace"], w["serviceAccount"]) for w in workloads}
    grants = rbac_facts(objects, accounts, namespace)
    if extra.get("configMaps"):
        maps = [
            {"kind": "ConfigMap", "name": o["metadata"]["name"], "data": o.get("data") or {}}
            for o in objects
            if o.get("kind") == "ConfigMap"
        ]
        workloads += sorted(maps, key=lambda m: m["name"])
    return workloads, grants


def fields(workloads: list[dict], grants: list[dict]) -> dict[str, Any]:
    """Every recorded fact as pointer -> value, to compare two renderings."""
    out: dict[str, Any] = {"rbac": grants, "workloads": sorted(f"{w['kind']}/{w['name']}" for w in workloads)}
    for w in workloads:
        key = f"{w['kind']}/{w['name']}"
        if w["kind"] == "ConfigMap":
            out[f"{key} /data"] = w["data"]
            continue
        for k, v in w["pod"].items():
            out[f"{key} /pod/{k}"] = v
        for part in ("containers", "initContainers"):
            for i, c in enumerate(w.get(part, [])):
                for k, v in c.items():
                    out[f"{key} /{part}/{i}/{k}"] = v
        for k in ("serviceAccount", "replicas"):
            if k in w:
                out[f"{key} /{k}"] = w[k]
    return out


# --- probing --------------------------------------------------------------------------------------------------


def set_path(values: dict, path: str, value: Any) -> dict:
    out = copy.deepcopy(values)
    node = out
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def marker(i: int, current: Any) -> Any:
    if isinstance(current, dict):  # one more key: a map of named entries keeps the names the chart refers to
        return {**current, f"probe.example/p{i}": f"v{i}"}
    if isinstance(current, list):
        return [{"key": f"probe.example/p{i}", "operator": "Exists"}]
    if isinstance(current, bool):
        return not current
    if isinstance(current, int):
        return 17 + i
    return f"probe{i}"


def probe(
    helm: Renderer,
    chart: Path,
    name: str,
    namespace: str,
    base: dict,
    defaults: dict,
    kube: str,
    recorded: dict[str, Any] = NO_EXTRA,
) -> dict:
    """Which values change which facts: bindings (verbatim or into a string), affects, inert."""
    objects = helm.template(chart, name, namespace, base, kube)
    if objects is None:
        raise SystemExit(f"{chart.name}: helm refuses the base values")
    workloads, grants = facts_of(objects, namespace, recorded)
    before = fields(workloads, grants)
    candidates = set(leaf_paths(base)) | {p for p in leaf_paths(defaults) if p.rsplit(".", 1)[-1] in PROBED_NAMES}
    bindings: list[dict] = []
    spans: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    affects: dict[str, list[str]] = {}
    inert: list[str] = []
    for i, path in enumerate(sorted(candidates)):
        current = coalesce(get(defaults, path), get(base, path))
        mark = marker(i, None if current is MISSING else current)
        rendered = helm.template(chart, name, namespace, set_path(base, path, mark), kube)
        if rendered is None:  # the chart refuses other values here: a release must set it as the base does
            affects.setdefault(path, []).append("(the chart refuses other values)")
            continue
        after = fields(*facts_of(rendered, namespace, recorded))
        expected = coalesce(get(defaults, path), mark)
        changed = sorted(k for k in set(before) | set(after) if before.get(k, MISSING) != after.get(k, MISSING))
        if not changed:
            inert.append(path)
            continue
        for key in changed:
            got = after.get(key, MISSING)
            # A binding lands on a workload the base renders (a value that adds workloads only affects).
            if " /" in key and got == expected and key.split(" ", 1)[0] in before["workloads"]:
                workload, field = key.split(" ", 1)
                bindings.append({"value": path, "workload": workload, "field": field})
                continue
            inner = _inside(before.get(key, MISSING), got, expected)
            if " /" in key and inner is not None and key.split(" ", 1)[0] in before["workloads"]:
                workload, field = key.split(" ", 1)
                bindings.append({"value": path, "workload": workload, "field": field, **inner})
                continue
            span = _span(before.get(key), got, mark, current)
            if " /" in key and span is not None:
                spans.setdefault(tuple(key.split(" ", 1)), []).append((*span, path))  # type: ignore[arg-type]
                continue
            affects.setdefault(path, []).append(key)
    # Presence: a value the base sets whose removal changes the facts (beyond the fields it binds) must be set
    # (any value: what its value changes is what the marker showed).
    presence: dict[str, list[str]] = {}
    for path in sorted(leaf_paths(base)):
        rendered = helm.template(chart, name, namespace, set_path(base, path, None), kube)
        if rendered is None:
            presence.setdefault(path, []).append("(the chart needs it set)")
            continue
        after = fields(*facts_of(rendered, namespace, recorded))
        bound_fields = {f"{b['workload']} {b['field']}" for b in bindings if b["value"] == path}
        bound_fields |= {f"{w} {f}" for (w, f), found in spans.items() if any(p == path for *_, p in found)}
        changed = [k for k in set(before) | set(after) if before.get(k, MISSING) != after.get(k, MISSING)]
        extra = sorted(k for k in changed if k not in bound_fields)
        if extra:
            presence.setdefault(path, []).extend(extra)
    for (workload, field), found in spans.items():
        template = str(before[f"{workload} {field}"])
        for start, end, path in sorted(found, reverse=True):
            template = template[:start] + "{" + path + "}" + template[end:]
        bindings += [{"value": p, "workload": workload, "field": field, "template": template} for _, _, p in found]
    bound = {b["value"] for b in bindings}
    return {
        "base": leaf_paths(base),
        "defaults": {p: get(defaults, p) for p in sorted(bound) if get(defaults, p) is not MISSING},
        "bindings": sorted(bindings, key=lambda b: (b["value"], b["workload"], b["field"])),
        "affects": {p: sorted(v) for p, v in sorted(affects.items())},
        "presence": {p: sorted(v) for p, v in sorted(presence.items())},
        "inert": sorted(inert),
        "workloads": workloads,
        "rbac": grants,
    }


def _inside(before: Any, after: Any, expected: Any, pointer: str = "") -> dict[str, Any] | None:
    """Where a value lands inside a rendered field, or None: `path` (a JSON Pointer below the field) where the value
    sits verbatim, and `tail` when it is the end of a list the chart starts with its own items (e.g. the EFA plugin's
    CriticalAddonsOnly toleration before the release's). Only where before and after differ in that one place."""
    if pointer and after == expected:
        return {"path": pointer}
    if isinstance(before, dict) and isinstance(after, dict) and set(before) == set(after):
        diff = [k for k in after if before[k] != after[k]]
        if len(diff) == 1:
            key = str(diff[0]).replace("~", "~0").replace("/", "~1")
            return _inside(before[diff[0]], after[diff[0]], expected, f"{pointer}/{key}")
        return None
    if isinstance(before, list) and isinstance(after, list):
        start = len(after) - len(expected) if isinstance(expected, list) else -1
        if 0 < start <= len(before) and after[start:] == expected and before[:start] == after[:start]:
            return {"path": pointer, "tail": start}
        if len(before) == len(after):
            diff = [i for i in range(len(after)) if before[i] != after[i]]
            if len(diff) == 1:
                return _inside(before[diff[0]], after[diff[0]], expected, f"{pointer}/{diff[0]}")
    return None


def _span(before: Any, after: Any, mark: Any, current: Any) -> tuple[int, int] | None:
    """Where a string value sits in a rendered string (e.g. the tag in repository:tag), or None: the one place
    where putting the marker in for the value gives exactly what helm rendered."""
    if not all(isinstance(x, str) for x in (before, after, mark, current)) or not current:
        return None
    start = before.find(current)
    while start != -1:
        end = start + len(current)
        if before[:start] + mark + before[end:] == after:
            return start, end
        start = before.find(current, start + 1)
    return None
