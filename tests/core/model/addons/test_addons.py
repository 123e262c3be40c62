"""Add-on values and IAM: pure functions of the layout."""

from __future__ import annotations

import dataclasses
import re

import pytest
import yaml

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model.addons import autoscaler, charts, coredns, device_plugin, irsa
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.scheduling import (
    CRITICAL_ADDONS_TAINT,
    DEVICE_PLUGIN_LABEL,
    GPU_TAINT,
    ROLE_LABEL,
    Toleration,
)
from tests.conftest import stack_config


def layout_of(name: str, **overrides):
    raw = stack_config(name)
    raw.update(overrides)
    return build_layout(parse(raw), name)


def tolerates(values: dict, taint) -> bool:
    return any(Toleration.from_dict(t).tolerates(taint) for t in values["tolerations"])


def test_autoscaler_mutations_are_limited_to_this_clusters_groups():
    policy = autoscaler.autoscaler_policy("mlp-dev", "us-east-1", "123456789012")
    mutating = [s for s in policy["Statement"] if set(s["Action"]) & set(autoscaler.MUTATING_ACTIONS)]
    assert len(mutating) == 1
    (stmt,) = mutating
    assert set(stmt["Action"]) == {"autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"}
    assert stmt["Condition"] == {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/mlp-dev": "owned"}}
    for s in policy["Statement"]:
        assert s["Effect"] == "Allow"
        assert not any(a.endswith("*") for a in s["Action"]), "no wildcard actions"
        if s is not stmt:
            assert all(a.split(":")[1].startswith(("Describe", "Get")) for a in s["Action"]), s


@pytest.mark.parametrize(
    "region, partition", [("us-east-1", "aws"), ("us-gov-west-1", "aws-us-gov"), ("cn-north-1", "aws-cn")]
)
def test_autoscaler_describes_only_this_clusters_node_groups(region, partition):
    """eks:DescribeNodegroup supports resource-level permissions (nodegroup ARNs): never on `*`."""
    policy = autoscaler.autoscaler_policy("mlp-dev", region, "123456789012")
    (stmt,) = [s for s in policy["Statement"] if "eks:DescribeNodegroup" in s["Action"]]
    assert stmt["Action"] == ["eks:DescribeNodegroup"]
    assert stmt["Resource"] == f"arn:{partition}:eks:{region}:123456789012:nodegroup/mlp-dev/*/*"
    wildcard = [a for s in policy["Statement"] if s["Resource"] == "*" for a in s["Action"]]
    assert not [a for a in wildcard if a.startswith("eks:")]


def test_autoscaler_scope_tag_is_the_discovery_tag_eks_puts_on_every_managed_group():
    from mlplatform_core.model.layout import discovery_tags

    layout = layout_of("dev")
    policy = autoscaler.autoscaler_policy(layout.cluster_name, "us-east-1", "123456789012")
    (stmt,) = [s for s in policy["Statement"] if "Condition" in s]
    ((tag_key, tag_value),) = stmt["Condition"]["StringEquals"].items()
    assert discovery_tags(layout.cluster_name)[tag_key.removeprefix("aws:ResourceTag/")] == tag_value


def test_irsa_trust_names_one_service_account():
    trust = irsa.irsa_trust_policy(
        "arn:aws:iam::1:oidc-provider/oidc.eks.x/id/AB", "https://oidc.eks.x/id/AB", "kube-system", "cluster-autoscaler"
    )
    (stmt,) = trust["Statement"]
    assert stmt["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert stmt["Principal"] == {"Federated": "arn:aws:iam::1:oidc-provider/oidc.eks.x/id/AB"}
    assert stmt["Condition"]["StringEquals"] == {
        "oidc.eks.x/id/AB:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
        "oidc.eks.x/id/AB:aud": "sts.amazonaws.com",
    }


def test_autoscaler_runs_on_the_initial_group_and_discovers_this_cluster():
    layout = layout_of("dev")
    layout = dataclasses.replace(layout, kubernetes_version="1.33")
    values = autoscaler.autoscaler_values(layout, "us-west-2", "arn:role")
    assert values["autoDiscovery"] == {"clusterName": layout.cluster_name}
    assert values["awsRegion"] == "us-west-2"
    assert values["rbac"]["serviceAccount"]["annotations"] == {"eks.amazonaws.com/role-arn": "arn:role"}
    assert values["rbac"]["serviceAccount"]["name"] == autoscaler.AUTOSCALER_SERVICE_ACCOUNT
    assert values["extraArgs"]["balance-similar-node-groups"] is True
    assert values["extraArgs"]["expander"].split(",")[0] == "priority"
    initial = layout.group("initial")
    assert values["nodeSelector"].items() <= initial.labels.items()
    assert all(tolerates(values, t) for t in initial.taints if t.repels)
    assert values["image"]["tag"].startswith("v1.33.")


def test_priority_expander_tries_spot_before_on_demand():
    layout = layout_of("dev")
    names = {g.name: f"{g.name}-abc1234" for g in layout.groups}
    prio = {int(k): v for k, v in autoscaler.expander_priorities(layout, names).items()}

    def priority_of(asg: str) -> int:
        return max(p for p, patterns in prio.items() if any(re.match(x, asg) for x in patterns))

    asg = {g.name: f"eks-{names[g.name]}-0ac5f2f0-1d2e-4b1a-9c3d-112233445566" for g in layout.groups}
    spot = [priority_of(asg[g.name]) for g in layout.groups if g.autoscaled and g.preemptible]
    on_demand = [priority_of(asg[g.name]) for g in layout.groups if g.autoscaled and not g.preemptible]
    assert spot and on_demand
    assert min(spot) > max(on_demand) > autoscaler.FALLBACK_PRIORITY
    assert priority_of("eks-someone-elses-group-1") == autoscaler.FALLBACK_PRIORITY


def test_no_spot_group_means_no_spot_priority():
    prio = autoscaler.expander_priorities(layout_of("prod"))
    assert str(autoscaler.SPOT_PRIORITY) not in prio


def test_device_plugin_only_on_gpu_nodes():
    layout = layout_of("dev")
    values = device_plugin.device_plugin_values(layout)
    assert values["nodeSelector"] == {DEVICE_PLUGIN_LABEL: "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in values["tolerations"]
    for g in layout.groups:
        on_node = values["nodeSelector"].items() <= g.labels.items()
        assert on_node == g.gpu
        if g.gpu:
            assert all(tolerates(values, t) for t in g.taints if t.repels)
    assert not tolerates(values, CRITICAL_ADDONS_TAINT)


def test_device_plugin_tolerates_a_spot_gpu_group():
    groups = stack_config("dev")["ml-platform-eks:nodeGroups"]
    groups["gpu"].update(capacityType="SPOT", instanceTypes=["g5.2xlarge"])
    layout = layout_of("dev", **{"ml-platform-eks:nodeGroups": groups})
    values = device_plugin.device_plugin_values(layout)
    assert all(tolerates(values, t) for t in layout.group("gpu").taints)


def test_device_plugin_skipped_without_gpu_group():
    groups = stack_config("prod")["ml-platform-eks:nodeGroups"]
    groups["gpu"]["enabled"] = False
    assert device_plugin.device_plugin_values(layout_of("prod", **{"ml-platform-eks:nodeGroups": groups})) is None


def test_coredns_tolerates_and_targets_the_initial_group():
    layout = layout_of("prod")
    config = coredns.coredns_configuration()
    assert config["nodeSelector"] == {ROLE_LABEL: "initial"}
    assert config["nodeSelector"].items() <= layout.group("initial").labels.items()
    assert tolerates(config, CRITICAL_ADDONS_TAINT)
    assert not tolerates(config, GPU_TAINT)


@pytest.mark.parametrize("version, tag", [("1.33", "v1.33.6"), ("1.35", "v1.35.2"), ("1.36", "v1.36.1")])
def test_autoscaler_image_follows_the_kubernetes_minor(version, tag):
    assert autoscaler.autoscaler_image_tag(version) == tag


def test_a_minor_without_an_autoscaler_release_has_no_image_rather_than_a_neighbours():
    with pytest.raises(KeyError):
        autoscaler.autoscaler_image_tag("1.39")


def test_the_gpu_add_on_charts_are_pinned_per_minor_from_the_generated_data():
    for minor in versions.snapshot()["minors"]:
        for name in (versions.EFA_DEVICE_PLUGIN, versions.DCGM_EXPORTER, versions.GPU_OPERATOR):
            chart = charts.chart(name, minor)
            # aws-efa-k8s-device-plugin and gpu-operator publish their versions with a leading v (v0.5.30, v26.7.0).
            assert re.fullmatch(r"v?\d+\.\d+\.\d+", chart.version), chart
            assert chart.repo.startswith("https://") and chart.version == versions.pinned(name, minor)["chart"]


def test_priority_config_map_keys_are_integers_as_the_expander_unmarshals_them():
    # priority.go: yaml.v2 into map[int][]string; a quoted "50" key would fail to parse.
    priorities = autoscaler.expander_priorities(layout_of("dev"))
    text = autoscaler.priority_config_map_data(priorities)["priorities"]
    parsed = yaml.safe_load(text)
    assert parsed == {int(k): v for k, v in priorities.items()}
    assert all(isinstance(k, int) for k in parsed) and "'50'" not in text and '"50"' not in text
