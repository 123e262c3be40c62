"""ml-platform-eks: EKS clusters laid out for ML platforms (MLRun, Nuclio, Jupyter, Polyaxon).

Pure modules (no Pulumi import): config, layout, scheduling, instances.
Pulumi components: cluster, network, node_group. Offline tooling: engine, plan, cli.
"""
