"""The placement proof on an EKS Auto Mode stack: the same profiles land on the same roles as on node groups,
on nodes that carry Auto Mode's labels; the add-ons Auto Mode replaces drop out."""

from __future__ import annotations

import json
from functools import cache

from mlplatform_core.model.addons import core_services, device_plugin, node_agents
from mlplatform_core.model.addons.run_by_aws import needs_node_addons, run_by_aws
from mlplatform_core.model.config import parse
from mlplatform_core.model.cost import estimate
from mlplatform_core.model.deployment import deployment
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.placement.filters import place_spec
from mlplatform_core.placement.invariants import stack_report
from mlplatform_core.placement.templates import node_templates
from tests.conftest import stack_config

# Auto Mode runs these itself: storage, networking, the device plugin, node health checks, the Pod Identity agent,
# and the scaling (the Cluster Autoscaler chart's Deployment; the device plugin chart renders an MPS daemon too).
REPLACED = {
    "ebs-csi-controller",
    "ebs-csi-node",
    "aws-node",
    "nvidia-device-plugin",
    "nvidia-device-plugin-mps-control-daemon",
    "cluster-autoscaler",
    "eks-node-monitoring-agent",
    "eks-pod-identity-agent",
}


def stack(name: str, **settings):
    return _stack(name, json.dumps(settings, sort_keys=True))


@cache
def _stack(name: str, settings: str):
    raw = stack_config(name)
    for key, value in json.loads(settings).items():
        raw[f"ml-platform-eks:{key}"] = value
    cfg = parse(raw)
    return cfg, build_layout(cfg, name)


def roles(name: str, **settings) -> dict[str, set[str]]:
    cfg, layout = stack(name, **settings)
    report = stack_report(cfg, layout)
    assert report.ok, report.errors
    return {p.name: {layout.group(g).role for g in r.reachable} for p, r in report.placements}


def test_every_profile_of_the_dev_stack_lands_on_the_same_roles_as_on_node_groups():
    dev, auto = roles("dev"), roles("dev-automode")
    # MLRun's modes, Nuclio, Jupyter, GPU training, Polyaxon and the core services: the same roles.
    assert {p: r for p, r in dev.items() if p not in REPLACED} == auto
    assert dev.keys() >= REPLACED and not REPLACED & auto.keys()  # Auto Mode runs these itself
    assert auto["core-platform-service"] == {"initial"}  # its system pool has the initial role


def test_auto_mode_nodes_carry_auto_modes_labels():
    t = {t.group: t for t in node_templates(stack("dev-automode")[1])}
    spot = t["spot"]
    assert spot.labels["eks.amazonaws.com/compute-type"] == "auto"
    assert spot.labels["karpenter.sh/capacity-type"] == "spot" and spot.labels["karpenter.sh/nodepool"] == "spot"
    assert "karpenter.k8s.aws/ec2nodeclass" not in spot.labels
    variant = next(v for v in spot.variants if v.instance_type == "m7i.4xlarge")
    assert variant.labels["eks.amazonaws.com/instance-family"] == "m7i"
    assert variant.labels["eks.amazonaws.com/instance-cpu"] == "16"
    assert not [k for k in variant.labels if k.startswith("karpenter.k8s.aws/")]
    system = t["system"]
    assert system.labels["karpenter.sh/nodepool"] == "system" and "mlplatform.io/node-role" not in system.labels


