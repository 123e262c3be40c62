"""The workload layer as the real program registers it under mocks, for both shipped stacks."""

from __future__ import annotations

import json

import pytest
import yaml

from mlplatform.engine import ProgramRun, run_stack
from mlplatform_core.model.addons import autoscaler, charts, coredns, device_plugin
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.ml_settings.mlrun import decode_mlrun_env
from mlplatform_core.model.workloads import build_workloads, manifests
from tests.conftest import stack_config
from tests.runs import irsa_run, shipped_run

PLATFORM = "mlplatform:platform:Platform"
RELEASE = "kubernetes:helm.sh/v3:Release"
K8S_KINDS = {
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": "PriorityClass",
    "kubernetes:core/v1:Namespace": "Namespace",
    "kubernetes:core/v1:LimitRange": "LimitRange",
    "kubernetes:core/v1:ResourceQuota": "ResourceQuota",
}


def objects(run: ProgramRun) -> list[dict]:
    """The recorded Kubernetes resources as (kind, name, namespace, body) manifests."""
    out = []
    for r in run.resources:
        if r.type in K8S_KINDS:
            body = {k: v for k, v in r.inputs.items() if k not in ("apiVersion", "kind")}
            out.append({"kind": K8S_KINDS[r.type], **body})
    return out


def expected(stack: str) -> list[dict]:
    """The workload layer's manifests, and the device plugin's namespace with its LimitRange (GPU stacks)."""
    plugin = device_plugin.namespace_objects() if device_plugin.plugin_groups(layout_of(stack)) else []
    return [
        {k: v for k, v in m.items() if k != "apiVersion"}
        for m in [*manifests(build_workloads(parse(stack_config(stack)))), *plugin]
    ]


def layout_of(stack: str):
    return build_layout(parse(stack_config(stack)), stack)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_kubernetes_objects_are_the_manifests(stack):
    run = shipped_run(stack)

    def key(obj: dict) -> str:
        return json.dumps(obj, sort_keys=True)

    assert sorted(objects(run), key=key) == sorted(expected(stack), key=key)


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_everything_lives_under_the_platform_component_and_its_provider(stack):
    run = shipped_run(stack)
    (platform,) = run.of_type(PLATFORM)
    (provider,) = [r for r in run.children(platform) if r.type == "pulumi:providers:kubernetes"]
    assert provider.inputs["kubeconfig"] == "[secret]"
    storage = run.one("mlplatform:storage:Storage", "platform-storage")
    assert storage.parent == platform.urn
    for r in run.resources:
        if r.type.startswith("kubernetes:") and r.type != "pulumi:providers:kubernetes":
            assert r.parent in (platform.urn, storage.urn), r.name
            assert r.provider and r.provider.startswith(provider.urn), r.name


def test_dev_installs_autoscaler_and_device_plugin(dev_run):
    releases = {r.name: r.inputs for r in dev_run.of_type(RELEASE)}
    assert set(releases) == {"cluster-autoscaler", "nvidia-device-plugin"}
    for name in releases:  # the charts pinned for the stack's minor (addon_versions.json)
        chart = charts.chart(name, "1.35")
        rel = releases[name]
        assert (rel["chart"], rel["version"], rel["repositoryOpts"]["repo"]) == (chart.name, chart.version, chart.repo)
    # The values the program deploys are the ones the plan proved (model/addons/releases.py).
    assert releases["cluster-autoscaler"]["values"]["image"] == {"tag": "v1.35.2"}


def test_a_stack_without_pod_identity_keeps_the_autoscalers_irsa_role():
    run = irsa_run("dev")
    values = run.one(RELEASE, "cluster-autoscaler").inputs["values"]
    role = run.one("aws:iam/role:Role", "platform-autoscaler")
    arn = values["rbac"]["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"]
    assert arn == role.outputs["arn"]
    trust = json.loads(role.inputs["assumeRolePolicy"])
    (stmt,) = trust["Statement"]
    assert stmt["Principal"]["Federated"].startswith("arn:aws:iam::")
    assert any(
        v == "system:serviceaccount:kube-system:cluster-autoscaler" for v in stmt["Condition"]["StringEquals"].values()
    )
    assert not run.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
    cluster, _layer = run.programs  # the layer reads the OIDC provider from the cluster stack, not masked as secret
    assert cluster.exports["oidcProviderArn"] in role.inputs["assumeRolePolicy"]
    assert "eks-pod-identity-agent" not in {a.inputs["addonName"] for a in run.of_type("aws:eks/addon:Addon")}


