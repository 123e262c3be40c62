"""What each team's tools set so their jobs join the team's Kueue queue and carry the team's cost key.

Exported per team (`teamSettings`), derived from the same Teams the LocalQueues are generated from, so the label
values always name the LocalQueue that exists (a test keeps them equal):
- `queueLabel`: `kueue.x-k8s.io/queue-name: <LocalQueue>`; Kueue reads it from the job object's own labels
  (kueue pkg/controller/jobframework/utils.go QueueNameForObject), so where it goes depends on the tool:
  `metadata.labels` of a batch Job, a Kubeflow training job (PyTorchJob, TFJob, MPIJob...), a RayJob or RayCluster,
  a JobSet or a LeaderWorkerSet; a plain pod's own labels (MLRun's job runtime runs plain pods); the cost label
  goes on the pod templates, since the pods carry their template's labels, not the job object's;
- `costLabel`: `mlplatform.io/team: <team>` for AWS split cost allocation data, which imports pod labels (not
  namespace labels) as user-defined cost allocation tags (docs.aws.amazon.com/cur/latest/userguide/
  split-cost-allocation-data-kubernetes-labels.html: up to 50 labels per pod); only pods that carry it count.
  Nothing on the cluster adds it to pods: the tools set it (below), and the namespace (aws:eks:namespace in the
  same data) names the team for every other pod;
- MLRun: a function's labels are its pods' (mlrun runtimes/base.py BaseRuntime.set_label sets metadata.labels),
  so `fn.set_label(key, value)` for both labels; MLRun runs every project's pods in its own namespace
  (workloads: the MLRun namespace), so the queue label admits them only when that namespace is one of the team's
  (else there is no LocalQueue of that name there and Kueue keeps them suspended): said per team; the preemption
  mode per flavor: a spot flavor needs pods that tolerate spot (allow), an on-demand one keeps them off (prevent);
- Polyaxon: an operation's `environment.labels` are set on its pods.
"""

from __future__ import annotations

from typing import Any

from ..teams.manifests import TEAM_LABEL
from ..teams.spec import QUEUE_LABEL, Team, Teams
from ..workloads import Workloads

JOB_OBJECT_KINDS = ("Job", "PyTorchJob", "TFJob", "XGBoostJob", "JAXJob", "MPIJob", "TrainJob", "RayJob", "RayCluster")
JOB_OBJECT_KINDS += ("JobSet", "LeaderWorkerSet")


def team_labels(team: Team) -> dict[str, str]:
    """The labels a team's jobs carry: its LocalQueue and its cost key."""
    return {QUEUE_LABEL: team.queue_name, TEAM_LABEL: team.name}


def _mlrun(team: Team, teams: Teams, workloads: Workloads) -> dict[str, Any]:
    labels = team_labels(team)
    ns = workloads.mlrun_namespace
    modes = {f: "allow" if teams.flavor(f).spot else "prevent" for f in team.flavors}
    out: dict[str, Any] = {
        "namespace": ns,
        "functionLabels": labels,
        "sdk": [f"fn.set_label({k!r}, {v!r})" for k, v in labels.items()],
        "preemptionModeByFlavor": modes,
        "preemptionMode": "allow" if "allow" in modes.values() else "prevent",
        "queued": ns in team.namespaces,
    }
    if ns not in team.namespaces:
        out["note"] = (
            f"MLRun runs its pods in namespace {ns}, which is not team {team.name}'s, so a queue label there names no "
            f"LocalQueue; add {ns} to the team's namespaces to queue its MLRun jobs (set costLabel regardless)"
        )
    return out


def team_settings(teams: Teams, workloads: Workloads) -> dict[str, dict[str, Any]]:
    """Per team: its namespaces, the labels its jobs carry and where each tool puts them."""
    out = {}
    for t in teams.teams:
        labels = team_labels(t)
        out[t.name] = {
            "namespaces": list(t.namespaces),
            "localQueue": t.queue_name,
            "clusterQueue": t.name,
            "queueLabel": {QUEUE_LABEL: t.queue_name},
            "costLabel": {TEAM_LABEL: t.name},
            # Kueue reads the queue from the job object; the pods (what split cost data sees) get their template's.
            "jobs": {
                "kinds": list(JOB_OBJECT_KINDS),
                "queueLabelAt": "metadata.labels",
                "costLabelAt": "metadata.labels of each pod template (every replica type's or worker group's)",
            },
            "mlrun": _mlrun(t, teams, workloads),
            "polyaxon": {"environment": {"labels": labels}},
        }
    return out
