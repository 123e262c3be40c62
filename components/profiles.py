"""Built-in workload profiles and the placement invariants every stack must satisfy.

Pure Python, no Pulumi import. A profile is a PodSpec built the way the tool
builds it: MLRun jobs in each preemption mode enriched from the stack's MLRun
preemptible-node settings exactly as MLRun's `enrich_function_preemption_spec`
does (domain-facts section 2), a Nuclio function, a Jupyter server, a GPU
training job, a Polyaxon experiment in the spot environment, a core platform
service placed like the toolkit's add-ons and the NVIDIA device plugin.
`check_invariants` runs them through the scheduler's filters (placement.py)
and reports every broken promise as an error:

- every profile reaches at least one group;
- prevent and none never reach a spot group;
- constrain (and the Polyaxon spot experiment) reach spot groups only, at least one;
- allow reaches a spot group and an on-demand workload group;
- GPU jobs reach GPU groups only, and CPU-only user workloads stay off them;
- no user workload reaches the initial group;
- system pods reach exactly their groups (core services: initial; device plugin: every GPU group).

Stacks without a spot group. Then the toolkit exports empty preemptible-node
settings and MLRun ignores preemption modes altogether ("with both empty every
preemption mode is a no-op"): a constrain-mode job runs on on-demand nodes
instead of waiting for spot nodes that can never come. That is a property of
the stack, not a defect, so it is reported as a note, the spot promises of
allow and constrain are not checked, and the spot Polyaxon profile is left out
(there is no spot environment to use). If MLRun settings name spot nodes that
the layout does not have, constrain reaches no group and that IS an error.
Likewise the GPU profile needs a GPU group and the Jupyter profile a Jupyter
group (no development work on prod): without them they are left out with a note.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import addons, mltools
from .config import StackConfig
from .layout import Layout
from .placement import Pod, PodPlacement, node_templates, place
from .scheduling import GPU_RESOURCE, ROLE_LABEL, Toleration
from .workloads import build_workloads

PREEMPTION_MODES = ("allow", "constrain", "prevent", "none")
DEFAULT_PREEMPTION_MODE = "prevent"  # MLRun's default (function_defaults.preemption_mode)
USER_PRIORITY_CLASS = "igz-workload-medium"
DEFAULT_NODE_SELECTOR_ENV = "MLRUN_DEFAULT_FUNCTION_NODE_SELECTOR"  # base64 JSON, like the preemptible settings
SYSTEM_PRIORITY_CLASS = "igz-system-critical"
JUPYTER_ROLE = "jupyter"

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


# --- MLRun's preemption enrichment ----------------------------------------------------------------


@dataclass(frozen=True)
class MLRunPreemption:
    """MLRun's preemptible-node settings, decoded from MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR / __TOLERATIONS."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()  # as MLRun holds them: dicts with key/operator/value/effect
    default_mode: str = DEFAULT_PREEMPTION_MODE

    @property
    def configured(self) -> bool:
        """mlconf.is_preemption_nodes_configured(): with neither set, every mode is a no-op."""
        return bool(self.node_selector) or bool(self.tolerations)

    @classmethod
    def from_layout(cls, layout: Layout, default_mode: str = DEFAULT_PREEMPTION_MODE) -> "MLRunPreemption":
        """The selector and tolerations the toolkit exports for a layout (mltools), without the env round trip."""
        tolerations = tuple(Toleration.for_taint(t).to_dict() for t in mltools.spot_taints(layout))
        return cls(mltools.spot_node_selector(layout), tolerations, default_mode)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "MLRunPreemption":
        """Decoded from the MLRUN_* environment the stack gives the MLRun API service."""
        decoded = mltools.decode_mlrun_env(env)
        return cls(dict(decoded["node_selector"]), tuple(decoded["tolerations"]),
                   decoded["preemption_mode"] or DEFAULT_PREEMPTION_MODE)


def _v1_toleration(t: Mapping[str, Any]) -> tuple:
    """A toleration as kubernetes.client.V1Toleration compares it (MLRun prunes and merges by equality)."""
    return (t.get("effect"), t.get("key"), t.get("operator"), t.get("tolerationSeconds", t.get("toleration_seconds")),
            t.get("value"))


