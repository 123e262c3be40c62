"""Rules for what the stack installs into the cluster through EKS: managed add-ons and storage."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ._props import EKS_ADDON, K8S_STORAGE_CLASS, fmt, get, known, truthy
from ._rule import HIGH, MANDATORY, resource_rule

EBS_PROVISIONERS = ("ebs.csi.aws.com", "kubernetes.io/aws-ebs")


def _preserved(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    preserve = get(args.props, "preserve")
    if known(preserve) and preserve is not True:
        name = get(args.props, "addonName")
        yield (
            f"EKS add-on {fmt(name) if known(name) else args.name} is not created with preserve; deleting the "
            "Pulumi resource (a rename, a refactor, removing it from the program) would delete the software "
            "from the running cluster (CoreDNS: cluster DNS)"
        )


eks_addons_preserved = resource_rule(
    "eks-addons-preserved",
    "Every EKS add-on the stack manages is created with preserve, so removing it from the program never "
    "removes it from the cluster.",
    types=[EKS_ADDON],
    level=MANDATORY,
    severity=HIGH,
    check=_preserved,
    remediation="Create aws.eks.Addon with preserve=True (components/platform.py and components/storage.py do).",
    tags=["addons"],
)


def _encrypted(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    provisioner = get(args.props, "provisioner")
    if provisioner not in EBS_PROVISIONERS:
        return
    encrypted = get(args.props, "parameters", "encrypted")
    if known(encrypted) and not truthy(encrypted):
        shown = fmt(encrypted) if encrypted is not None else "unset"
        yield f'StorageClass for EBS volumes does not set parameters.encrypted "true" (encrypted={shown})'


ebs_storage_classes_encrypted = resource_rule(
    "ebs-storage-classes-encrypted",
    "StorageClasses of EBS volumes encrypt them.",
    types=[K8S_STORAGE_CLASS],
    level=MANDATORY,
    severity=HIGH,
    check=_encrypted,
    remediation='Set parameters.encrypted: "true" (optionally kmsKeyId) on the StorageClass '
    "(mlplatform_core/model/addons/ebs_csi.py storage_class).",
    tags=["security", "storage"],
)


POLICIES = [eks_addons_preserved, ebs_storage_classes_encrypted]
