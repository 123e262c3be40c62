"""The add-on versions of each Kubernetes minor, from generated upstream data (data/addon_versions.json).

scripts/generators/generate_addon_versions.py writes the table from upstream release tags (chart `Chart.yaml` version
and appVersion, the autoscaler's image releases, Karpenter's compatibility matrix, the EKS AMI release notes); its
`source` block records the tags and commits. A stack whose minor the table has no pinned version of an add-on
it installs is refused with the minors that have one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from .eks_versions import minor_key

CLUSTER_AUTOSCALER = "cluster-autoscaler"
NVIDIA_DEVICE_PLUGIN = "nvidia-device-plugin"
KARPENTER = "karpenter"
KARPENTER_CRD = "karpenter-crd"
# The GPU capacity charts (issue 21): on EFA groups, MIG groups (the GPU operator as MIG manager), gpuMetrics.
EFA_DEVICE_PLUGIN = "aws-efa-k8s-device-plugin"
GPU_OPERATOR = "gpu-operator"
DCGM_EXPORTER = "dcgm-exporter"
# GPUs through Dynamic Resource Allocation (issue 32): on gpuAllocation: dra groups.
NVIDIA_DRA_DRIVER = "nvidia-dra-driver-gpu"
# Teams on one cluster (issue 33): Kueue, installed only when the stack has `teams`.
KUEUE = "kueue"
AL2023_AMI = "al2023Ami"
DATA_FILE = "mlplatform_core/data/addon_versions.json"


@cache
def snapshot() -> dict[str, Any]:
    return json.loads(resources.files("mlplatform_core").joinpath("data/addon_versions.json").read_text("utf-8"))


def of_minor(minor: str) -> Mapping[str, Any]:
    """Every pinned add-on of the minor ({} for a minor the table does not cover)."""
    return snapshot()["minors"].get(minor, {})


def pinned(addon: str, minor: str) -> Mapping[str, Any] | None:
    """The add-on's pin for the minor ({chart, image, ...}), or None when none supports the minor."""
    return of_minor(minor).get(addon)


def supported(addon: str) -> list[str]:
    """The minors with a pinned version of the add-on, oldest first."""
    return sorted((m for m, row in snapshot()["minors"].items() if addon in row), key=minor_key)


def chart_source(addon: str) -> Mapping[str, str]:
    """The chart's repository and the image repository its values point at by default."""
    return snapshot()["charts"][addon]


def coverage_problem(addons: Iterable[str], minor: str) -> str | None:
    """Why the stack's add-ons cannot run on `minor` (none of them pinned for it), or None."""
    missing = [a for a in addons if pinned(a, minor) is None]
    if not missing:
        return None
    works = sorted(set.intersection(*(set(supported(a)) for a in addons)), key=minor_key) if addons else []
    names = ", ".join(missing)
    return (
        f"{minor}: no pinned {names} supports Kubernetes {minor} ({DATA_FILE}, generated "
        f"{snapshot()['generated']}); use one of {', '.join(works) or 'none'}, or regenerate the add-on versions "
        "(scripts/generators/generate_addon_versions.py) once upstream publishes them"
    )