def test_shipped_stacks_give_the_add_ons_their_roles_through_pod_identity(dev_run):
    """podIdentity: true in the shipped stacks: the agent add-on, a Pod Identity trust scoped to one service account
    of this cluster, an association per role, and no IRSA annotation on the service accounts."""
    assert "eks-pod-identity-agent" in {a.inputs["addonName"] for a in dev_run.of_type("aws:eks/addon:Addon")}
    associations = {
        (a.inputs["namespace"], a.inputs["serviceAccount"]): a
        for a in dev_run.of_type("aws:eks/podIdentityAssociation:PodIdentityAssociation")
    }
    assert set(associations) == {("kube-system", "cluster-autoscaler"), ("kube-system", "ebs-csi-controller-sa")}
    for (namespace, account), association in associations.items():
        (role,) = [r for r in dev_run.of_type("aws:iam/role:Role") if r.outputs["arn"] == association.inputs["roleArn"]]
        (stmt,) = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
        assert stmt["Principal"] == {"Service": "pods.eks.amazonaws.com"}
        assert stmt["Action"] == ["sts:AssumeRole", "sts:TagSession"]
        assert stmt["Condition"]["StringEquals"] == {
            "aws:RequestTag/eks-cluster-name": "mlp-dev",
            "aws:RequestTag/kubernetes-namespace": namespace,
            "aws:RequestTag/kubernetes-service-account": account,
        }
    values = dev_run.one(RELEASE, "cluster-autoscaler").inputs["values"]
    assert "annotations" not in values["rbac"]["serviceAccount"]
    ebs = dev_run.one("aws:eks/addon:Addon", "platform-storage-ebs-csi")
    assert "serviceAccountRoleArn" not in ebs.inputs


def test_autoscaler_uses_real_node_group_names(dev_run):
    values = dev_run.one(RELEASE, "cluster-autoscaler").inputs["values"]
    policy = json.loads(dev_run.one("aws:iam/rolePolicy:RolePolicy", "platform-autoscaler").inputs["policy"])
    assert policy == autoscaler.autoscaler_policy("mlp-dev", "us-east-1", "123456789012")
    # Priorities name the EKS node groups the program created, spot first, in the ConfigMap the priority
    # expander reads (integer keys, as priority.go unmarshals them); the chart must not make a second one.
    assert "expanderPriorities" not in values
    (config_map,) = [
        r.inputs
        for r in dev_run.of_type("kubernetes:core/v1:ConfigMap")
        if r.inputs["metadata"]["name"] == "cluster-autoscaler-priority-expander"
    ]
    assert config_map["metadata"]["namespace"] == values_namespace(dev_run)
    priorities = yaml.safe_load(config_map["data"]["priorities"])
    spot_name = dev_run.exports["nodeGroups"]["spot"]
    assert priorities[autoscaler.SPOT_PRIORITY] == [autoscaler.asg_name_pattern(spot_name)]
    assert set(priorities) == {autoscaler.SPOT_PRIORITY, autoscaler.ON_DEMAND_PRIORITY, autoscaler.FALLBACK_PRIORITY}


def values_namespace(run: ProgramRun) -> str:
    return run.one(RELEASE, "cluster-autoscaler").inputs["namespace"]


def test_prod_without_gpu_group_skips_the_device_plugin():
    raw = stack_config("prod")
    raw["ml-platform-eks:nodeGroups"]["gpu"]["enabled"] = False
    run = run_stack("prod", raw)
    assert [r.name for r in run.of_type(RELEASE)] == ["cluster-autoscaler"]


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_coredns_addon_is_placed_on_the_initial_group(stack):
    run = shipped_run(stack)
    (addon,) = [a for a in run.of_type("aws:eks/addon:Addon") if a.inputs["addonName"] == "coredns"]
    assert addon.inputs["clusterName"] == run.exports["clusterName"]
    assert json.loads(addon.inputs["configurationValues"]) == coredns.coredns_configuration()


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_exported_mlrun_env_decodes_to_the_layout(stack):
    run = shipped_run(stack)
    layout = build_layout(parse(stack_config(stack)), stack)
    decoded = decode_mlrun_env(run.exports["mlrunEnv"])
    spot = layout.spot_groups
    if spot:
        assert all(decoded["node_selector"].items() <= g.labels.items() for g in spot)
        assert [t["key"] for t in decoded["tolerations"]] == [layout.spot_taint.key]
    else:
        assert decoded["node_selector"] == {} and decoded["tolerations"] == []
    names = {r.inputs["metadata"]["name"] for r in run.of_type("kubernetes:scheduling.k8s.io/v1:PriorityClass")}
    assert decoded["default_priority_class"] in names
    assert set(decoded["valid_priority_classes"]) <= names


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_polyaxon_environments_are_exported_per_workload_group(stack):
    run = shipped_run(stack)
    layout = build_layout(parse(stack_config(stack)), stack)
    assert set(run.exports["polyaxonEnvironments"]) == {g.name for g in layout.groups if not g.is_initial}


def test_invalid_workloads_stop_the_program_with_the_key_path():
    raw = stack_config("dev")
    raw["ml-platform-eks:workloads"] = {"namespaces": {"mlrun": {"limits": {"default": {"cpu": "100m"}}}}}
    with pytest.raises(Exception) as err:
        run_stack("dev", raw)
    assert "ml-platform-eks:workloads.namespaces.mlrun.limits.default.cpu" in str(err.value)


def test_every_managed_node_group_has_node_repair_and_the_monitoring_agent(dev_run):
    groups = dev_run.of_type("aws:eks/nodeGroup:NodeGroup")
    assert groups and all(g.inputs["nodeRepairConfig"] == {"enabled": True} for g in groups)
    assert "eks-node-monitoring-agent" in {a.inputs["addonName"] for a in dev_run.of_type("aws:eks/addon:Addon")}
