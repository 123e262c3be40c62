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
    opts = {"replaceOnChanges": ["value", "preemptionPolicy"], "deleteBeforeReplace": True}  # as the program sets
    before = [res(pc, "high", {"metadata": {"name": "igz-high"}, "value": 100}, **opts)]
    after = [res(pc, "high", {"metadata": {"name": "igz-high"}, "value": 200}, **opts)]
    action, fields, order = actions(before, after)["high"]
    assert (action, fields, order) == ("replace", ["value"], "delete-before-replace")
    # Without replaceOnChanges pulumi-kubernetes tries an update, which the API server refuses: said, not hidden.
    bare = diff_resources([res(pc, "high", before[0]["inputs"])], [res(pc, "high", after[0]["inputs"])])[0]
    assert bare.action == "update" and "refuses" in bare.note and "replaceOnChanges" in bare.note
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
    bucket = "aws:s3/bucket:Bucket"  # a type the program never registers: its schema was not read
    change = diff_resources([res(bucket, "b", {"acl": "a"})], [res(bucket, "b", {"acl": "b"})])[0]
    assert change.action == "update" and not change.facts_known and "pulumi preview --diff" in change.note


def test_a_launch_template_change_is_a_new_version_and_a_roll_of_its_group():
    before = [res(LT, "gpu-lt", {"imageId": "ami-1", "userData": "a"}), group()]
    after = [res(LT, "gpu-lt", {"imageId": "ami-2", "userData": "a"}), group()]
    changes = {c.name: c for c in diff_resources(before, after)}
    assert (changes["gpu-lt"].action, changes["gpu-lt"].facts_known, changes["gpu-lt"].note) == ("update", True, None)
    assert (changes["gpu"].action, changes["gpu"].fields) == ("roll", ["launchTemplate.version"])


def test_generated_facts_of_the_network_and_add_ons():
    addon, subnet = "aws:eks/addon:Addon", "aws:ec2/subnet:Subnet"
    found = actions(
        [
            res(addon, "csi", {"addonName": "aws-ebs-csi-driver", "addonVersion": "v1"}),
            res(subnet, "a", {"cidrBlock": "10.0.0.0/19"}),
        ],
        [
            res(addon, "csi", {"addonName": "aws-efs-csi-driver", "addonVersion": "v1"}),
            res(subnet, "a", {"cidrBlock": "10.0.32.0/19"}),
        ],
    )
    assert found["csi"] == ("replace", ["addonName"], "create-before-delete")
    assert found["a"] == ("replace", ["cidrBlock"], "create-before-delete")
    version = actions([res(addon, "csi", {"addonVersion": "v1"})], [res(addon, "csi", {"addonVersion": "v2"})])
    assert version["csi"] == ("update", ["addonVersion"], None)


def test_a_conditional_replacement_names_the_check_that_decides():
    vpc = "aws:ec2/vpc:Vpc"
    change = diff_resources(
        [res(vpc, "v", {"instanceTenancy": "dedicated"})], [res(vpc, "v", {"instanceTenancy": "default"})]
    )[0]
    assert change.action == "replace" and "resourceVPCCustomizeDiff" in change.note and "preview" in change.note


def test_kubernetes_objects_replace_as_pulumi_kubernetes_decides():
    cm, ns = "kubernetes:core/v1:ConfigMap", "kubernetes:core/v1:Namespace"
    meta = {"name": "mlrun-spot-settings", "namespace": "mlrun"}
    found = actions(
        [res(cm, "cm", {"metadata": meta, "data": {"a": "1"}}), res(ns, "ns", {"metadata": {"name": "mlrun"}})],
        [res(cm, "cm", {"metadata": meta, "data": {"a": "2"}}), res(ns, "ns", {"metadata": {"name": "ml"}})],
    )
    # A ConfigMap's data is immutable to the provider by default; the same fixed name means delete first.
    assert found["cm"] == ("replace", ["data.a"], "delete-before-replace")
    # A new name is a new object beside the old one: nothing collides (provider.go Diff: deleteBeforeReplace
    # only when the name stays).
    assert found["ns"] == ("replace", ["metadata.name"], "create-before-delete")


def test_an_input_reading_several_replaced_resources_is_named_once():
    """subnetIds reads every private subnet: a new VPC CIDR replaces all three, the field is one changed input."""
    subnet = "aws:ec2/subnet:Subnet"
    subnets = [f"private-{i}" for i in range(3)]
    ng = res(NG, "gpu", {"subnetIds": ["s"]}, {"subnetIds": [res(subnet, s, {})["urn"] for s in subnets]})
    before = [*(res(subnet, s, {"cidrBlock": f"10.0.{i}.0/24"}) for i, s in enumerate(subnets)), ng]
    after = [*(res(subnet, s, {"cidrBlock": f"10.9.{i}.0/24"}) for i, s in enumerate(subnets)), ng]
    assert actions(before, after)["gpu"][:2] == ("replace", ["subnetIds"])


def test_a_node_pool_rolls_when_its_requirements_narrow_not_when_they_widen():
    """Karpenter drifts a node only when its labels break the new requirements (drift.go areRequirementsDrifted;
    requirements are `hash:"ignore"`): more instance types drift nothing, a type taken away rolls the pool."""
    pool = "kubernetes:karpenter.sh/v1:NodePool"

    def jobs(types, **extra):
        reqs = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": types}]
        reqs += [{"key": k, "operator": "In", "values": v} for k, v in extra.items()]
        return res(pool, "nodepool-jobs", {"spec": {"template": {"spec": {"requirements": reqs}}}})

    def action(before, after):
        return actions([before], [after])["nodepool-jobs"][0]

    assert action(jobs(["m5.2xlarge"]), jobs(["m5.2xlarge", "m5.4xlarge"])) == "update"
    assert action(jobs(["m5.2xlarge", "m5.4xlarge"]), jobs(["m5.4xlarge"])) == "roll"
    assert action(jobs(["m5.2xlarge"]), jobs(["m5.2xlarge"], zone=["us-east-1a"])) == "roll"  # a new key
    assert action(jobs(["m5.2xlarge"], zone=["us-east-1a"]), jobs(["m5.2xlarge"])) == "update"  # a key dropped
