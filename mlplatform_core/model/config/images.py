"""Where the add-ons' images are pulled from: their upstream registries, or a mirror (`imageRegistry`).

The charts' images live on registry.k8s.io (Cluster Autoscaler), nvcr.io (NVIDIA device plugin) and
public.ecr.aws (Karpenter). From the China regions (partition aws-cn) registry.k8s.io and public.ecr.aws are
not reachable, so a China stack must name a mirror that holds the same image paths (docs/addons.md lists
them), e.g. an ECR registry in the stack's region: `<account>.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror`.
"""

from __future__ import annotations

import re

from ..regions import partition_of
from .errors import Problem, key_path, show

# A registry host (with an optional port) and an optional path, as an image reference starts: no scheme, no tag.
REGISTRY = re.compile(
    r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$"
)
CHINA = "aws-cn"
UNREACHABLE_FROM_CHINA = ("registry.k8s.io", "public.ecr.aws")


def registry_error(value: object) -> str | None:
    """Why `value` is not a registry to pull the add-ons' images from, or None."""
    if not isinstance(value, str) or not REGISTRY.match(value):
        return (
            f"{show(value)} is not a registry host with an optional path such as "
            "123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror (no https://, no tag, lower case)"
        )
    return None


def image_registry_problems(image_registry: str | None, region: str) -> list[Problem]:
    """A China stack without a mirror would pull from registries it cannot reach: refused before anything runs."""
    if image_registry or partition_of(region) != CHINA:
        return []
    return [
        Problem(
            key_path("imageRegistry"),
            f"unset, but {region} is in the China partition ({CHINA}), which cannot reach "
            f'{" or ".join(UNREACHABLE_FROM_CHINA)}: mirror the add-ons\' images (docs/addons.md, "China") into a '
            "registry the cluster reaches, e.g. ECR in the stack's region, and set imageRegistry to it",
        )
    ]
