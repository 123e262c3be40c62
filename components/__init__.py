"""ml-platform-eks: EKS clusters laid out for ML platforms (MLRun, Nuclio, Jupyter, Polyaxon).

Pure modules (no Pulumi import): config, layout, scheduling, instances, quantity,
workloads, mltools, addons, placement, profiles, manifests.
Pulumi components: cluster, network, node_group, platform.
Offline tooling: engine (mocks), plan, placement_report, workload_report, check, cli.
"""
