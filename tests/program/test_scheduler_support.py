"""Pins the fact model/scheduler.py decides on: the cluster is pulumi-eks's Cluster, whose inputs carry no
kubeSchedulerConfig, though pulumi-aws's aws.eks.Cluster has one. A pulumi-eks bump that adds it fails here:
then set scheduler.CLUSTER_SUPPORT, pass the setting in components/cluster.py and let `scheduler:` through."""

from __future__ import annotations

import inspect

import pulumi_aws as aws
import pulumi_eks as eks

from mlplatform_core.model import scheduler


def test_pulumi_eks_cannot_pass_the_scheduler_configuration():
    eks_inputs = inspect.signature(eks.ClusterArgs.__init__).parameters
    assert "kube_scheduler_config" not in eks_inputs
    assert not any("scheduler_config" in name for name in eks_inputs)
    assert scheduler.CLUSTER_SUPPORT is None and scheduler.refusal()


def test_pulumi_aws_has_it_on_the_cluster_resource():
    assert "kube_scheduler_config" in inspect.signature(aws.eks.ClusterArgs.__init__).parameters
    strategy = inspect.signature(aws.eks.ClusterKubeSchedulerConfigNodeResourcesFitScoringStrategyArgs.__init__)
    assert {"type", "resources"} <= set(strategy.parameters)
