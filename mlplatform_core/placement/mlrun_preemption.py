"""MLRun's preemption modes, applied to a PodSpec exactly as MLRun's `enrich_function_preemption_spec` does.

Pure Python (domain-facts section 2; mlrun/mlrun: mlrun/k8s_utils.py and the runtime
pod enrichment). The settings are MLRun's preemptible-node selector and tolerations,
decoded from the MLRUN_* environment the stack exports.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.layout import Layout
from ..model.ml_settings import mlrun as mlrun_settings
from ..model.scheduling import Toleration

PREEMPTION_MODES = ("allow", "constrain", "prevent", "none")
DEFAULT_PREEMPTION_MODE = "prevent"  # MLRun's default (function_defaults.preemption_mode)

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


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
    def from_layout(cls, layout: Layout, default_mode: str = DEFAULT_PREEMPTION_MODE) -> MLRunPreemption:
        """The selector and tolerations the toolkit exports for a layout, without the env round trip."""
        tolerations = tuple(Toleration.for_taint(t).to_dict() for t in mlrun_settings.spot_taints(layout))
        return cls(mlrun_settings.spot_node_selector(layout), tolerations, default_mode)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> MLRunPreemption:
        """Decoded from the MLRUN_* environment the stack gives the MLRun API service."""
        decoded = mlrun_settings.decode_mlrun_env(env)
        return cls(
            dict(decoded["node_selector"]),
            tuple(decoded["tolerations"]),
            decoded["preemption_mode"] or DEFAULT_PREEMPTION_MODE,
        )


def _v1_toleration(t: Mapping[str, Any]) -> tuple:
    """A toleration as kubernetes.client.V1Toleration compares it (MLRun prunes and merges by equality)."""
    return (
        t.get("effect"),
        t.get("key"),
        t.get("operator"),
        t.get("tolerationSeconds", t.get("toleration_seconds")),
        t.get("value"),
    )


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
            new_terms.append(
                {
                    **({"matchExpressions": kept} if kept else {}),
                    **({"matchFields": term["matchFields"]} if term.get("matchFields") else {}),
                }
            )
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
    if "affinity" in out and not any(
        out["affinity"].get(k) for k in ("nodeAffinity", "podAffinity", "podAntiAffinity")
    ):
        out.pop("affinity")
    if "tolerations" in out and not out["tolerations"]:
        out.pop("tolerations")
    if "nodeSelector" in out and not out["nodeSelector"]:
        out.pop("nodeSelector")
    return out
