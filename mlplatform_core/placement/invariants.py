"""The placement invariants every stack must satisfy: the built-in profiles through the scheduler's filters.

`check_invariants` places every profile and reports each broken promise as an error:

- every profile reaches at least one group;
- prevent and none never reach a spot group;
- constrain (and the Polyaxon spot experiment) reach spot groups only, at least one;
- allow reaches a spot group and an on-demand workload group;
- GPU jobs reach GPU groups only, and CPU-only user workloads stay off them; EFA jobs reach EFA groups only;
- no user workload reaches the initial group;
- system pods reach exactly their groups (core services: initial; every DaemonSet: the groups it serves);
- with the stack's workload layer: MLRun's pods are admitted into its namespace (its LimitRange fills and caps
  their resources), and a pod taking each GPU or EFA node whole gets past that LimitRange and lands on its
  group (whole_nodes.py): a group no such pod can use is an error naming the cap and the edit.

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..model.config import StackConfig
from ..model.layout import Layout
from ..model.layout.gpu import whole_nodes
from ..model.scheduling import GROUP_LABEL, ROLE_LABEL
from ..model.workloads import Workloads, build_workloads, manifests
from .admission import ClusterObjects, admit
from .filters import PodPlacement, place, place_admitted
from .mlrun_preemption import MLRunPreemption
from .profiles import Profile, ProfileInputs, builtin_profiles
from .templates import node_templates
from .whole_nodes import limit_edit, whole_node_profiles


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


@dataclass(frozen=True)
class _Groups:
    """The layout's node sources by kind, as the promises name them (while migrating, kept groups too)."""

    spot: frozenset[str]
    gpu: frozenset[str]
    efa: frozenset[str]
    initial: frozenset[str]

    @classmethod
    def of(cls, layout: Layout) -> _Groups:
        sources = layout.node_sources
        return cls(
            frozenset(name for name, g in sources if g.preemptible),
            frozenset(name for name, g in sources if g.gpu),
            frozenset(name for name, g in sources if g.efa),
            frozenset(name for name, g in sources if g.is_initial),
        )


def _spot_promises(profile: Profile, reach: set[str], groups: _Groups, mlrun: MLRunPreemption) -> list[str]:
    """What preemption modes (and Polyaxon's spot environment) promise about spot nodes."""
    out = []
    spot, mode = groups.spot, profile.preemption_mode
    if mode in ("prevent", "none") and reach & spot:
        out.append(f"preemption mode {mode} reaches spot group(s) {_names(sorted(reach & spot))}")
    if (mode == "constrain" and mlrun.configured) or profile.spot_only:
        if reach - spot:
            out.append(f"must run on spot nodes only but reaches on-demand group(s) {_names(sorted(reach - spot))}")
        if not reach & spot:
            out.append("must run on spot nodes but reaches no spot group")
    # A CPU job in allow mode should be able to use spot capacity: CPU spot capacity, if the layout has any
    # (GPU spot groups are for GPU work; their taint keeps CPU jobs off).
    if mode == "allow" and mlrun.configured and not profile.gpu and spot - groups.gpu:
        if not reach & spot:
            out.append("preemption mode allow reaches no spot group")
        if not reach - spot - groups.initial:
            out.append("preemption mode allow reaches no on-demand workload group")
    return out


def _group_promises(profile: Profile, reach: set[str], groups: _Groups) -> list[str]:
    """What GPU, EFA, system and user workloads promise about the groups they reach."""
    out = []
    if profile.gpu and reach - groups.gpu:
        out.append(f"GPU job reaches non-GPU group(s) {_names(sorted(reach - groups.gpu))}")
    if profile.efa and reach - groups.efa:
        out.append(f"EFA job reaches group(s) without EFA {_names(sorted(reach - groups.efa))}")
    if profile.user and not profile.gpu and reach & groups.gpu:
        out.append(
            f"CPU-only workload reaches GPU group(s) {_names(sorted(reach & groups.gpu))}; "
            "GPU nodes would fill up with pods that do not use their GPUs"
        )
    if profile.expected_groups is not None and reach != set(profile.expected_groups):
        missing, extra = set(profile.expected_groups) - reach, reach - set(profile.expected_groups)
        if missing:
            out.append(f"must run on {_names(sorted(missing))} but cannot")
        if extra:
            out.append(f"must stay off {_names(sorted(extra))} but can land there")
    if profile.user and reach & groups.initial:
        out.append(
            f"user workload reaches the initial group {_names(sorted(reach & groups.initial))}, "
            "which is reserved for core services"
        )
    return out


