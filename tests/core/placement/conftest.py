"""Shared by the placement tests: MLRun settings, user specs, the shipped stacks' reports, templates, pods."""

from __future__ import annotations

import dataclasses
from functools import cache

from mlplatform_core.model.config import StackConfig, parse
from mlplatform_core.model.layout import Layout, build_layout
from mlplatform_core.placement.invariants import check_layout
from mlplatform_core.placement.mlrun_preemption import MLRunPreemption
from mlplatform_core.placement.pods import Pod
from mlplatform_core.placement.profiles import ProfileInputs
from mlplatform_core.placement.templates import node_template
from tests.conftest import stack_config

LIFECYCLE = "app.iguazio.com/lifecycle"
SPOT_TOLERATION = {"key": LIFECYCLE, "operator": "Equal", "value": "preemptible", "effect": "NoSchedule"}
SETTINGS = MLRunPreemption({LIFECYCLE: "preemptible"}, (SPOT_TOLERATION,))
SELECTOR_ONLY = MLRunPreemption({LIFECYCLE: "preemptible", "pool": "spot"}, ())
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@cache
def shipped_stack(stack: str) -> tuple[StackConfig, Layout]:
    cfg = parse(stack_config(stack))
    return cfg, build_layout(cfg, stack)


def stack_report(stack: str):
    cfg, layout = shipped_stack(stack)
    return check_layout(layout, ProfileInputs.for_stack(cfg, layout))


def reach(report, profile: str) -> tuple[str, ...]:
    return next(result.reachable for p, result in report.placements if p.name == profile)


def terms(spec) -> list:
    return spec["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]


def user_spec() -> dict:
    """A function spec with preemption-related and unrelated settings, as a user might have set them."""
    return {
        "containers": [{"name": "base"}],
        "nodeSelector": {LIFECYCLE: "preemptible", "team": "a"},
        "tolerations": [dict(SPOT_TOLERATION), {"key": "team", "operator": "Exists"}],
        "affinity": {
            "nodeAffinity": {
                REQUIRED: {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": LIFECYCLE, "operator": "In", "values": ["preemptible"]},
                                {"key": "disk", "operator": "In", "values": ["ssd"]},
                            ]
                        },
                        {"matchExpressions": [{"key": LIFECYCLE, "operator": "NotIn", "values": ["preemptible"]}]},
                    ]
                },
                PREFERRED: [{"weight": 1, "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}}],
            }
        },
    }


@cache
def shipped_layout(stack: str) -> Layout:
    return build_layout(parse(stack_config(stack)), stack)


def container(**resources) -> dict:
    return {"name": "c", "image": "busybox", "resources": resources} if resources else {"name": "c", "image": "busybox"}


def pod(**spec) -> Pod:
    spec.setdefault("containers", [container()])
    return Pod.from_spec(spec, "test")


def group_with(name: str = "jobs", stack: str = "dev", **changes):
    """A node template of a shipped group with some fields replaced (labels merged, taints replaced)."""
    spec = shipped_layout(stack).group(name)
    if "labels" in changes:
        changes["labels"] = {**spec.labels, **changes["labels"]}
    return node_template(dataclasses.replace(spec, **changes))


def required(*terms) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def expr(key, operator, *values) -> dict:
    out = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out