def _camel_toleration(t: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: t[k] for k in ("key", "operator", "value", "effect") if t.get(k) is not None}
    seconds = t.get("tolerationSeconds", t.get("toleration_seconds"))
    if seconds is not None:
        out["tolerationSeconds"] = seconds
    return out


def _v1_requirement(r: Mapping[str, Any]) -> tuple:
    return (r.get("key"), r.get("operator"), tuple(r.get("values") or ()))


def _requirements(settings: MLRunPreemption, operator: str) -> list[dict[str, Any]]:
    """generate_preemptible_node_selector_requirements: one requirement per selector pair."""
    return [{"key": k, "operator": operator, "values": [v]} for k, v in settings.node_selector.items()]


def _node_affinity(spec: dict[str, Any]) -> dict[str, Any]:
    return spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})


def _override_required(spec: dict[str, Any], terms: list[dict[str, Any]]) -> None:
    _node_affinity(spec)[_REQUIRED] = {"nodeSelectorTerms": terms}


def _prune_requirements(spec: dict[str, Any], prune: list[dict[str, Any]]) -> None:
    """_prune_affinity_node_selector_requirement: drop matching expressions, then empty terms and affinities."""
    node_affinity = (spec.get("affinity") or {}).get("nodeAffinity")
    if not node_affinity or not prune:
        return
    drop = {_v1_requirement(r) for r in prune}
    new_terms = []
    for term in (node_affinity.get(_REQUIRED) or {}).get("nodeSelectorTerms") or []:
        kept = [e for e in term.get("matchExpressions") or [] if _v1_requirement(e) not in drop]
        if kept or term.get("matchFields"):
            new_terms.append({**({"matchExpressions": kept} if kept else {}),
                              **({"matchFields": term["matchFields"]} if term.get("matchFields") else {})})
    if not node_affinity.get(_PREFERRED) and not new_terms:
        spec["affinity"].pop("nodeAffinity")
        return
    if new_terms:
        node_affinity[_REQUIRED] = {"nodeSelectorTerms": new_terms}
    else:
        node_affinity.pop(_REQUIRED, None)


def _prune_tolerations(spec: dict[str, Any], prune: Sequence[Mapping[str, Any]]) -> None:
    if not prune or not spec.get("tolerations"):
        return
    drop = {_v1_toleration(t) for t in prune}
    spec["tolerations"] = [t for t in spec["tolerations"] if _v1_toleration(t) not in drop]


def _merge_tolerations(spec: dict[str, Any], add: Sequence[Mapping[str, Any]]) -> None:
    if not add:
        return
    current = spec.setdefault("tolerations", [])
    have = {_v1_toleration(t) for t in current}
    for t in add:
        if _v1_toleration(t) not in have:
            current.append(_camel_toleration(t))
            have.add(_v1_toleration(t))


def _prune_node_selector(spec: dict[str, Any], selector: Mapping[str, str]) -> None:
    current = spec.get("nodeSelector")
    if not selector or not current:
        return
    for key, value in selector.items():
        if value and current.get(key) == value:
            current.pop(key)


def enrich_preemption(spec: Mapping[str, Any], mode: str, settings: MLRunPreemption) -> dict[str, Any]:
    """A copy of `spec` enriched as MLRun's enrich_function_preemption_spec does for `mode`.

    allow: drop preemptible In/NotIn affinity and node selector, add the tolerations.
    constrain: add the tolerations, REPLACE required affinity with one In term per selector pair (ORed).
    prevent: drop preemptible tolerations, In affinity and node selector; only when no tolerations are
    configured, REPLACE required affinity with a single term of NotIn expressions (otherwise the taint keeps
    the pod off spot). none: nothing. With no preemptible settings every mode is a no-op.
    """
    if mode not in PREEMPTION_MODES:
        raise ValueError(f"preemption mode {mode!r} is not one of {', '.join(PREEMPTION_MODES)}")
    out = copy.deepcopy(dict(spec))
    if not settings.configured or mode == "none":
        return out
    tolerations = [_camel_toleration(t) for t in settings.tolerations]
    if mode == "prevent":
        _prune_tolerations(out, tolerations)
        _prune_requirements(out, _requirements(settings, "In"))
        _prune_node_selector(out, settings.node_selector)
        if not tolerations:
            _override_required(out, [{"matchExpressions": _requirements(settings, "NotIn")}])
    elif mode == "constrain":
        _merge_tolerations(out, tolerations)
        _override_required(out, [{"matchExpressions": [r]} for r in _requirements(settings, "In")])
    else:  # allow
        _prune_requirements(out, _requirements(settings, "NotIn"))
        _prune_requirements(out, _requirements(settings, "In"))
        _prune_node_selector(out, settings.node_selector)
        _merge_tolerations(out, tolerations)
    # _clear_affinity_if_initialized_but_empty / _clear_tolerations_if_initialized_but_empty
    if "affinity" in out and not any(out["affinity"].get(k) for k in ("nodeAffinity", "podAffinity",
                                                                        "podAntiAffinity")):
        out.pop("affinity")
    if "tolerations" in out and not out["tolerations"]:
        out.pop("tolerations")
    if "nodeSelector" in out and not out["nodeSelector"]:
        out.pop("nodeSelector")
    return out


