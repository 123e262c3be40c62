"""The model of a stack: what the team configured and what the toolkit derives from it (pure Python).

Read top-down: `config` (the stack file and its settings) -> `layout` (node groups) ->
`workloads` (priority classes, namespaces, job defaults) -> `addons` and `ml_settings`
(what runs on the cluster and what MLRun and Polyaxon are told). `scheduling`, `quantity`
and `instances` are the vocabulary they share; `cluster` and `network` hold the control
plane's and the VPC's plain data. `cost` prices what the stack creates.
"""
