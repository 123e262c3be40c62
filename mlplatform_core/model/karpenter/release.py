"""The Karpenter release the toolkit pins, from generated upstream data (mlplatform_core/data/karpenter.json).

scripts/generators/generate_karpenter_data.py writes the snapshot from the pinned release's own files: the
compatibility matrix input (which Kubernetes minors the release supports), the getting-started
CloudFormation template (controller IAM policies, interruption queue and rules); its `source` block
records the commits. A stack whose Kubernetes minor the release does not support is a config error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from ..eks_versions import minor_key


@cache
def snapshot() -> dict[str, Any]:
    text = resources.files("mlplatform_core").joinpath("data/karpenter.json").read_text(encoding="utf-8")
    return json.loads(text)


def version() -> str:
    """The controller's and both charts' version (chart version = app version, no "v")."""
    return str(snapshot()["release"])


def kubernetes_range() -> tuple[str, str]:
    k8s = snapshot()["kubernetes"]
    return str(k8s["min"]), str(k8s["max"])


def compatibility_error(kubernetes_version: str) -> str | None:
    """Why the pinned release cannot run on a cluster of `kubernetes_version`, or None when it can."""
    low, high = kubernetes_range()
    if minor_key(low) <= minor_key(kubernetes_version) <= minor_key(high):
        return None
    return (
        f"{kubernetes_version}: the pinned Karpenter {version()} supports Kubernetes {low} to {high} "
        "(its compatibility matrix); use one of those minors or provisioner: nodeGroups"
    )


# --- DRA (pods with ResourceClaims) ----------------------------------------------------------------
# What each Karpenter minor's controller does with pods' ResourceClaims, and the chart settings that turn it on.
# 1.14 (the pin; kubernetes-sigs/karpenter v1.14.1): core simulates DRA allocation (pkg/scheduling/dynamicresources,
# designs/dra-scheduling.md) only with `--ignore-dra-requests=false` (pkg/operator/options/options.go: env
# IGNORE_DRA_REQUESTS, default true; chart settings.ignoreDRARequests, charts/karpenter/templates/deployment.yaml),
# which also starts the device-allocation controller (pkg/controllers/controllers.go) and makes a new node wait for
# its DRA drivers' ResourceSlices (nodeclaim/lifecycle/initialization.go). Launching a node for a claim needs the
# cloud provider's ResourceSliceTemplates per instance type (cloudprovider.InstanceType.DynamicResources), which
# aws/karpenter-provider-aws v1.14.1 does not fill in (no DynamicResources in its pkg/; issue #9519, PR #9550 open):
# so on 1.14 DRA works on nodes that exist (static pools, node groups), not by dynamic provisioning. The EKS user
# guide ("Manage hardware devices") dates dynamic provisioning from Karpenter 1.15 with feature gates; no 1.15 tag
# is in the upstream snapshot (2026-08-21), so a bump to it must add its row here (tests pin the pinned minor's).
# Karpenter's current docs (karpenter.sh/docs/tasks/dra, newer than the snapshot) name a Helm value
# `settings.enableDRA` (alpha, an AWS-specific feature gate) and per-instance-type device metadata for the NVIDIA
# and EFA DRA drivers: read the 1.15 chart's values.yaml and templates for the row before trusting that name.
@dataclass(frozen=True)
class DraSupport:
    settings: Mapping[str, Any]  # the controller chart's `settings` that make it account for ResourceClaims
    dynamic: bool  # whether it launches nodes for pending claims (dynamic NodePools), not only uses existing ones
    note: str


DRA_BY_MINOR: dict[str, DraSupport] = {
    "1.14": DraSupport(
        # A string: the chart renders the env var inside `{{- with .Values.settings.ignoreDRARequests }}`, which drops
        # a boolean false (the controller then keeps its default, true); helm v4.1.4 renders "false" as
        # IGNORE_DRA_REQUESTS="false" (charts/karpenter/templates/deployment.yaml at v1.14.1).
        settings=MappingProxyType({"ignoreDRARequests": "false"}),
        dynamic=False,
        note="Karpenter 1.14 accounts for devices on nodes that exist, but its AWS provider describes no devices "
        "per instance type, so it cannot launch a node for a pending claim (aws/karpenter-provider-aws#9519)",
    ),
}


def dra_support(release: str | None = None) -> DraSupport:
    """The row of the pinned release's minor (or `release`'s); a minor without one is a bug of the bump."""
    minor = ".".join((release or version()).split(".")[:2])
    if minor not in DRA_BY_MINOR:
        raise KeyError(f"Karpenter {minor}: no DRA_BY_MINOR row; read its DRA settings upstream and add one")
    return DRA_BY_MINOR[minor]


def karpenter_supports_dra(release: str | None = None) -> bool:
    """Whether the pinned Karpenter (or `release`) provisions nodes dynamically for pods' ResourceClaims: the
    default of `gpuAllocation` for a Karpenter dynamic pool (dra when True, devicePlugin otherwise)."""
    return dra_support(release).dynamic


def dra_pool_problem(static: bool, release: str | None = None) -> str | None:
    """Why a Karpenter pool cannot allocate its GPUs with DRA on the pinned release, or None when it can: a static
    pool's nodes exist, so the scheduler allocates claims from their ResourceSlices; a dynamic pool needs a release
    that launches nodes for pending claims (karpenter_supports_dra)."""
    support = dra_support(release)
    if static or support.dynamic:
        return None
    return (
        f"gpuAllocation dra on a dynamic Karpenter pool: {support.note}; use gpuAllocation devicePlugin, or "
        "staticNodes to keep the pool's nodes running"
    )
