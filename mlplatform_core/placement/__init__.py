"""Where pods can land, proven before any node exists (pure Python, no Pulumi import).

- `templates`: node groups as node templates (labels, taints, allocatable per instance type);
- `pods`: the pod model read strictly from a PodSpec;
- `filters`: the kube-scheduler filters (taints, node affinity, resource fit) over templates;
- `mlrun_preemption`: MLRun's preemption-mode enrichment of a PodSpec;
- `profiles`: built-in workload profiles (MLRun, Nuclio, Jupyter, GPU, Polyaxon, core services);
- `invariants`: the placement promises every stack must keep;
- `manifests`: pod specs out of Kubernetes manifests (for `mlplatform place`);
- `claims`, `dra_devices`, `cel`, `dra_fit`, `dra_filter`: ResourceClaims (DRA) against what the NVIDIA DRA
  driver publishes on a group's nodes, CEL selectors evaluated with cel-python.
"""
