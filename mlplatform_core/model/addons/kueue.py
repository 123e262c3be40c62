"""Kueue's Helm release: installed when the stack has `teams` (model/teams), its chart pinned per Kubernetes minor.

Values (kubernetes-sigs/kueue charts/kueue/values.yaml at the pinned tag):
- the released image (registry.k8s.io/kueue/kueue:<tag>, as hack/helm-chart-package.sh sets it at release);
- two replicas with leader election and a PodDisruptionBudget: Kueue's webhooks admit the Jobs of every managed
  namespace, so one draining node must not stop Job creation;
- on the initial group (core services), memory limit = request (the proof's rule for controllers);
- the Configuration (managerConfig.controllerManagerConfigYaml, config.kueue.x-k8s.io/v1beta2): the chart's own
  defaults (health, metrics, webhook, leader election, concurrency, client connection) with the teams' parts
  (teams/manifests.py kueue_configuration: integrations, fair sharing, excluded resources).
"""

from __future__ import annotations

from typing import Any

import yaml

from .. import addon_versions as versions
from ..layout import Layout
from ..teams import Teams, kueue_configuration
from . import charts
from .charts import Chart
from .core_services import core_services_placement
from .releases import Release

RESOURCES = {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "2", "memory": "512Mi"}}
REPLICAS = 2
# The chart's default Configuration at the pinned tag, less what the teams decide (charts/kueue/values.yaml).
BASE_CONFIGURATION: dict[str, Any] = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "health": {"healthProbeBindAddress": ":8081"},
    "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "controller": {
        "groupKindConcurrency": {
            "Job.batch": 5,
            "Pod": 5,
            "Workload.kueue.x-k8s.io": 10,
            "LocalQueue.kueue.x-k8s.io": 5,
            "ClusterQueue.kueue.x-k8s.io": 5,
            "ResourceFlavor.kueue.x-k8s.io": 1,
        }
    },
    "clientConnection": {"qps": 300, "burst": 500},
}


def chart(kubernetes_version: str) -> Chart:
    return charts.chart(versions.KUEUE, kubernetes_version)


def configuration(teams: Teams) -> dict[str, Any]:
    """Kueue's Configuration: the chart's defaults and the teams' integrations, fair sharing and exclusions."""
    return {**BASE_CONFIGURATION, **kueue_configuration(teams)}


def kueue_values(layout: Layout, teams: Teams, image_registry: str | None = None) -> dict[str, Any]:
    placement = core_services_placement(layout)
    image = {
        "repository": charts.image_repository(versions.KUEUE, image_registry),
        "tag": charts.image_tag(versions.KUEUE, layout.kubernetes_version),
        "pullPolicy": "IfNotPresent",
    }
    return {
        "controllerManager": {
            "replicas": REPLICAS,
            "manager": {"image": image, "resources": RESOURCES},
            "nodeSelector": placement["nodeSelector"],
            "tolerations": placement["tolerations"],
            "podDisruptionBudget": {"enabled": True, "minAvailable": 1},
        },
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(configuration(teams), sort_keys=False)},
    }


def kueue_release(layout: Layout, teams: Teams | None, image_registry: str | None = None) -> Release | None:
    """The Kueue release of a stack with teams (None without): its CRDs are the chart's, which Helm installs
    before the manager; the teams' objects follow the release (mlplatform_program/components/teams.py)."""
    if teams is None:
        return None
    c = chart(layout.kubernetes_version)
    return Release(c.name, c, kueue_values(layout, teams, image_registry))
