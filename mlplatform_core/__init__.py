"""The pure core of ml-platform-eks: everything that decides, nothing that deploys.

No Pulumi import anywhere in this package (an import-linter contract enforces it):
- `model`: stack configuration, the node-group layout, the instance catalog, the
  scheduling vocabulary, the workload layer, add-on values and ML-platform settings;
- `placement`: the scheduler's filters, workload profiles, manifests and the
  placement invariants.
The Pulumi program (mlplatform_program/) and the offline tooling (mlplatform/) build on it.
"""