# --- profiles -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """A kind of workload, as the PodSpec its tool would submit, plus what it is promised."""

    name: str
    description: str
    spec: Mapping[str, Any]
    user: bool = True  # user workloads must never reach the initial group
    preemption_mode: str | None = None  # MLRun's mode when MLRun built the pod
    gpu: bool = False  # must reach GPU groups only
    spot_only: bool = False  # asked for spot nodes outside MLRun (Polyaxon's spot environment)
    expected_groups: tuple[str, ...] | None = None  # system pods: exactly these groups, no more, no fewer

    def pod(self) -> Pod:
        return Pod.from_spec(self.spec, self.name)


@dataclass(frozen=True)
class ProfileInputs:
    """What the profiles are built from besides the layout. Defaults follow the tools' own defaults."""

    mlrun: MLRunPreemption
    # MLRUN_DEFAULT_FUNCTION_POD_RESOURCES as a container `resources` dict; {} leaves it to the LimitRange.
    job_resources: Mapping[str, Any] = field(default_factory=dict)
    priority_class: str = USER_PRIORITY_CLASS
    # MLRUN_DEFAULT_FUNCTION_NODE_SELECTOR: merged under every MLRun function's own selector before enrichment.
    mlrun_node_selector: Mapping[str, str] = field(default_factory=dict)
    jupyter_node_selector: Mapping[str, str] | None = None  # None: select the jupyter group when there is one
    polyaxon_spot_environment: Mapping[str, Any] | None = None  # nodeSelector + tolerations; None: from the layout

    @classmethod
    def for_stack(cls, cfg: StackConfig, layout: Layout) -> "ProfileInputs":
        """Inputs from what the stack exports: the MLRUN_* env (decoded as MLRun decodes it) and Polyaxon's
        environments, so the profiles prove the settings users get, not a second derivation of them."""
        workloads = build_workloads(cfg)
        env = mltools.mlrun_env(layout, workloads)
        decoded = mltools.decode_mlrun_env(env)
        resources = {kind: dict(v) for kind, v in decoded["resources"].items() if v}
        environments = mltools.polyaxon_environments(layout)
        spot = next((environments[g.name] for g in layout.spot_groups if g.name in environments), None)
        raw_selector = env.get(DEFAULT_NODE_SELECTOR_ENV)
        selector = json.loads(base64.b64decode(raw_selector)) if raw_selector else {}
        return cls(MLRunPreemption.from_env(env), resources, decoded["default_priority_class"] or USER_PRIORITY_CLASS,
                   mlrun_node_selector=selector or {}, polyaxon_spot_environment=spot)


def _container(name: str, image: str, resources: Mapping[str, Any] | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name, "image": image}
    if resources:
        c["resources"] = copy.deepcopy(dict(resources))
    return c


