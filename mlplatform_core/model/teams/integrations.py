"""The Kueue integrations (config `integrations.frameworks`) an ML platform's workloads need.

Names as Kueue's job frameworks register them (kueue pkg/controller/jobs/*/..._controller.go `FrameworkName`,
listed in apis/config/v1beta2/configuration_types.go `Integrations.Frameworks` at the pinned tag; the test
tests/core/model/teams checks each against the pinned chart's facts). Kueue sets up a framework only when its
CRD is served (jobframework: "No matching API in the server for job framework, skipped setup"), so enabling
Kubeflow or Ray here costs nothing on a cluster without them.
- batch/job: plain Jobs; MLRun's job runtime runs Pods, hence `pod` (Kueue manages a pod only when it carries
  the queue-name label: manageJobsWithoutQueueName stays false, so Nuclio and Jupyter pods are untouched);
- Kubeflow training operator v1 jobs and Trainer v2 TrainJobs, MPIJobs;
- Ray: RayJob, RayCluster;
- JobSet and LeaderWorkerSet (multi-node training and serving).
"""

from __future__ import annotations

INTEGRATIONS: tuple[str, ...] = (
    "batch/job",
    "pod",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "kubeflow.org/mpijob",
    "trainer.kubeflow.org/trainjob",
    "ray.io/rayjob",
    "ray.io/raycluster",
    "jobset.x-k8s.io/jobset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
