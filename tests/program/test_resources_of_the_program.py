"""The resource diff's name facts against the resources the program registers (tests/core/change/test_resources.py:
the diff alone)."""

from __future__ import annotations


def test_only_the_cluster_has_a_fixed_aws_name(prod_run, dev_run):
    """Names that survive replacement: every AWS resource the diff knows a name property for is auto-named,
    except the EKS cluster (IAM conditions, ASG tags and kubeconfigs refer to it: delete-before-replace)."""
    from mlplatform_core.change.replacement import NAME_PROPERTIES

    for run in (prod_run, dev_run):
        fixed = {r.type for r in run.resources if r.type in NAME_PROPERTIES and r.inputs.get(NAME_PROPERTIES[r.type])}
        assert fixed == {"aws:eks/cluster:Cluster"}
