"""The workload layer in the plan: read back from what the program registered, as JSON and as tables.

`kubernetes_section` turns the recorded pulumi_kubernetes resources into
Kubernetes manifests (apiVersion, kind, metadata, spec/value fields) and lists
the add-ons (Helm releases, EKS add-ons) with their values. `render_workload_layer`
prints priority classes, namespaces with their defaults, add-ons and the
settings exported for MLRun and Polyaxon.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from mlplatform_core.model.ml_settings.mlrun import decode_mlrun_env
from mlplatform_core.model.plan_document import Addon, KubernetesSection

from ..engine import ProgramRun
from .tables import print_table

HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"
EKS_ADDON_TYPE = "aws:eks/addon:Addon"
_SKIP = {"apiVersion", "kind"}


def _api_version(type_: str) -> tuple[str, str] | None:
    """("scheduling.k8s.io/v1", "PriorityClass") from kubernetes:scheduling.k8s.io/v1:PriorityClass."""
    parts = type_.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes" or parts[1].startswith(("helm.sh", "yaml")):
        return None
    group_version = parts[1].removeprefix("core/")
    return group_version, parts[2]


def kubernetes_section(run: ProgramRun) -> KubernetesSection:
    objects = []
    for r in run.resources:
        api = _api_version(r.type)
        if api is None:
            continue
        objects.append({"apiVersion": api[0], "kind": api[1], **{k: v for k, v in r.inputs.items() if k not in _SKIP}})
    addons = []
    for r in sorted(run.of_type(HELM_RELEASE_TYPE), key=lambda r: r.name):
        i = r.inputs
        addons.append(
            Addon(
                name=i.get("name", r.name),
                kind="helm",
                chart=i.get("chart"),
                version=i.get("version"),
                repo=i.get("repositoryOpts", {}).get("repo"),
                namespace=i.get("namespace"),
                values=i.get("values", {}),
            )
        )
    for r in run.of_type(EKS_ADDON_TYPE):
        i = r.inputs
        values = i.get("configurationValues")
        addons.append(
            Addon(
                name=i.get("addonName", r.name),
                kind="eks-addon",
                version=i.get("addonVersion"),
                values=json.loads(values) if isinstance(values, str) else values,
                created_by=r.created_by,
            )
        )
    return KubernetesSection(objects=objects, addons=addons)


def _amounts(d: dict[str, str] | None) -> str:
    return ", ".join(f"{k} {v}" for k, v in (d or {}).items()) or "-"


def _placement(values: dict[str, Any]) -> str:
    if isinstance(values.get("controller"), dict):  # the EBS CSI add-on: a controller, and node pods
        node = values.get("node") or {}
        every = "\nnode pods on every node" if node.get("tolerateAllTaints") else ""
        return f"controller {_placement(values['controller'])}{every}"
    if isinstance(values.get("kubeletPlugin"), dict):  # the NVIDIA DRA driver: placed by required node affinity
        plugin = values["kubeletPlugin"]
        required = (
            (plugin.get("affinity") or {})
            .get("nodeAffinity", {})
            .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        )
        terms = [
            ", ".join(
                f"{e['key']} {e['operator']} {','.join(e.get('values', []))}".rstrip() for e in t["matchExpressions"]
            )
            for t in required.get("nodeSelectorTerms", [])
        ]
        tolerated = ", ".join(t.get("key", "*") for t in plugin.get("tolerations") or [])
        lines = (f"kubelet plugin on {' or '.join(terms)}" if terms else "kubelet plugin", f"tolerates {tolerated}")
        return "\n".join(lines if tolerated else lines[:1])
    selector = ", ".join(f"{k}={v}" for k, v in (values.get("nodeSelector") or {}).items())
    tolerated = ", ".join(t.get("key", "*") for t in values.get("tolerations") or [])
    return "\n".join(x for x in (selector and f"on {selector}", tolerated and f"tolerates {tolerated}") if x) or "-"


def render_workload_layer(doc: dict[str, Any], console: Console) -> None:
    """Tables for the `kubernetes` section and the MLRun/Polyaxon exports of a plan document."""
    objects = doc["kubernetes"]["objects"]
    print_table(console, _priority_classes(objects))
    print_table(console, _namespaces(objects))
    if doc["kubernetes"]["addons"]:
        print_table(console, _addons(doc["kubernetes"]["addons"]))
    else:
        console.print("Add-ons: none installed by the stack (EKS Auto Mode runs them: see above)")
    exports = doc.get("exports", {})
    if "mlrunEnv" in exports:
        _render_mlrun_env(exports["mlrunEnv"], console)
    if "polyaxonEnvironments" in exports:
        polyaxon = Table(
            title="Polyaxon environments (export polyaxonEnvironments)", title_justify="left", show_lines=True
        )
        for col in ("node group", "environment"):
            polyaxon.add_column(col)
        for group, environment in exports["polyaxonEnvironments"].items():
            polyaxon.add_row(group, escape(json.dumps(environment)))
        print_table(console, polyaxon)


def _priority_classes(objects: list[dict[str, Any]]) -> Table:
    classes = Table(title="Priority classes", title_justify="left")
    for col in ("name", "value", "preemption", "global default", "description"):
        classes.add_column(col)
    for o in sorted((o for o in objects if o["kind"] == "PriorityClass"), key=lambda o: o["value"]):
        classes.add_row(
            o["metadata"]["name"],
            str(o["value"]),
            o.get("preemptionPolicy", "-"),
            "yes" if o.get("globalDefault") else "-",
            o.get("description", ""),
        )
    return classes


def _namespaces(objects: list[dict[str, Any]]) -> Table:
    """Each workload namespace with its LimitRange's container defaults and its ResourceQuota."""
    namespaces = Table(title="Workload namespaces (container defaults)", title_justify="left", show_lines=True)
    for col in ("namespace", "defaultRequest", "default limit", "max", "min", "QoS if unset", "quota"):
        namespaces.add_column(col)
    limits = {o["metadata"]["namespace"]: o["spec"]["limits"][0] for o in objects if o["kind"] == "LimitRange"}
    quotas = {o["metadata"]["namespace"]: o["spec"]["hard"] for o in objects if o["kind"] == "ResourceQuota"}
    for o in (o for o in objects if o["kind"] == "Namespace"):
        ns = o["metadata"]["name"]
        lim = limits.get(ns, {})
        qos = "Guaranteed" if lim and lim.get("defaultRequest") == lim.get("default") else "Burstable"
        namespaces.add_row(
            ns,
            _amounts(lim.get("defaultRequest")),
            _amounts(lim.get("default")),
            _amounts(lim.get("max")),
            _amounts(lim.get("min")),
            qos if lim else "-",
            "\n".join(f"{k}: {v}" for k, v in quotas.get(ns, {}).items()) or "-",
        )
    return namespaces