def mlrun_pod_spec(inputs: ProfileInputs, mode: str, image: str = "mlrun/mlrun", gpus: int = 0,
                   restart_policy: str = "Never") -> dict[str, Any]:
    """The PodSpec MLRun submits for a function: default resources, priority class and node selector
    (config < function, empty values dropped, as MLRun merges them), then the preemption enrichment."""
    resources = _with_gpu(inputs.job_resources, gpus) if gpus else inputs.job_resources
    spec: dict[str, Any] = {"containers": [_container("base", image, resources)],
                            "priorityClassName": inputs.priority_class, "restartPolicy": restart_policy}
    selector = {k: v for k, v in inputs.mlrun_node_selector.items() if v}
    if selector:
        spec["nodeSelector"] = selector
    return enrich_preemption(spec, mode, inputs.mlrun)


def _with_gpu(resources: Mapping[str, Any], gpus: int) -> dict[str, Any]:
    """MLRun's gpus()/with_limits(gpus=): the GPU goes into limits (the API server copies it to requests)."""
    out = copy.deepcopy(dict(resources))
    out.setdefault("limits", {})[GPU_RESOURCE] = gpus
    return out


def builtin_profiles(layout: Layout, inputs: ProfileInputs | None = None) -> tuple[list[Profile], list[str]]:
    """The built-in profiles for a layout, and notes on profiles left out because the layout cannot host them."""
    inputs = inputs or ProfileInputs(MLRunPreemption.from_layout(layout))
    mlrun, pc = inputs.mlrun, inputs.priority_class
    default_mode = mlrun.default_mode
    notes: list[str] = []
    profiles: list[Profile] = []

    for mode in PREEMPTION_MODES:
        profiles.append(Profile(f"mlrun-job-{mode}", f"MLRun job, preemption mode {mode}",
                                mlrun_pod_spec(inputs, mode), preemption_mode=mode))

    nuclio = mlrun_pod_spec(inputs, default_mode, "nuclio/processor", restart_policy="Always")
    profiles.append(Profile("nuclio-function", f"Nuclio function deployed by MLRun (default mode {default_mode})",
                            nuclio, preemption_mode=default_mode))

    jupyter_groups = [g for g in layout.groups if g.role == JUPYTER_ROLE]
    selector = inputs.jupyter_node_selector
    placement: dict[str, Any] | None = None
    if selector is not None:
        placement = {"nodeSelector": dict(selector)} if selector else {}
    elif jupyter_groups:
        # Deployed with the group's exported environment: its selector and the toleration of a dedicated group.
        placement = mltools.polyaxon_environment(jupyter_groups[0], layout)
    if placement is None:
        notes.append("no Jupyter group in this layout (no development work on a production cluster): "
                     "the Jupyter profile is left out")
    else:
        spec = {"containers": [_container("jupyter", "quay.io/jupyter/base-notebook")],
                "priorityClassName": pc}
        spec.update({k: copy.deepcopy(v) for k, v in placement.items() if v})
        profiles.append(Profile("jupyter-server", "Jupyter notebook server", spec))

    if layout.gpu_groups:
        gpu = mlrun_pod_spec(inputs, default_mode, "mlrun/mlrun-gpu", gpus=1)
        profiles.append(Profile("gpu-training-job", f"MLRun job with gpus(1) (default mode {default_mode})",
                                gpu, preemption_mode=default_mode, gpu=True))
    else:
        notes.append("no GPU group in this layout: GPU jobs would stay Pending; the GPU profile is left out")

    env = inputs.polyaxon_spot_environment
    if env is None and layout.spot_groups:
        env = mltools.polyaxon_environment(layout.spot_groups[0], layout)
    if env is None:
        notes.append("no spot group in this layout: the Polyaxon spot-environment profile is left out")
    else:
        spec = {"containers": [_container("polyaxon-main", "polyaxon/polyaxon-examples")], "restartPolicy": "Never"}
        spec.update(copy.deepcopy(dict(env)))
        profiles.append(Profile("polyaxon-spot-experiment", "Polyaxon experiment using the spot environment", spec,
                                spot_only=True))

    # Core services are placed like the toolkit places CoreDNS and the autoscaler (addons.py).
    initial = tuple(g.name for g in layout.groups if g.is_initial)
    core = {"containers": [_container("service", "mlrun/mlrun-api")], "priorityClassName": SYSTEM_PRIORITY_CLASS,
            **addons.coredns_configuration()}
    profiles.append(Profile("core-platform-service", "Core platform service (MLRun API, CoreDNS, autoscaler, ...)",
                            core, user=False, expected_groups=initial))
    plugin = addons.device_plugin_values(layout)
    if plugin is not None:
        spec = {"containers": [_container("nvidia-device-plugin-ctr", "nvcr.io/nvidia/k8s-device-plugin")],
                "priorityClassName": "system-node-critical", **plugin}
        profiles.append(Profile("nvidia-device-plugin", "NVIDIA device plugin DaemonSet (must run on every GPU node)",
                                spec, user=False, expected_groups=tuple(g.name for g in layout.gpu_groups)))
    if not mlrun.configured:
        why = "no spot group" if not layout.spot_groups else "although the layout has spot groups"
        notes.append(f"MLRun's preemptible-node settings are empty ({why}): MLRun ignores preemption modes, "
                     "so allow and constrain behave like none and constrain-mode jobs run on on-demand nodes")
    return profiles, notes


