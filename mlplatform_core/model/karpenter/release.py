"""The Karpenter release the toolkit pins, from generated upstream data (mlplatform_core/data/karpenter.json).

scripts/generate_karpenter_data.py writes the snapshot from the pinned release's own files: the
compatibility matrix input (which Kubernetes minors the release supports), the getting-started
CloudFormation template (controller IAM policies, interruption queue and rules); its `source` block
records the commits. A stack whose Kubernetes minor the release does not support is a config error.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
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
