"""The add-on charts proven as they render, for any stack: versions, RBAC, resources, securityContext.

Every Helm release of the stack (releases.py) is rendered from its chart version's recorded facts
(mlplatform_core/model/charts) with the stack's own values, and checked:

- versions: every chart the stack installs is pinned for its Kubernetes minor, and its facts were recorded;
- RBAC: every permission the pinned image needs (data/charts/cluster-autoscaler-needs.json: the first chart
  upstream shipped for the image's minor, or for a minor without a chart line, the autoscaler's own sources) is
  granted to its service account;
- resources: every container requests CPU and memory (from the chart's values, or a LimitRange default in the
  release's namespace); a controller (a Deployment) has a memory limit equal to its request;
- securityContext: non-root, no privilege escalation, read-only root filesystem, every capability dropped, not
  privileged; what a workload needs beyond that is stated by its add-on (`stated_needs`), never silently exempt;
- GPU sharing: the device plugin's configs, as the chart renders them, give each sharing group what the layout
  promises (sharing_proof.py).

A failure is a problem of the stack's `kubernetesVersion` (the charts follow it) and refuses the stack before
anything is created; the rendered workloads feed the placement proof (placement/profiles.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import addon_versions as versions
from ..charts import facts as chart_facts
from ..charts import rbac
from ..charts.render import Rendering, render
from ..layout import Layout
from ..quantity import QuantityError, parse_quantity
from . import device_plugin, dra_driver, gpu_agents, releases
from .core_services import core_services_sources
from .releases import DeployTimeValues, Release
from .sharing_proof import sharing_problems

# What an add-on's workloads need beyond the baseline, by chart: workload -> why.
STATED_NEEDS: Mapping[str, Mapping[str, str]] = {
    versions.NVIDIA_DEVICE_PLUGIN: device_plugin.HOST_NEEDS,
    **gpu_agents.HOST_NEEDS,
    versions.NVIDIA_DRA_DRIVER: dra_driver.HOST_NEEDS,
}


@dataclass(frozen=True)
class RenderedRelease:
    release: Release
    rendering: Rendering | None  # None: no facts for the chart version


@dataclass(frozen=True)
class ChartWorkload:
    """A Deployment or DaemonSet a chart renders, with the groups it must run on (and no others)."""

    release: str
    workload: Mapping[str, Any]
    groups: tuple[str, ...]
    why: str

    @property
    def name(self) -> str:
        return str(self.workload["name"])

    def pod_spec(self) -> dict[str, Any]:
        """The PodSpec fields the scheduler reads."""
        pod = self.workload["pod"]
        spec: dict[str, Any] = {k: pod[k] for k in ("nodeSelector", "tolerations", "affinity") if k in pod}
        if "priorityClassName" in pod:
            spec["priorityClassName"] = pod["priorityClassName"]
        for part in ("containers", "initContainers"):
            if part in self.workload:
                spec[part] = [{k: c[k] for k in ("name", "image", "resources") if k in c} for c in self.workload[part]]
        return spec


@dataclass(frozen=True)
class ChartProof:
    releases: tuple[RenderedRelease, ...]
    problems: tuple[str, ...]
    stated: tuple[str, ...]  # needs beyond the baseline, with why

    @property
    def ok(self) -> bool:
        return not self.problems


def _render(release: Release) -> RenderedRelease:
    if not chart_facts.available(release.chart.name, release.chart.version):
        return RenderedRelease(release, None)
    return RenderedRelease(release, render(chart_facts.load(release.chart.name, release.chart.version), release.values))


def rendered_releases(layout: Layout, at_deploy: DeployTimeValues | None = None) -> tuple[RenderedRelease, ...]:
    if versions.coverage_problem(releases.addons_of(layout), layout.kubernetes_version):
        return ()
    return tuple(_render(r) for r in releases.stack_releases(layout, at_deploy))


def _rbac_problems(layout: Layout, rendered: RenderedRelease) -> list[str]:
    """The autoscaler's image against the RBAC its chart grants (Karpenter's chart is its image's own release)."""
    if rendered.release.chart.name != versions.CLUSTER_AUTOSCALER or rendered.rendering is None:
        return []
    minor = layout.kubernetes_version
    pin = versions.pinned(versions.CLUSTER_AUTOSCALER, minor) or {}
    need = chart_facts.needs()["needs"].get(minor)
    if need is None or need["image"] != pin.get("image"):
        return [
            f"no recorded RBAC needs of the cluster-autoscaler {pin.get('image')} image: "
            "run scripts/generators/render_charts.py"
        ]
    facts = rendered.rendering.facts
    out = []
    for workload in rendered.rendering.workloads:
        account = f"{workload['namespace']}/{workload['serviceAccount']}"
        grants = [g for g in facts.rbac if g["serviceAccount"] == account]
        wanted = [rbac.Permission(**p) for p in need["permissions"]]
        if gap := rbac.missing(wanted, grants, workload["namespace"]):
            first = need["source"][0]
            out.append(
                f"the cluster-autoscaler chart {facts.version} (appVersion {facts.app_version}) does not grant the "
                f"{pin['image']} image {len(gap)} permission(s) it needs: {'; '.join(str(p) for p in gap)} "
                f"(the image's needs: {first['why']}, charts {', '.join(first['charts'])}); its informers would "
                "never sync and no group would scale"
            )
    return out


