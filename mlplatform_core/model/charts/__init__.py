"""The add-on charts as they render: facts recorded per chart version by a real `helm template`, and the proof.

scripts/generators/render_charts.py renders each pinned chart version with helm and records, per chart version
(mlplatform_core/data/charts/<chart>-<version>.json), the workloads (pod placement, containers with their
images, resources and securityContext), the RBAC bound to their service accounts, and which values change
what. `helm_values` is Helm's value merge, `render` applies a release's values to those facts (so a stack
nobody rendered is proven too), `rbac` checks a grant against what an image needs. Facts are read lazily,
only for the chart versions a stack installs.
"""
