"""The thin Pulumi shell: ComponentResources that turn the pure model (mlplatform_core) into resources.

One component per module: `cluster` (control plane, KMS key, node role), `network`
(the VPC), `node_group` (a managed node group), `platform` (the workload layer on the
running cluster). __main__.py composes them; nothing here decides a layout.
"""
