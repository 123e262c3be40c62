"""The shape a fast `pulumi up` needs, read from the dependencies the program sends with each registration.

Node groups wait for the control plane (through the cluster's name as an Output, so the state records
it) and never for each other; launch templates wait for nothing of the cluster; an add-on waits only for
the node groups its pods run on. The shipped stacks deploy the Kubernetes layer as a program of its own
(it starts once the cluster stack is up), so the add-on waits are checked with kubernetesLayer: inline,
where both live in one `pulumi up`.
"""

from __future__ import annotations

import pytest

from mlplatform.engine import ProgramRun, Recorded, run_program, run_stack
from mlplatform.reports.deployment_order import waves
from mlplatform_core.model.addons.core_services import core_services_groups
from mlplatform_core.model.addons.device_plugin import device_plugin_groups
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.resource_types import NODE_GROUP
from tests.conftest import stack_config
from tests.runs import shipped_run

LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EKS = "eks:index:Cluster"
EKS_CLUSTER_CHILD = "$aws:eks/cluster:Cluster::cluster-eksCluster"
RELEASE = "kubernetes:helm.sh/v3:Release"


def groups_waited_for(run: ProgramRun, r: Recorded) -> set[str]:
    """The layout names of the node groups `r` depends on."""
    by_urn = {g.urn: g.name for g in run.of_type(NODE_GROUP)}
    return {by_urn[d] for d in r.dependencies if d in by_urn}


def wave_of(run: ProgramRun) -> dict[str, int]:
    return {r.urn: i for i, group in enumerate(waves(run), 1) for r in group}


def inline(stack: str) -> dict:
    """A shipped stack with the Kubernetes layer in the cluster program (and an API it can reach)."""
    raw = stack_config(stack)
    raw["ml-platform-eks:kubernetesLayer"] = "inline"
    raw["ml-platform-eks:endpoint"] = {
        "privateAccess": True,
        "publicAccess": True,
        "publicAccessCidrs": ["34.120.10.7/32"],
    }
    return raw


def cluster_program(stack: str) -> ProgramRun:
    (cluster, _layer) = shipped_run(stack).programs
    return cluster


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_node_groups_wait_for_the_cluster_through_its_name_and_never_for_each_other(stack):
    run = cluster_program(stack)
    (eks,) = run.of_type(EKS)
    groups = run.of_type(NODE_GROUP)
    assert len(groups) >= 3
    for g in groups:
        cluster_name = g.property_dependencies["clusterName"]
        assert eks.urn in cluster_name and any(u.endswith(EKS_CLUSTER_CHILD) for u in cluster_name), g.name
        assert set(cluster_name) <= set(g.dependencies)
        assert g.inputs["clusterName"] == run.exports["clusterName"]
        assert groups_waited_for(run, g) == set(), g.name
    wave = wave_of(run)
    assert len({wave[g.urn] for g in groups}) == 1  # all created together
    assert wave[groups[0].urn] == wave[eks.urn] + 1  # right after the control plane


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_launch_templates_do_not_wait_for_the_cluster(stack):
    run = cluster_program(stack)
    (eks,) = run.of_type(EKS)
    wave = wave_of(run)
    templates = run.of_type(LAUNCH_TEMPLATE)
    assert templates
    for lt in templates:
        assert lt.dependencies == [], lt.name
        assert wave[lt.urn] == 1 < wave[eks.urn]


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_add_ons_wait_only_for_the_groups_their_pods_run_on(stack):
    (run,) = run_stack(stack, inline(stack)).programs
    layout = build_layout(parse(stack_config(stack)), stack)
    every = {g.name for g in layout.groups}
    core, gpu = set(core_services_groups(layout)), set(device_plugin_groups(layout))
    assert core == {"initial"} and gpu == {"gpu"}  # the shipped stacks, as written
    assert groups_waited_for(run, run.one(RELEASE, "cluster-autoscaler")) == core
    assert groups_waited_for(run, run.one(RELEASE, "nvidia-device-plugin")) == gpu
    ours = {a.inputs["addonName"]: a for a in run.of_type("aws:eks/addon:Addon") if a.created_by is None}
    # The node agents' add-ons (DaemonSets on every node, ACTIVE without nodes) wait for no group.
    agents = {a: ours.pop(a) for a in ("eks-node-monitoring-agent", "eks-pod-identity-agent") if a in ours}
    assert "eks-node-monitoring-agent" in agents  # nodeRepair is on by default
    assert all(groups_waited_for(run, addon) == set() for addon in agents.values())
    assert set(ours) == {"coredns", "aws-ebs-csi-driver"}  # the EBS CSI controller runs on the core group too
    assert all(groups_waited_for(run, addon) == core for addon in ours.values())
    # Only the autoscaler's priorities (they name every EKS node group) wait for every group.
    waiting_for_all = [r.name for r in run.resources if every - {"initial"} <= groups_waited_for(run, r)]
    assert waiting_for_all == ["configmap-cluster-autoscaler-priority-expander"]


def test_the_device_plugin_waits_for_every_gpu_group_and_nothing_else():
    raw = inline("dev")
    raw["ml-platform-eks:additionalNodeGroups"] = [
        {"name": "gpu-large", "instanceTypes": ["g5.12xlarge"], "gpu": True, "minSize": 0, "maxSize": 2},
        {"name": "cpu-extra", "instanceTypes": ["m5.2xlarge"], "minSize": 0, "maxSize": 2},
    ]
    run = run_program("dev", raw)
    assert groups_waited_for(run, run.one(RELEASE, "nvidia-device-plugin")) == {"gpu", "gpu-large"}
    assert groups_waited_for(run, run.one(RELEASE, "cluster-autoscaler")) == {"initial"}