def _addon_source(a: dict[str, Any]) -> str:
    source = f"{a['chart']} from {a['repo']}" if a["kind"] == "helm" else "EKS managed add-on"
    if a["kind"] == "helm" and not a["repo"]:  # an OCI chart: the chart reference says where it is from
        source = a["chart"]
    if a.get("createdBy"):
        source += f" (created by {a['createdBy']})"
    return source


def _addons(addons: list[dict[str, Any]]) -> Table:
    table = Table(title="Add-ons", title_justify="left", show_lines=True)
    for col in ("add-on", "source", "version", "runs"):
        table.add_column(col)
    for a in addons:
        table.add_row(
            a["name"], _addon_source(a), escape(a.get("version") or "EKS default"), _placement(a.get("values") or {})
        )
    return table


def _render_mlrun_env(env: dict[str, str], console: Console) -> None:
    """KEY=VALUE lines, never wrapped: the base64 values are copied whole (a table would cut or fold them)."""
    decoded = decode_mlrun_env(env)
    console.print("MLRun settings (export mlrunEnv; set on the MLRun API), as KEY=VALUE:")
    meaning = {
        "MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR": json.dumps(decoded["node_selector"]),
        "MLRUN_PREEMPTIBLE_NODES__TOLERATIONS": json.dumps(decoded["tolerations"]),
    }
    for key, value in env.items():
        console.print(f"  {key}={value}", soft_wrap=True, markup=False, highlight=False)
        if key in meaning:
            console.print(Padding(Text(f"means {meaning[key]}"), (0, 0, 0, 4)))
