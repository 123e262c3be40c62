"""Turning EKS Auto Mode on between the clusters the program registers (tests/core/change/test_auto_mode_cluster.py:
the diff alone)."""

from __future__ import annotations

from mlplatform_core.change.resources import AUTO_MODE_ON, diff_resources
from tests.core.change.test_auto_mode_cluster import CLUSTER
from tests.runs import shipped_run


def _doc(run):
    return [
        {
            "type": r.type,
            "name": r.name,
            "urn": r.urn.replace(run.stack, "s"),
            "custom": r.custom,
            "inputs": {**r.inputs, "name": "mlp"},  # the stacks' cluster names differ; the same cluster here
            "ignoreChanges": r.ignore_changes,
            "replaceOnChanges": r.replace_on_changes,
            "deleteBeforeReplace": r.delete_before_replace,
            "propertyDependencies": {},
        }
        for r in run.resources
        if r.type == CLUSTER
    ]


def test_the_shipped_dev_cluster_moving_to_auto_mode_is_an_update():
    """The clusters the program registers (dev, and dev-automode: the same program with Auto Mode on)."""
    (change,) = diff_resources(_doc(shipped_run("dev")), _doc(shipped_run("dev-automode")))
    assert change.action == "update" and change.note.startswith(AUTO_MODE_ON)
    assert not [f for f in change.fields if f.startswith("kubernetesNetworkConfig.ipFamily")]
