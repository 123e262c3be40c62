"""Node templates: the labels EKS and the kubelet add, and allocatable resources per instance type."""

from __future__ import annotations

import dataclasses

from mlplatform_core.model.scheduling import EKS_CAPACITY_LABEL, EKS_NODEGROUP_LABEL, Taint
from mlplatform_core.placement.templates import ARCH_LABEL, INSTANCE_TYPE_LABEL, OS_LABEL, node_template, node_templates
from tests.core.placement.conftest import shipped_layout

# --- node templates --------------------------------------------------------------------------------


def test_templates_carry_the_labels_eks_and_the_kubelet_add():
    spot = node_template(shipped_layout("dev").group("spot"))
    assert spot.labels[EKS_CAPACITY_LABEL] == "SPOT"
    assert spot.labels[EKS_NODEGROUP_LABEL] == "spot"
    assert spot.labels[OS_LABEL] == "linux" and spot.labels[ARCH_LABEL] == "amd64"
    assert spot.labels["app.iguazio.com/lifecycle"] == "preemptible"
    assert {v.labels[INSTANCE_TYPE_LABEL] for v in spot.variants} == set(spot.instance_types)
    assert spot.taints == (Taint("app.iguazio.com/lifecycle", "preemptible", "NoSchedule"),)


def test_template_allocatable_is_the_largest_instance_type():
    mixed = dataclasses.replace(shipped_layout("prod").group("gpu"), instance_types=("g5.2xlarge", "g5.4xlarge"))
    gpu = node_template(mixed)
    assert gpu.largest.instance_type == "g5.4xlarge"
    assert gpu.allocatable["nvidia.com/gpu"] == 1
    assert gpu.allocatable["cpu"] == 15890  # 16 vCPU minus the EKS kube-reserved cpu
    assert [t.group for t in node_templates(shipped_layout("prod"))] == ["initial", "workload", "gpu"]
