"""The pack on day-one concerns: EKS's own discovery tags, and stacks split into a cluster and a Kubernetes layer."""

from __future__ import annotations

from mlplatform.check import policy_resources
from mlplatform_policies import offline
from tests.policies.variants import DEV_POLICY_CONFIG, NG, TAG, add, evaluate, mandatory, shipped
from tests.runs import shipped_run


def _group(resources, name):
    (group,) = [r for r in resources if r.type == NG and r.name == name]
    return group


def test_a_tag_resource_for_an_eks_discovery_tag_is_refused():
    resources = list(shipped("dev"))
    gpu = _group(resources, "gpu")
    for key in ("k8s.io/cluster-autoscaler/enabled", "k8s.io/cluster-autoscaler/mlp-dev"):
        tag = {"autoscalingGroupName": "eks-gpu", "tag": {"key": key, "value": "x", "propagateAtLaunch": False}}
        broken = add(resources, TAG, f"gpu-asg-{key}", tag, parent=gpu.parent)
        found = [v for v in evaluate(broken, DEV_POLICY_CONFIG) if v.policy == "autoscaler-asg-tags"]
        assert found and key in found[0].message and "EKS" in found[0].message, key


def test_the_initial_group_needs_no_discovery_tag_either():
    resources = list(shipped("prod"))
    initial = _group(resources, "initial")
    tag = {"autoscalingGroupName": "eks-initial", "tag": {"key": "k8s.io/cluster-autoscaler/enabled", "value": "true"}}
    broken = add(resources, TAG, "initial-asg-discovery", tag, parent=initial.parent)
    assert "autoscaler-asg-tags" in mandatory(evaluate(broken))


def test_each_half_of_a_split_stack_passes_on_its_own():
    """What `pulumi preview --policy-pack` sees in each of the two stacks of the shipped (separate) stacks."""
    for stack, config in (("dev", DEV_POLICY_CONFIG), ("prod", None)):
        for program in shipped_run(stack).programs:
            violations = offline.evaluate(policy_resources(program), config)
            assert not [v for v in violations if v.mandatory], (stack, program.project, violations)


def test_the_kubernetes_layer_stack_keeps_its_environment_from_its_tags():
    """Without node groups in that stack, dev's burstable defaults must still count as dev, not prod."""
    layer = shipped_run("dev").programs[1]
    policies = {v.policy for v in offline.evaluate(policy_resources(layer), DEV_POLICY_CONFIG)}
    assert "prod-guaranteed-qos-defaults" not in policies


def test_priority_classes_are_checked_where_the_kubernetes_layer_lives():
    """priority-classes skips only stacks without Kubernetes objects; one with objects but no classes fails."""
    cluster, layer = shipped_run("prod").programs
    without_classes = [r for r in policy_resources(layer) if r.type != "kubernetes:scheduling.k8s.io/v1:PriorityClass"]
    assert "priority-classes" in mandatory(evaluate(without_classes))
    assert "priority-classes" not in mandatory(evaluate(policy_resources(cluster)))
