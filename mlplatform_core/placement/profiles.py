"""Built-in workload profiles: PodSpecs built the way each tool builds them, and what each is promised.

Pure Python, no Pulumi import. MLRun jobs in each preemption mode enriched from the
stack's MLRun preemptible-node settings (mlrun_preemption), the pods of MLRun's mpijob, spark and dask
runtimes, a Nuclio function, a
Jupyter server, a GPU training job, a Polyaxon experiment in the spot environment,
core services placed like the toolkit's add-ons (CoreDNS, the EBS CSI controller), every DaemonSet
EKS add-ons install (model/addons/node_agents: EBS CSI node, aws-node), and every Deployment and DaemonSet
the stack's charts render (model/addons/proof: the autoscaler or Karpenter, the device plugin), with their
real placement, resources and priority.

Profiles a layout cannot host (no spot, GPU or Jupyter group) are left out with a note.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model.addons import coredns, ebs_csi
from ..model.addons.core_services import core_services_placement, core_services_sources
from ..model.addons.node_agents import node_agents
from ..model.addons.proof import chart_workloads
from ..model.addons.run_by_aws import needs_node_addons
from ..model.config import StackConfig
from ..model.layout import Layout, NodeGroupSpec
from ..model.layout.gpu import whole_nodes
from ..model.layout.sharing import EFA_RESOURCE
from ..model.ml_settings import mlrun as mlrun_settings
from ..model.ml_settings import polyaxon
from ..model.scheduling import GPU_RESOURCE
from ..model.workloads import build_workloads
from .claim_profiles import claim_jobs, claim_pod
from .claims import PodClaims
from .mlrun_preemption import PREEMPTION_MODES, MLRunPreemption, enrich_preemption
from .pods import Pod

USER_PRIORITY_CLASS = "igz-workload-medium"
DEFAULT_NODE_SELECTOR_ENV = "MLRUN_DEFAULT_FUNCTION_NODE_SELECTOR"  # base64 JSON, like the preemptible settings
SYSTEM_PRIORITY_CLASS = "igz-system-critical"
JUPYTER_ROLE = "jupyter"


@dataclass(frozen=True)
class Profile:
    """A kind of workload, as the PodSpec its tool would submit, plus what it is promised."""

    name: str
    description: str
    spec: Mapping[str, Any]
    user: bool = True  # user workloads must never reach the initial group
    preemption_mode: str | None = None  # MLRun's mode when MLRun built the pod
    gpu: bool = False  # must reach GPU groups only
    efa: bool = False  # must reach EFA groups only (requests vpc.amazonaws.com/efa)
    spot_only: bool = False  # asked for spot nodes outside MLRun (Polyaxon's spot environment)
    expected_groups: tuple[str, ...] | None = None  # system pods: exactly these groups, no more, no fewer
    per_node: bool = False  # a DaemonSet: one pod per node of the groups it reaches, never moved elsewhere
    namespace: str | None = None  # admitted into this namespace first (its LimitRange); None: placed as written
    must_reach: str | None = None  # a group this pod must be able to land on (a whole-node pod: its group)
    claims: PodClaims | None = None  # its ResourceClaims, resolved (a GPU job on a DRA group: claim_profiles.py)

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
    def for_stack(cls, cfg: StackConfig, layout: Layout) -> ProfileInputs:
        """Inputs from what the stack exports: the MLRUN_* env (decoded as MLRun decodes it) and Polyaxon's
        environments, so the profiles prove the settings users get, not a second derivation of them."""
        workloads = build_workloads(cfg, whole_nodes(layout.node_sources))
        env = mlrun_settings.mlrun_env(layout, workloads)
        decoded = mlrun_settings.decode_mlrun_env(env)
        resources = {kind: dict(v) for kind, v in decoded["resources"].items() if v}
        environments = polyaxon.polyaxon_environments(layout)
        spot = next((environments[g.name] for g in _cpu_spot_groups(layout) if g.name in environments), None)
        raw_selector = env.get(DEFAULT_NODE_SELECTOR_ENV)
        selector = json.loads(base64.b64decode(raw_selector)) if raw_selector else {}
        return cls(
            MLRunPreemption.from_env(env),
            resources,
            decoded["default_priority_class"] or USER_PRIORITY_CLASS,
            mlrun_node_selector=selector or {},
            polyaxon_spot_environment=spot,
        )


def _cpu_spot_groups(layout: Layout) -> tuple[NodeGroupSpec, ...]:
    return tuple(g for g in layout.spot_groups if not g.gpu)


def _container(name: str, image: str, resources: Mapping[str, Any] | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name, "image": image}
    if resources:
        c["resources"] = copy.deepcopy(dict(resources))
    return c


def mlrun_pod_spec(
    inputs: ProfileInputs,
    mode: str,
    image: str = "mlrun/mlrun",
    gpus: int = 0,
    restart_policy: str = "Never",
    gpu_type: str = GPU_RESOURCE,
    extra_limits: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The PodSpec MLRun submits for a function: default resources, priority class and node selector
    (config < function, empty values dropped, as MLRun merges them), then the preemption enrichment."""
    resources = _with_gpu(inputs.job_resources, gpus, gpu_type) if gpus else inputs.job_resources
    if extra_limits:
        resources = copy.deepcopy(dict(resources))
        resources.setdefault("limits", {}).update(extra_limits)
    spec: dict[str, Any] = {
        "containers": [_container("base", image, resources)],
        "priorityClassName": inputs.priority_class,
        "restartPolicy": restart_policy,
    }
    selector = {k: v for k, v in inputs.mlrun_node_selector.items() if v}
    if selector:
        spec["nodeSelector"] = selector
    return enrich_preemption(spec, mode, inputs.mlrun)


