"""The Karpenter controller as plain data: chart pins, Helm values, IAM documents and the interruption queue.

Pure Python. The pin, the Kubernetes range, the controller's IAM policies and the interruption
queue's policy and rules come from the release's own files (model/karpenter/release.py, generated).
The controller runs on the initial managed node group, like the other core services, with an IRSA
role; its NodePools come from model/karpenter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .. import addon_versions as versions
from ..karpenter import release
from ..layout import Layout
from ..provisioners import of
from ..regions import partition_of
from . import charts
from .charts import Chart
from .core_services import core_services_placement

NAMESPACE = charts.NAMESPACES[versions.KARPENTER]
SERVICE_ACCOUNT = "karpenter"  # the chart's fullname for a release named karpenter
# requests = limits, as the upstream getting-started guide installs it: the chart passes requests.cpu and
# limits.memory to the controller (GOMAXPROCS, GOMEMLIMIT), so both must be set.
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}


def chart(kubernetes_version: str) -> Chart:
    """The controller chart (OCI). Its CRDs come from karpenter-crd, which Helm upgrades with the release."""
    return charts.chart(versions.KARPENTER, kubernetes_version)


def crd_chart(kubernetes_version: str) -> Chart:
    return charts.chart(versions.KARPENTER_CRD, kubernetes_version)


def chart_ref(c: Chart) -> str:
    return f"{c.repo}/{c.name}"


def controller_placement() -> dict[str, Any]:
    """On the initial group, tolerating its taint. Helm merges nodeSelector maps (the chart's kubernetes.io/os
    stays) and keeps the chart's affinity (never on a node Karpenter launched), which is not overridden here."""
    return core_services_placement()


def controller_values(
    cluster_name: str,
    queue_name: Any,
    role_arn: Any,
    replicas: int,
    feature_gates: Mapping[str, bool] | None = None,
    image_registry: str | None = None,
    extra_settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Values for the karpenter chart. `queue_name` and `role_arn` may be Pulumi Outputs; `role_arn` None: the
    controller gets its role through EKS Pod Identity, so its service account carries no IRSA annotation.
    `feature_gates`: settings.featureGates the stack turns on (nodeRepair, model/addons/node_health.py; static
    capacity, model/addons/karpenter_gates.py); `extra_settings`: other `settings` its pools need (DRA). The chart
    hardens the controller's container itself (non-root, read-only root filesystem, no capabilities)."""
    settings: dict[str, Any] = {"clusterName": cluster_name, "interruptionQueue": queue_name, **(extra_settings or {})}
    if feature_gates:
        settings["featureGates"] = dict(feature_gates)
    account: dict[str, Any] = {"name": SERVICE_ACCOUNT}
    if role_arn is not None:
        account["annotations"] = {"eks.amazonaws.com/role-arn": role_arn}
    controller: dict[str, Any] = {"resources": CONTROLLER_RESOURCES}
    if image_registry:
        controller["image"] = {"repository": charts.image_repository(versions.KARPENTER, image_registry)}
    return {
        "settings": settings,
        "serviceAccount": account,
        "replicas": replicas,
        "controller": controller,
        **controller_placement(),
    }


# --- IAM ------------------------------------------------------------------------------------------


def _fill(template: Any, values: Mapping[str, str]) -> Any:
    """A generated document with its ${Placeholder}s filled in; an unfilled one is a bug, not a policy."""
    text = json.dumps(template)
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    if left := re.findall(r"\$\{[A-Za-z]+\}", text):
        raise ValueError(f"placeholders left in a Karpenter IAM document: {sorted(set(left))}")
    return json.loads(text)


def controller_policy_names() -> list[str]:
    return sorted(release.snapshot()["controllerPolicies"])


def controller_policies(
    cluster_name: str, region: str, account_id: str, node_role_arn: str, queue_arn: str
) -> dict[str, dict[str, Any]]:
    """Karpenter's reference controller policies (its CloudFormation template), one document each.

    Launching, tagging and terminating are allowed only on resources tagged
    kubernetes.io/cluster/<cluster>=owned (and a karpenter.sh/nodepool tag); iam:PassRole only for the
    node role; the queue actions only on the interruption queue. Kept as separate documents: together
    they pass the 6,144-character limit of one managed policy.
    """
    values = {
        "Partition": partition_of(region),
        "Region": region,
        "AccountId": account_id,
        "ClusterName": cluster_name,
        "NodeRoleArn": node_role_arn,
        "QueueArn": queue_arn,
    }
    return {name: _fill(release.snapshot()["controllerPolicies"][name], values) for name in controller_policy_names()}


# --- interruption queue ---------------------------------------------------------------------------


def queue_settings() -> dict[str, Any]:
    q = release.snapshot()["interruptionQueue"]
    return {"messageRetentionSeconds": q["messageRetentionSeconds"], "sqsManagedSseEnabled": q["sqsManagedSseEnabled"]}


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """EventBridge (and SQS) may send to the queue; nothing may use it without TLS."""
    return _fill(release.snapshot()["interruptionQueue"]["policy"], {"QueueArn": queue_arn})


def interruption_rules() -> dict[str, dict[str, Any]]:
    """EventBridge rule name -> event pattern: spot interruption, rebalance, state change, scheduled health events
    (and capacity-reservation interruption), each feeding the queue."""
    return {r["name"]: r["eventPattern"] for r in release.snapshot()["interruptionQueue"]["rules"]}


# --- discovery ------------------------------------------------------------------------------------


def discovery_tags(layout: Layout) -> dict[str, str]:
    """The tag node classes select the cluster's private subnets and security group by: Karpenter's
    EC2NodeClasses and Auto Mode's NodeClasses (none without NodePools): the provisioner's."""
    return dict(of(layout).discovery_tags(layout.cluster_name))
