"""Checks of what the stack installs into the cluster through EKS: managed add-ons and storage."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .props import fmt, get, known, truthy

EBS_PROVISIONERS = ("ebs.csi.aws.com", "kubernetes.io/aws-ebs")


def preserved(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    preserve = get(args.props, "preserve")
    if known(preserve) and preserve is not True:
        name = get(args.props, "addonName")
        yield (
            f"EKS add-on {fmt(name) if known(name) else args.name} is not created with preserve; deleting the "
            "Pulumi resource (a rename, a refactor, removing it from the program) would delete the software "
            "from the running cluster (CoreDNS: cluster DNS)"
        )


def storage_class_encrypted(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    provisioner = get(args.props, "provisioner")
    if provisioner not in EBS_PROVISIONERS:
        return
    encrypted = get(args.props, "parameters", "encrypted")
    if known(encrypted) and not truthy(encrypted):
        shown = fmt(encrypted) if encrypted is not None else "unset"
        yield f'StorageClass for EBS volumes does not set parameters.encrypted "true" (encrypted={shown})'
