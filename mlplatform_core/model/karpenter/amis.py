"""The node image of every EC2NodeClass: a pinned AMI release, never a moving one unless the stack says so.

An alias `al2023@latest` follows every AMI release AWS publishes: Karpenter then sees each node as drifted and
replaces them all, with no change in the stack. Unset, `karpenter.amiVersion` takes the AL2023 AMI release
pinned for the cluster's Kubernetes minor (addon_versions.json, generated from awslabs/amazon-eks-ami's release
notes); `latest` is taken only where the stack writes it (the policy pack flags it in prod). Bottlerocket
releases (v1.x.y) are not pinned by the toolkit: a Bottlerocket pool needs the setting.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from .. import addon_versions
from ..config import StackConfig

LATEST = "latest"
AL2023, BOTTLEROCKET = "AL2023", "Bottlerocket"
RELEASE = {AL2023: re.compile(r"^v\d{8}$"), BOTTLEROCKET: re.compile(r"^v\d+\.\d+\.\d+$")}
EXAMPLE = {AL2023: "v20260714", BOTTLEROCKET: "v1.26.2"}
ALIAS = {AL2023: "al2023", BOTTLEROCKET: "bottlerocket"}


def pinned_release(minor: str) -> str | None:
    """The AL2023 AMI release pinned for the minor."""
    return addon_versions.of_minor(minor).get(addon_versions.AL2023_AMI)


def ami_version(cfg: StackConfig) -> str | None:
    """The release every node class's alias names: the stack's setting, else the pin of its minor."""
    return cfg.karpenter.ami_version or pinned_release(cfg.kubernetes_version)


def alias(family: str, cfg: StackConfig) -> str:
    return f"{ALIAS[family]}@{ami_version(cfg) or LATEST}"


def ami_problems(cfg: StackConfig, families: Collection[str]) -> list[str]:
    """Why the pools' AMI families cannot use the stack's amiVersion (or its default), each a sentence."""
    chosen = cfg.karpenter.ami_version
    if chosen == LATEST or not families:
        return []
    if chosen is None:
        if BOTTLEROCKET in families:
            return [
                "unset, but a pool runs Bottlerocket, whose releases the toolkit does not pin (it pins AL2023 AMI "
                f"releases); set a Bottlerocket release such as {EXAMPLE[BOTTLEROCKET]}, or latest to follow every "
                "release (which replaces every node on each one)"
            ]
        if pinned_release(cfg.kubernetes_version) is None:
            return [
                f"unset, and no AL2023 AMI release is pinned for Kubernetes {cfg.kubernetes_version} "
                f"({addon_versions.DATA_FILE}); set one such as {EXAMPLE[AL2023]}, or regenerate the data"
            ]
        return []
    wrong = sorted(f for f in families if not RELEASE[f].match(chosen))
    if not wrong:
        return []
    if len(families) > 1:
        return [
            f"{chosen!r} names one AMI family's release, but the pools run {' and '.join(sorted(families))}, whose "
            f"releases differ ({', '.join(f'{f} e.g. {EXAMPLE[f]}' for f in sorted(families))}); use latest, "
            "or one AMI family"
        ]
    (family,) = wrong
    return [f"{chosen!r} is not a {family} AMI release such as {EXAMPLE[family]} (or latest)"]
