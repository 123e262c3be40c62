"""Settings that tell the ML platforms how this cluster's nodes are labelled and tainted.

Derived from the layout and the workload layer, so a change to a node group changes them with it:
`mlrun` (the MLRUN_* environment of the MLRun API service) and `polyaxon` (environment sections).
"""