def _with_gpu(resources: Mapping[str, Any], gpus: int, gpu_type: str = GPU_RESOURCE) -> dict[str, Any]:
    """MLRun's gpus()/with_limits(gpus=, gpu_type=): the GPU goes into limits (the API server copies it to
    requests), under the resource the group advertises (nvidia.com/gpu, or a MIG device with strategy mixed)."""
    out = copy.deepcopy(dict(resources))
    out.setdefault("limits", {})[gpu_type] = gpus
    return out


def _gpu_profiles(layout: Layout, inputs: ProfileInputs, mode: str) -> list[Profile]:
    """A GPU job per GPU resource the groups advertise (whole or time-sliced GPUs and single-strategy MIG devices
    are nvidia.com/gpu; mixed MIG devices have a name each), and a multi-node training job on EFA groups."""
    out = []
    plugin_groups = [g for g in layout.gpu_groups if g.gpu_allocation != "dra"]  # DRA groups: claim_jobs
    resources = sorted({g.sharing.resource if g.sharing else GPU_RESOURCE for g in plugin_groups})
    for resource in resources:
        name = "gpu-training-job" if resource == GPU_RESOURCE else f"gpu-job-{resource.split('/', 1)[1]}"
        spec = mlrun_pod_spec(inputs, mode, "mlrun/mlrun-gpu", gpus=1, gpu_type=resource)
        what = "gpus(1)" if resource == GPU_RESOURCE else f"with_limits(gpus=1, gpu_type={resource!r})"
        out.append(Profile(name, f"MLRun job with {what} (default mode {mode})", spec, preemption_mode=mode, gpu=True))
    for job in claim_jobs(layout, "mlrun/mlrun-gpu", inputs.priority_class):
        out.append(Profile(job.name, job.description, job.spec, gpu=True, claims=job.claims))
    efa = [g for g in layout.groups if g.efa]
    if efa:
        on_gpus, claims = efa[0].gpu, None
        on_claims = on_gpus and efa[0].gpu_allocation == "dra"  # its GPU through a claim (claim_profiles.py)
        gpus = 1 if on_gpus and not on_claims else 0
        spec = mlrun_pod_spec(inputs, mode, "mlrun/mlrun-gpu", gpus=gpus, extra_limits={EFA_RESOURCE: 1})
        if on_claims:
            spec, claims = claim_pod([efa[0]], spec)
        out.append(
            Profile(
                "efa-training-job",
                f"MLRun job with gpus(1) and one EFA interface, a worker of multi-node training (default mode {mode})",
                spec,
                preemption_mode=mode,
                gpu=on_gpus,
                efa=True,
                claims=claims,
            )
        )
    return out


