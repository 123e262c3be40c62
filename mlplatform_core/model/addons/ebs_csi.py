"""Storage: the Amazon EBS CSI driver as an EKS add-on, its IAM role, and the default encrypted gp3 StorageClass.

Without the driver nothing provisions EBS volumes on current EKS (in-tree provisioning is migrated
to it), so PersistentVolumeClaims of MLRun, Jupyter and pipelines would stay Pending.

Sources (kubernetes-sigs/aws-ebs-csi-driver @ 429e202e, chart 2.64.0):
- the add-on's configuration has the chart's values schema (docs/faq.md; charts/aws-ebs-csi-driver/
  values.schema.json, additionalProperties false): `controller.nodeSelector`, `controller.tolerations`
  (replaces the default list, so CriticalAddonsOnly and the NoExecute grace are kept), `controller.region`,
  `node.tolerateAllTaints` (one `operator: Exists` toleration, templates/node.yaml), `node.hostNetwork`
  (chart >= 2.24.0);
- docs/install.md "Metadata": with IMDSv2's hop limit of 1 (the toolkit's) a node pod reaches IMDS only on
  the host network, else it falls back to Kubernetes metadata and miscounts attachable volumes;
- docs/install.md "Set up driver permissions": AWS's managed AmazonEBSCSIDriverPolicyV2 scopes the driver to
  volumes and snapshots it tagged; the controller's service account is kube-system/ebs-csi-controller-sa;
- docs/parameters.md: StorageClass parameters `type`, `encrypted` (a string), `csi.storage.k8s.io/fstype`.

Version: the driver publishes no per-minor table (README "compatible with all Kubernetes versions supported
by ... Amazon EKS"); EKS answers per minor (DescribeAddonVersions), and never upgrades an add-on when the
cluster's minor changes (EKS user guide eks-add-ons.adoc, awsdocs/amazon-eks-user-guide @ 4d52b4d0). So the
component resolves the newest build for the cluster's minor with aws.eks.get_addon_version(most_recent=True)
on every `pulumi up`, as pulumi-eks does for kube-proxy and vpc-cni (nodejs/eks/cluster/cluster.ts @ 7bf0c1b1):
a minor bump moves the add-on with it, and a new build shows up in the preview.
"""

from __future__ import annotations

from typing import Any

from ..config import partition_of
from ..scheduling import CRITICAL_ADDONS_TAINT, Toleration
from .core_services import core_services_placement

ADDON_NAME = "aws-ebs-csi-driver"
NAMESPACE = "kube-system"
CONTROLLER_SERVICE_ACCOUNT = "ebs-csi-controller-sa"
PROVISIONER = "ebs.csi.aws.com"
# EKS Auto Mode's block storage: "You must create a StorageClass referencing ebs.csi.eks.amazonaws.com"; its
# volumes are encrypted only when asked ("encrypted" defaults to false), with gp3 the default type
# (EKS user guide, automode/create-storage-class.adoc). Volumes of one provisioner do not move to the other
# (automode/migrate-auto.adoc: migrating volumes from the EBS CSI controller is not supported).
AUTO_MODE_PROVISIONER = "ebs.csi.eks.amazonaws.com"
STORAGE_CLASS = "gp3-encrypted"
# On Auto Mode with managed node groups, the EBS CSI driver's class for their pods' volumes (not the default).
MANAGED_NODES_STORAGE_CLASS = "gp3-encrypted-ebs-csi"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
# The chart's default node affinity: no node pods on Fargate, Auto Mode or hybrid nodes (values.yaml `node.affinity`).
_NOT_ON = {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate", "auto", "hybrid"]}
NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [_NOT_ON]}]}
    }
}


def policy_arn(region: str) -> str:
    # No `service-role/` path: only the V1 policy lives there (AWS managed policy reference; a wrong path is
    # NoSuchEntity at AttachRolePolicy).
    return f"arn:{partition_of(region)}:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"


def _controller_tolerations() -> list[dict[str, Any]]:
    # The chart's defaults, kept because setting the list replaces them: the initial group's taint, and
    # five minutes on a node that went NotReady before the controller moves.
    return [
        Toleration(CRITICAL_ADDONS_TAINT.key, "Exists").to_dict(),
        {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    ]


def configuration(region: str) -> dict[str, Any]:
    """The add-on's configuration values: controller on the initial group, node pods on every node."""
    return {
        "controller": {
            "nodeSelector": core_services_placement()["nodeSelector"],
            "tolerations": _controller_tolerations(),
            "region": region,  # the controller then needs no instance metadata
        },
        "node": {"tolerateAllTaints": True, "hostNetwork": True},
    }


def controller_pod_placement() -> dict[str, Any]:
    """Where the controller Deployment's pods can go, as the add-on renders them."""
    return {
        "nodeSelector": core_services_placement()["nodeSelector"],
        "tolerations": _controller_tolerations(),
        "priorityClassName": "system-cluster-critical",
    }


def node_pod_placement() -> dict[str, Any]:
    """Where the ebs-csi-node DaemonSet's pods can go: every node (tolerateAllTaints), no Fargate."""
    return {
        "tolerations": [{"operator": "Exists"}],
        "affinity": NODE_AFFINITY,
        "hostNetwork": True,
        "priorityClassName": "system-node-critical",
    }


def storage_class(provisioner: str = PROVISIONER, name: str = STORAGE_CLASS, default: bool = True) -> dict[str, Any]:
    """A StorageClass of encrypted gp3 volumes (the account's aws/ebs key), bound where the pod lands: by default
    the cluster's default class through the EBS CSI driver."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name, "annotations": {DEFAULT_CLASS_ANNOTATION: "true" if default else "false"}},
        "provisioner": provisioner,
        "parameters": {"type": "gp3", "encrypted": "true", "csi.storage.k8s.io/fstype": "ext4"},
        # The volume is created in the zone of the node the pod is scheduled to.
        "volumeBindingMode": "WaitForFirstConsumer",
        "reclaimPolicy": "Delete",
        "allowVolumeExpansion": True,
    }