# --- invariants -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    profile: str
    message: str

    def __str__(self) -> str:
        return f"{self.profile}: {self.message}"


@dataclass(frozen=True)
class InvariantReport:
    placements: tuple[tuple[Profile, PodPlacement], ...]
    errors: tuple[Finding, ...]
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


def _names(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


def check_invariants(layout: Layout, profiles: Sequence[Profile], mlrun: MLRunPreemption,
                     notes: Sequence[str] = ()) -> InvariantReport:
    """Place every profile and report each broken placement promise as an error."""
    spot = {g.name for g in layout.spot_groups}
    gpu = {g.name for g in layout.gpu_groups}
    initial = {g.name for g in layout.groups if g.is_initial}
    errors: list[Finding] = []
    placements = []
    templates = node_templates(layout)  # once, not once per profile
    for profile in profiles:
        result = place(profile.pod(), templates)
        placements.append((profile, result))
        reach = set(result.reachable)

        def err(message: str) -> None:
            errors.append(Finding(profile.name, message))

        if not reach:
            err("reaches no node group; its pods would stay Pending")
        mode = profile.preemption_mode
        if mode in ("prevent", "none") and reach & spot:
            err(f"preemption mode {mode} reaches spot group(s) {_names(sorted(reach & spot))}")
        if (mode == "constrain" and mlrun.configured) or profile.spot_only:
            if reach - spot:
                err(f"must run on spot nodes only but reaches on-demand group(s) {_names(sorted(reach - spot))}")
            if not reach & spot:
                err("must run on spot nodes but reaches no spot group")
        if mode == "allow" and mlrun.configured and not profile.gpu:
            if not reach & spot:
                err("preemption mode allow reaches no spot group")
            if not reach - spot - initial:
                err("preemption mode allow reaches no on-demand workload group")
        if profile.gpu and reach - gpu:
            err(f"GPU job reaches non-GPU group(s) {_names(sorted(reach - gpu))}")
        if profile.user and not profile.gpu and reach & gpu:
            err(f"CPU-only workload reaches GPU group(s) {_names(sorted(reach & gpu))}; "
                "GPU nodes would fill up with pods that do not use their GPUs")
        if profile.expected_groups is not None and reach != set(profile.expected_groups):
            missing, extra = set(profile.expected_groups) - reach, reach - set(profile.expected_groups)
            if missing:
                err(f"must run on {_names(sorted(missing))} but cannot")
            if extra:
                err(f"must stay off {_names(sorted(extra))} but can land there")
        if profile.user and reach & initial:
            err(f"user workload reaches the initial group {_names(sorted(reach & initial))}, "
                "which is reserved for core services")
    unknown = [f"group {t.group}: instance type(s) {', '.join(t.unknown_instance_types)} not in the instance table; "
               "resource fit is not checked for them" for t in templates if t.unknown_instance_types]
    return InvariantReport(tuple(placements), tuple(errors), tuple(notes) + tuple(unknown))


def check_layout(layout: Layout, inputs: ProfileInputs | None = None) -> InvariantReport:
    """Build the built-in profiles for a layout and check the invariants."""
    inputs = inputs or ProfileInputs(MLRunPreemption.from_layout(layout))
    profiles, notes = builtin_profiles(layout, inputs)
    return check_invariants(layout, profiles, inputs.mlrun, notes)