# MLRun's other runtimes submit pods placed like a job's, in the default mode (mlrun/mlrun v1.6.4: the
# mpijob runtime's MPIJob Launcher and Worker templates take the function's nodeSelector, affinity,
# tolerations and priority class, server/api/runtime_handlers/mpijob/v1.py; spark3job.py's driver and
# executor preemption modes default to function_defaults.preemption_mode; daskjob.py's scheduler and
# workers are the function's pods): runtime, its roles, its image.
_MLRUN_RUNTIMES = (
    ("mpijob", ("launcher", "worker"), "mlrun/mlrun"),
    ("spark", ("driver", "executor"), "iguazio/spark-app"),
    ("dask", ("scheduler", "worker"), "mlrun/ml-base"),
)


def builtin_profiles(layout: Layout, inputs: ProfileInputs | None = None) -> tuple[list[Profile], list[str]]:
    """The built-in profiles for a layout, and notes on profiles left out because the layout cannot host them."""
    inputs = inputs or ProfileInputs(MLRunPreemption.from_layout(layout))
    notes: list[str] = []
    profiles = _mlrun_profiles(inputs)
    profiles += _jupyter_profiles(layout, inputs, notes)
    if layout.gpu_groups:
        profiles += _gpu_profiles(layout, inputs, inputs.mlrun.default_mode)
    else:
        notes.append("no GPU group in this layout: GPU jobs would stay Pending; the GPU profile is left out")
    profiles += _polyaxon_profiles(layout, inputs, notes)
    profiles += _core_service_profiles(layout)
    profiles += _chart_and_agent_profiles(layout)
    if not inputs.mlrun.configured:
        why = "no spot group" if not layout.spot_groups else "although the layout has spot groups"
        notes.append(
            f"MLRun's preemptible-node settings are empty ({why}): MLRun ignores preemption modes, "
            "so allow and constrain behave like none and constrain-mode jobs run on on-demand nodes"
        )
    return profiles, notes


def _mlrun_profiles(inputs: ProfileInputs) -> list[Profile]:
    """An MLRun job in each preemption mode, the pods of MLRun's other runtimes and a Nuclio function."""
    default_mode = inputs.mlrun.default_mode
    profiles = [
        Profile(
            f"mlrun-job-{mode}",
            f"MLRun job, preemption mode {mode}",
            mlrun_pod_spec(inputs, mode),
            preemption_mode=mode,
        )
        for mode in PREEMPTION_MODES
    ]
    for runtime, roles, image in _MLRUN_RUNTIMES:
        restart_policy = "Always" if runtime == "dask" else "Never"
        profiles += [
            Profile(
                f"mlrun-{runtime}-{role}",
                f"MLRun {runtime} runtime's {role} (default mode {default_mode})",
                mlrun_pod_spec(inputs, default_mode, image, restart_policy=restart_policy),
                preemption_mode=default_mode,
            )
            for role in roles
        ]
    nuclio = mlrun_pod_spec(inputs, default_mode, "nuclio/processor", restart_policy="Always")
    profiles.append(
        Profile(
            "nuclio-function",
            f"Nuclio function deployed by MLRun (default mode {default_mode})",
            nuclio,
            preemption_mode=default_mode,
        )
    )
    return profiles