def test_a_gpu_pod_selecting_auto_modes_gpu_labels_lands_on_the_gpu_pool():
    _, layout = stack("dev-automode")
    spec = {
        "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 1}}}],
        "nodeSelector": {"eks.amazonaws.com/compute-type": "auto", "eks.amazonaws.com/instance-gpu-name": "a10g"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    assert place_spec(spec, layout).reachable == ("gpu",)


def test_core_services_select_the_system_pool_and_tolerate_its_taint():
    _, layout = stack("dev-automode")
    placement = core_services.core_services_placement(layout)
    assert placement["nodeSelector"] == {"karpenter.sh/nodepool": "system"}
    assert placement["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    assert core_services.core_services_groups(layout) == ("system",)


def test_what_auto_mode_replaces_is_not_installed():
    _, layout = stack("dev-automode")
    assert not needs_node_addons(layout)
    assert node_agents.node_agents(layout) == ()
    assert device_plugin.device_plugin_values(layout) is None  # GPU pools: Auto Mode's plugin
    assert {"CoreDNS", "VPC CNI", "kube-proxy", "EBS CSI driver", "NVIDIA device plugin"} <= run_by_aws(layout).keys()
    assert run_by_aws(stack("dev")[1]) == {}


def test_a_managed_initial_group_keeps_the_node_add_ons_on_it_only():
    settings = {**stack_config("dev-automode")["ml-platform-eks:autoMode"], "initialGroup": "managedNodeGroup"}
    _, layout = stack("dev-automode", autoMode=settings)
    assert needs_node_addons(layout)
    agents = {a.name: a.groups for a in node_agents.node_agents(layout)}
    # The VPC CNI's and EBS CSI's DaemonSets stay off Auto Mode nodes (compute-type NotIn [..., auto]).
    assert agents == {
        "ebs-csi-node": ("initial",),
        "aws-node": ("initial",),
        "eks-node-monitoring-agent": ("initial",),  # the managed group's node repair needs it
    }
    assert "CoreDNS" not in run_by_aws(layout)
    assert roles("dev-automode", autoMode=settings)["core-platform-service"] == {"initial"}


def test_the_cost_prices_pools_and_names_what_it_cannot_price():
    cfg, layout = stack("dev-automode")
    lines = {line.name: line for line in estimate(cfg, layout).lines}
    # One management-fee line per NodePool, as many instances as the pool's nodes; the shipped snapshot has
    # no AmazonEKS offer file, so each fee is unknown and names that source.
    fees = {line.name: line for line in lines.values() if line.kind == "EKS Auto Mode fee"}
    assert set(fees) == {f"EKS Auto Mode fee, NodePool {p.name}" for p in layout.node_pools}
    assert all(f.price.usd_per_hour is None and "AmazonEKS" in f.price.reason for f in fees.values())
    assert sum(f.quantity.max for f in fees.values()) == sum(p.max_nodes for p in layout.node_pools)
    assert all(f.quantity.min == 0 for f in fees.values())
    system = lines["nodes of Auto Mode's built-in system pool"]
    assert system.price.usd_per_hour is None and "no limits" in system.price.reason
    assert estimate(cfg, layout).ceiling.lower_bound
    assert {"jupyter", "jobs", "spot", "gpu"} <= {line.name for line in lines.values() if line.kind == "node pool"}


def test_the_deployment_path_says_what_aws_runs():
    cfg, layout = stack("dev-automode")
    cluster, kubernetes = deployment(cfg, layout).programs
    assert "EKS Auto Mode on" in cluster.deploys and "NodePools and NodeClasses" in kubernetes.deploys
    assert not [r for r in kubernetes.reaches if r.startswith("Helm chart")]  # no chart to install


def test_the_general_purpose_pool_shows_where_unselected_pods_may_land():
    settings = {**stack_config("dev-automode")["ml-platform-eks:autoMode"], "generalPurposePool": True}
    found = roles("dev-automode", autoMode=settings)
    # Its nodes carry no taint and none of the toolkit's labels: jobs without a selector may land there too.
    assert found["mlrun-job-prevent"] == {"jobs", "general-purpose"}
    assert found["jupyter-server"] == {"jupyter"} and found["core-platform-service"] == {"initial"}
    # No environment selects it: nothing of the toolkit's would match its nodes.
    _, layout = stack("dev-automode", autoMode=settings)
    assert "general-purpose" not in polyaxon_environments(layout)
