"""The per-resource actions of the diff, on small documents: how Pulumi would take each change."""

from __future__ import annotations

from mlplatform_core.change.resources import diff_resources

NG, LT, ROLE = "aws:eks/nodeGroup:NodeGroup", "aws:ec2/launchTemplate:LaunchTemplate", "aws:iam/role:Role"


def res(type_, name, inputs, deps=None, **options):
    return {
        "type": type_,
        "name": name,
        "urn": f"urn:pulumi:s::p::{type_}::{name}",
        "custom": True,
        "inputs": inputs,
        "ignoreChanges": [],
        "replaceOnChanges": [],
        "deleteBeforeReplace": False,
        "propertyDependencies": deps or {},
        **options,
    }


def group(**changes):
    inputs = {
        "instanceTypes": ["g5.2xlarge"],
        "scalingConfig": {"minSize": 0, "maxSize": 8, "desiredSize": 0},
        "version": "1.35",
        "nodeRoleArn": "arn:role",
        "launchTemplate": {"id": "lt-1", "version": "1"},
    }
    inputs.update(changes)
    deps = {"nodeRoleArn": [res(ROLE, "node", {})["urn"]], "launchTemplate": [res(LT, "gpu-lt", {})["urn"]]}
    return res(NG, "gpu", inputs, deps, ignoreChanges=["scalingConfig.desiredSize"])


def actions(before, after):
    return {c.name: (c.action, c.fields, c.order) for c in diff_resources(before, after)}


def test_ignore_changes_are_honoured():
    before = [group()]
    after = [group(scalingConfig={"minSize": 0, "maxSize": 8, "desiredSize": 5})]
    assert actions(before, after)["gpu"][0] == "same"


def test_a_new_launch_template_version_rolls_the_group():
    before = [res(LT, "gpu-lt", {"blockDeviceMappings": [{"ebs": {"volumeSize": 100}}]}), group()]
    after = [res(LT, "gpu-lt", {"blockDeviceMappings": [{"ebs": {"volumeSize": 200}}]}), group()]
    found = actions(before, after)
    assert found["gpu"] == ("roll", ["launchTemplate.version"], None)
    assert found["gpu-lt"][0] == "update"


def test_a_replaced_node_role_replaces_the_group_through_its_arn():
    before = [res(ROLE, "node", {"path": "/"}), group()]
    after = [res(ROLE, "node", {"path": "/ml/"}), group()]
    found = actions(before, after)
    assert found["node"][0] == "replace"
    assert found["gpu"] == ("replace", ["nodeRoleArn"], "create-before-delete")


def test_a_fixed_name_or_the_program_orders_delete_first():
    pc = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
    before = [res(pc, "high", {"metadata": {"name": "igz-high"}, "value": 100})]
    after = [res(pc, "high", {"metadata": {"name": "igz-high"}, "value": 200})]
    action, fields, order = actions(before, after)["high"]
    assert (action, fields, order) == ("replace", ["value"], "delete-before-replace")
    cluster = "aws:eks/cluster:Cluster"
    before = [res(cluster, "c", {"name": "mlp-prod", "roleArn": "a"}, protect=True)]
    after = [res(cluster, "c", {"name": "mlp-prod", "roleArn": "b"}, protect=True)]
    change = diff_resources(before, after)[0]
    assert change.order == "delete-before-replace" and "already exists" in change.note and "protected" in change.note


def test_created_deleted_and_components_left_out():
    comp = {**res("mlplatform:node_group:NodeGroup", "gpu", {}), "custom": False}
    found = actions([comp, group()], [comp, res(NG, "cpu", {})])
    assert found == {"cpu": ("create", [], None), "gpu": ("delete", [], None)}


def test_no_facts_is_said_not_guessed():
    sg = "aws:ec2/securityGroup:SecurityGroup"
    change = diff_resources([res(sg, "sg", {"description": "a"})], [res(sg, "sg", {"description": "b"})])[0]
    assert change.action == "update" and not change.facts_known and "pulumi preview --diff" in change.note


def test_only_the_cluster_has_a_fixed_aws_name(prod_run, dev_run):
    """Names that survive replacement: every AWS resource the diff knows a name property for is auto-named,
    except the EKS cluster (IAM conditions, ASG tags and kubeconfigs refer to it: delete-before-replace)."""
    from mlplatform_core.change.replacement import NAME_PROPERTIES

    for run in (prod_run, dev_run):
        fixed = {r.type for r in run.resources if r.type in NAME_PROPERTIES and r.inputs.get(NAME_PROPERTIES[r.type])}
        assert fixed == {"aws:eks/cluster:Cluster"}