def _quantity(value: Any) -> Any:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _resource_problems(release: str, workload: Mapping[str, Any], defaulted: frozenset[str]) -> list[str]:
    out = []
    for part in ("initContainers", "containers"):
        for c in workload.get(part, []):
            res = c.get("resources") or {}
            requests, limits = res.get("requests") or {}, res.get("limits") or {}
            where = f"{release}: {workload['kind']} {workload['name']} container {c['name']}"
            for kind in ("cpu", "memory"):
                if kind not in requests and kind not in limits and kind not in defaulted:
                    out.append(
                        f"{where} requests no {kind} (no chart value and no LimitRange default in its namespace)"
                    )
            if workload["kind"] == "Deployment" and part == "containers":
                mem_req, mem_lim = _quantity(requests.get("memory")), _quantity(limits.get("memory"))
                if mem_lim is None or mem_req != mem_lim:
                    out.append(f"{where}: a controller's memory limit must equal its request (got {res or 'none'})")
    return out


def baseline_gaps(workload: Mapping[str, Any], container: Mapping[str, Any]) -> list[str]:
    """What a container's effective securityContext leaves open: empty when it meets the baseline."""
    pod = workload["pod"].get("securityContext") or {}
    sc = container.get("securityContext") or {}
    user = sc.get("runAsUser", pod.get("runAsUser"))
    gaps = []
    if not (sc.get("runAsNonRoot", pod.get("runAsNonRoot")) is True or (isinstance(user, int) and user > 0)):
        gaps.append("may run as root")
    if sc.get("privileged") is True:
        gaps.append("privileged")
    if sc.get("allowPrivilegeEscalation") is not False:
        gaps.append("privilege escalation not disabled")
    if sc.get("readOnlyRootFilesystem") is not True:
        gaps.append("root filesystem writable")
    if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
        gaps.append("capabilities not dropped")
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if workload["pod"].get(key):
            gaps.append(key)
    if workload["pod"].get("hostPaths"):
        gaps.append(f"host paths {', '.join(workload['pod']['hostPaths'])}")
    return gaps


def _security(release: Release, workload: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(problems, stated needs) of one workload."""
    gaps = sorted(
        {
            g
            for part in ("initContainers", "containers")
            for c in workload.get(part, [])
            for g in baseline_gaps(workload, c)
        }
    )
    if not gaps:
        return [], []
    what = f"{release.name}: {workload['kind']} {workload['name']}"
    stated = STATED_NEEDS.get(release.chart.name, {}).get(workload["name"])
    if stated:
        return [], [f"{what} {stated} ({', '.join(gaps)})"]
    return [f"{what} is not hardened: {', '.join(gaps)}; set it through the chart's values or state why"], []


def prove(
    layout: Layout,
    at_deploy: DeployTimeValues | None = None,
    namespace_defaults: Mapping[str, frozenset[str]] | None = None,
    extra: Sequence[Release] = (),
) -> ChartProof:
    """The proof of every release of the stack. `namespace_defaults`: namespace -> the resources a LimitRange
    there gives containers that request none."""
    minor = layout.kubernetes_version
    if problem := versions.coverage_problem(releases.addons_of(layout), minor):
        return ChartProof((), (problem,), ())
    problems: list[str] = []
    stated: list[str] = []
    if namespace_defaults is None:
        namespace_defaults = releases.namespace_defaults(layout)
    # `extra`: releases beyond the layout's (Kueue, for a stack with teams: model/addons/kueue.py).
    rendered = rendered_releases(layout, at_deploy) + tuple(_render(r) for r in extra)
    for item in rendered:
        chart = item.release.chart
        if item.rendering is None:
            problems.append(
                f"no recorded facts for the {chart.name} chart {chart.version}: run scripts/generators/render_charts.py"
            )
            continue
        facts = item.rendering.facts
        if (facts.release, facts.namespace) != (item.release.name, chart.namespace):
            problems.append(
                f"{item.release.name}: the {chart.name} {chart.version} facts were rendered as release {facts.release} "
                f"in {facts.namespace}, not {item.release.name} in {chart.namespace}: "
                "run scripts/generators/render_charts.py"
            )
        for value in item.rendering.unproven:
            problems.append(f"{item.release.name}: the chart facts cannot prove the value {value}")
        problems += _rbac_problems(layout, item)
        if chart.name == versions.NVIDIA_DEVICE_PLUGIN:
            problems += sharing_problems(layout, item.rendering)
        if chart.name == versions.NVIDIA_DRA_DRIVER:
            problems += dra_driver.device_class_problems(layout, item.rendering)
        defaulted = (namespace_defaults or {}).get(chart.namespace, frozenset())
        for workload in item.rendering.workloads:
            problems += _resource_problems(item.release.name, workload, defaulted)
            bad, why = _security(item.release, workload)
            problems += bad
            stated += why
    return ChartProof(rendered, tuple(problems), tuple(stated))


def chart_workloads(layout: Layout, rendered: Sequence[RenderedRelease] | None = None) -> tuple[ChartWorkload, ...]:
    """Every Deployment and DaemonSet the stack's charts render, with the groups it must serve: controllers on
    the initial group, DaemonSets where their add-on says. One the add-on does not place is an empty set, so the
    placement proof flags it wherever it lands."""
    rendered = rendered_releases(layout) if rendered is None else rendered
    initial = core_services_sources(layout)
    daemons = {
        **device_plugin.daemonset_groups(layout),
        **gpu_agents.daemonset_groups(layout),
        **dra_driver.daemonset_groups(layout),
    }
    out = []
    for item in rendered:
        if item.rendering is None:
            continue
        for w in item.rendering.workloads:
            if w["kind"] == "DaemonSet":
                groups, why = daemons.get(w["name"], ((), "a DaemonSet no add-on of the toolkit places"))
            else:
                groups, why = initial, "a controller: core services run on the initial group"
            out.append(ChartWorkload(item.release.name, w, tuple(groups), why))
    return tuple(out)
