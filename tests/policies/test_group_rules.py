"""Rules about groups of nodes hold for every provisioner: node groups, Karpenter NodePools and any later one."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from mlplatform.cli import main
from mlplatform_core.model.resource_types import NODE_GROUP, NODE_POOL
from mlplatform_policies import RULES
from mlplatform_policies.groups import GROUP_VIEWS
from tests.conftest import ROOT

ENV = "mlplatform.io/environment"
ROLE = "mlplatform.io/node-role"


def node_group(name: str, role: str, env: str, spot: bool) -> dict:
    return {
        "nodeGroupName": name,
        "labels": {ROLE: role, ENV: env},
        "tags": {ENV: env},
        "capacityType": "SPOT" if spot else "ON_DEMAND",
        "instanceTypes": ["m5.xlarge"],
        "scalingConfig": {"minSize": 0, "maxSize": 3, "desiredSize": 0},
    }


def node_pool(name: str, role: str, env: str, spot: bool) -> dict:
    requirement = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot" if spot else "on-demand"]}
    return {
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"labels": {ROLE: role, ENV: env}},
                "spec": {"requirements": [requirement], "taints": []},
            }
        },
    }


# One maker of a group resource per provisioner; a provisioner added to groups.GROUP_VIEWS needs one here.
MAKERS = {NODE_GROUP: node_group, NODE_POOL: node_pool}


def args(resource_type: str, name: str, role: str, env: str = "prod", spot: bool = False):
    props = MAKERS[resource_type](name, role, env, spot)
    opts = SimpleNamespace(ignore_changes=[], parent=None)
    return SimpleNamespace(resource_type=resource_type, name=name, urn=f"urn:{name}", props=props, opts=opts)


GROUP_RULES = [r for r in RULES if set(r.resource_types) == set(GROUP_VIEWS)]
# (group, settings) that each group rule must flag and must pass, whatever the provisioner.
CASES = {
    "no-dev-groups-in-prod": (
        [{"name": "research", "role": "research"}, {"name": "notebooks", "role": "notebooks"}],
        [{"name": "workload", "role": "workload"}],
        {"forbiddenRoles": ["research", "notebooks"], "developmentRoles": ["jobs"]},
    ),
    "prod-workload-on-demand": (
        [{"name": "batch", "role": "batch", "spot": True}],
        [{"name": "workload", "role": "w"}],
        {},
    ),
}


def test_every_provisioner_has_a_group_maker():
    assert set(MAKERS) == set(GROUP_VIEWS)


def test_the_group_rules_are_those_with_cases():
    assert {r.name for r in GROUP_RULES} == set(CASES)


@pytest.mark.parametrize("resource_type", sorted(GROUP_VIEWS))
@pytest.mark.parametrize("rule", GROUP_RULES, ids=lambda r: r.name)
def test_each_group_rule_over_every_provisioner(rule, resource_type):
    flagged, passed, settings = CASES[rule.name]
    full = {k: s.default for k, s in rule.settings.items()} | settings
    for group in flagged:
        assert list(rule.check(args(resource_type, **group), full)), (rule.name, resource_type, group)
    for group in passed:
        assert not list(rule.check(args(resource_type, **group), full)), (rule.name, resource_type, group)


# Rules that read node groups and have a twin for NodePools, and rules about mechanics only managed node groups
# have. A new rule reading node groups must be a `groups` rule, or be listed here with its reason.
TWINS = {
    "node-lifecycle-label": "karpenter-pool-lifecycle-label",
    "spot-node-taint": "karpenter-spot-pool-taint",
    "gpu-node-group-dedicated": "karpenter-gpu-pool-dedicated",
    "gpu-types-only-in-gpu-groups": "karpenter-gpu-types-only-in-gpu-pools",
    "imdsv2-required": "karpenter-node-class-imdsv2",
    "encrypted-root-volumes": "karpenter-node-class-encrypted-volumes",
}
MANAGED_NODE_GROUPS_ONLY = {
    "gpu-accelerator-label": "the Cluster Autoscaler's GPU label; Karpenter reads the instance type itself",
    "node-group-scaling-bounds": "an Auto Scaling group's min/max; a NodePool has limits (karpenter-pool-limits)",
    "autoscaled-desired-size-ignored": "the desired size the autoscaler owns; a NodePool has none",
    "no-ssh-remote-access": "the node group's remoteAccess; an EC2NodeClass has no such setting",
    "node-auto-repair": "EKS node auto repair is a managed node group setting (nodeRepairConfig)",
    "capacity-block-scales-to-zero": "a CAPACITY_BLOCK managed node group's size and launch template",
}


def test_no_rule_reads_only_node_groups_without_a_reason():
    by_name = {r.name: r for r in RULES}
    node_group_only = {r.name for r in RULES if NODE_GROUP in r.resource_types and NODE_POOL not in r.resource_types}
    assert node_group_only <= set(TWINS) | set(MANAGED_NODE_GROUPS_ONLY), node_group_only - set(TWINS)
    assert all(twin in by_name for twin in TWINS.values())


def test_check_refuses_a_prod_karpenter_pool_the_policy_config_forbids(tmp_path, capsys):
    """The issue's case: a prod Karpenter stack whose pool has a role the policy config forbids."""
    stack = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()
    stack = stack.replace(
        "config:\n",
        "config:\n  ml-platform-eks:provisioner: karpenter\n  ml-platform-eks:additionalNodeGroups:\n"
        "    - {name: research, instanceTypes: [m5.2xlarge], maxSize: 4}\n",
        1,
    ).replace("      minSize: 2\n      maxSize: 20", "      maxSize: 20")  # a NodePool has no minSize
    path = tmp_path / "Pulumi.prod-karpenter.yaml"
    path.write_text(stack)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"no-dev-groups-in-prod": {"forbiddenRoles": ["research"]}}))
    code = main(["check", "--config-file", str(path), "--policy-config", str(policy), "--json"])
    doc = json.loads(capsys.readouterr().out)
    found = [v for v in doc["violations"] if v["policy"] == "no-dev-groups-in-prod"]
    assert code != 0 and found and "NodePool research" in found[0]["message"], doc["violations"]


def test_a_type_with_unknown_accelerators_is_not_taken_for_a_cpu_type_by_the_pack():
    from mlplatform_policies.props import ACCELERATORS_UNKNOWN, is_accelerated

    assert "trn2.3xlarge" in ACCELERATORS_UNKNOWN and is_accelerated("trn2.3xlarge")
    assert is_accelerated("p3.2xlarge") and not is_accelerated("m5.xlarge")