def _jupyter_profiles(layout: Layout, inputs: ProfileInputs, notes: list[str]) -> list[Profile]:
    """The Jupyter server where the Jupyter chart puts it, or a note when the layout has no place for it."""
    jupyter_groups = [g for g in layout.groups if g.role == JUPYTER_ROLE]
    selector = inputs.jupyter_node_selector
    placement: dict[str, Any] | None = None
    if selector is not None:
        placement = {"nodeSelector": dict(selector)} if selector else {}
    elif jupyter_groups:
        # Deployed with the group's exported environment: its selector and the toleration of a dedicated group.
        placement = polyaxon.polyaxon_environment(jupyter_groups[0], layout)
    if placement is None:
        notes.append(
            "no Jupyter group in this layout (no development work on a production cluster): "
            "the Jupyter profile is left out"
        )
        return []
    spec = {
        "containers": [_container("jupyter", "quay.io/jupyter/base-notebook")],
        "priorityClassName": inputs.priority_class,
    }
    spec.update({k: copy.deepcopy(v) for k, v in placement.items() if v})
    return [Profile("jupyter-server", "Jupyter notebook server", spec)]


def _polyaxon_profiles(layout: Layout, inputs: ProfileInputs, notes: list[str]) -> list[Profile]:
    """A Polyaxon CPU experiment in the spot environment, or a note when the layout has none."""
    env = inputs.polyaxon_spot_environment
    if env is None and _cpu_spot_groups(layout):
        env = polyaxon.polyaxon_environment(_cpu_spot_groups(layout)[0], layout)
    if env is None:
        # The profile is a CPU experiment: a GPU group's spot environment is for GPU work only.
        what = "only GPU spot groups" if layout.spot_groups else "no spot group"
        notes.append(f"{what} in this layout: the Polyaxon spot-environment profile (a CPU job) is left out")
        return []
    spec = {"containers": [_container("polyaxon-main", "polyaxon/polyaxon-examples")], "restartPolicy": "Never"}
    spec.update(copy.deepcopy(dict(env)))
    return [Profile("polyaxon-spot-experiment", "Polyaxon experiment using the spot environment", spec, spot_only=True)]


def _core_service_profiles(layout: Layout) -> list[Profile]:
    """Core services, placed like the toolkit places CoreDNS and the autoscaler (model/addons); on Auto
    Mode's system pool, as the EKS user guide places critical add-ons there. The EBS CSI controller too,
    unless Auto Mode's block storage runs off-cluster."""
    initial = core_services_sources(layout)
    core = {
        "containers": [_container("service", "mlrun/mlrun-api")],
        "priorityClassName": SYSTEM_PRIORITY_CLASS,
        **(coredns.coredns_configuration() if needs_node_addons(layout) else core_services_placement(layout)),
    }
    profiles = [
        Profile(
            "core-platform-service",
            "Core platform service (MLRun API, CoreDNS, ...)",
            core,
            user=False,
            expected_groups=initial,
        )
    ]
    if needs_node_addons(layout):
        controller = {
            "containers": [_container("ebs-plugin", "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver")],
            **ebs_csi.controller_pod_placement(),
        }
        profiles.append(
            Profile(
                "ebs-csi-controller",
                "EBS CSI driver controller (EKS add-on), a core service",
                controller,
                user=False,
                expected_groups=initial,
            )
        )
    return profiles


def _chart_and_agent_profiles(layout: Layout) -> list[Profile]:
    """Every workload the charts render, as they render it: controllers on the initial group, DaemonSets on
    exactly the groups they serve (none of what Auto Mode runs itself: releases.addons_of); and every
    DaemonSet the EKS add-ons install, on exactly the groups it serves."""
    profiles = [
        Profile(
            w.name,
            f"{w.workload['kind']} {w.name} of the {w.release} chart ({w.why})",
            w.pod_spec(),
            user=False,
            expected_groups=w.groups,
            per_node=w.workload["kind"] == "DaemonSet",
        )
        for w in chart_workloads(layout)
    ]
    for agent in node_agents(layout):
        spec = {"containers": [_container(agent.name, agent.name)], **copy.deepcopy(dict(agent.placement))}
        profiles.append(
            Profile(
                agent.name,
                f"{agent.name} DaemonSet of {agent.addon} ({agent.why})",
                spec,
                user=False,
                expected_groups=agent.groups,
                per_node=True,
            )
        )
    return profiles