def _broken_promises(profile: Profile, result: PodPlacement, groups: _Groups, mlrun: MLRunPreemption) -> list[str]:
    """Every promise `profile` breaks where it lands."""
    if result.rejected:
        edit = limit_edit(profile.namespace or "", result.rejected, profile.spec)
        return [f"is refused by the API server in namespace {profile.namespace}: {'; '.join(result.rejected)}{edit}"]
    out = []
    reach = set(result.reachable)
    if profile.must_reach is not None and profile.must_reach not in reach:
        why = "; ".join(r.message for r in result.group(profile.must_reach).reasons)
        out.append(f"cannot land on {profile.must_reach}, the group it is sized for: {why}")
    if not reach and profile.expected_groups != ():  # () : a DaemonSet meant to run nowhere in this layout
        out.append("reaches no node group; its pods would stay Pending")
    return out + _spot_promises(profile, reach, groups, mlrun) + _group_promises(profile, reach, groups)


def check_invariants(
    layout: Layout,
    profiles: Sequence[Profile],
    mlrun: MLRunPreemption,
    notes: Sequence[str] = (),
    cluster: ClusterObjects | None = None,
) -> InvariantReport:
    """Place every profile and report each broken placement promise as an error. With the stack's `cluster`
    objects, a profile that names a namespace is first admitted there as the API server would (its LimitRange
    fills and caps the resources): a pod it refuses lands nowhere, however the nodes look."""
    groups = _Groups.of(layout)
    errors: list[Finding] = []
    placements = []
    templates = node_templates(layout)  # once, not once per profile
    for profile in profiles:
        if cluster is not None and profile.namespace is not None:
            admission = admit(profile.spec, cluster, profile.name, profile.namespace)
            result = place_admitted(replace(admission, claims=profile.claims), templates)
        else:
            result = place(profile.pod(), templates, profile.claims)
        placements.append((profile, result))
        errors += [Finding(profile.name, message) for message in _broken_promises(profile, result, groups, mlrun)]
    unknown = [
        f"group {t.group}: instance type(s) {', '.join(t.unknown_instance_types)} described only by network limits "
        "in the instance catalog; resource fit is not checked for them"
        for t in templates
        if t.unknown_instance_types
    ]
    return InvariantReport(tuple(placements), tuple(errors), tuple(notes) + tuple(unknown))


def indistinguishable_groups(layout: Layout) -> list[str]:
    """Warnings for groups no workload can tell apart but by the per-group label: the same labels otherwise,
    and the same taints. A pod that selects their role (as MLRun's and Polyaxon's settings do) lands on any."""
    seen: dict[tuple, list[str]] = {}
    for g in layout.groups:
        labels = tuple(sorted((k, v) for k, v in g.labels.items() if k != GROUP_LABEL))
        seen.setdefault((labels, tuple(sorted(g.taints))), []).append(g.name)
    out = []
    for names in seen.values():
        if len(names) > 1:
            role = layout.group(names[0]).role
            out.append(
                f"warning: node groups {', '.join(names)} look the same to every workload (same labels and taints "
                f"but {GROUP_LABEL}): a pod selecting {ROLE_LABEL}={role} lands on any of them; select "
                f"{GROUP_LABEL}=<group> to choose one, or give each a label of its own"
            )
    return out


def check_layout(
    layout: Layout, inputs: ProfileInputs | None = None, workloads: Workloads | None = None
) -> InvariantReport:
    """Build the built-in profiles for a layout and check the invariants. With the stack's workload layer, MLRun's
    profiles are admitted into its namespace, and a pod taking each GPU or EFA node whole is proven admitted."""
    inputs = inputs or ProfileInputs(MLRunPreemption.from_layout(layout))
    profiles, notes = builtin_profiles(layout, inputs)
    cluster = None
    if workloads is not None:
        cluster = ClusterObjects.from_manifests(manifests(workloads))
        ns = workloads.mlrun_namespace
        profiles = [replace(p, namespace=ns) if p.preemption_mode is not None else p for p in profiles]
        profiles += whole_node_profiles(layout, inputs, profiles, ns)
        notes = [*notes, *workloads.notes]
    return check_invariants(layout, profiles, inputs.mlrun, [*notes, *indistinguishable_groups(layout)], cluster)


def stack_report(cfg: StackConfig, layout: Layout) -> InvariantReport:
    """The invariant check with the profiles built from what the stack exports to MLRun and Polyaxon, MLRun's
    admitted into its namespace as the stack's LimitRange admits them."""
    workloads = build_workloads(cfg, whole_nodes(layout.node_sources))
    return check_layout(layout, ProfileInputs.for_stack(cfg, layout), workloads)
