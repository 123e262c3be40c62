"""The real Pulumi program under mocks: the resources and inputs each shipped stack registers."""

from __future__ import annotations

import pytest

from mlplatform.engine import run_stack
from mlplatform_core.model.cluster import CONTROL_PLANE_LOG_TYPES, node_managed_policies
from tests.conftest import stack_config
from tests.runs import shipped_run

NG = "aws:eks/nodeGroup:NodeGroup"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
TAG = "aws:autoscaling/tag:Tag"
EKS_CLUSTER = "aws:eks/cluster:Cluster"
CA = "k8s.io/cluster-autoscaler"


def groups(run):
    return {r.name: r for r in run.of_type(NG)}


def asg_tags(run, group):
    return {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in run.of_type(TAG) if t.parent == group.parent}


def launch_template(run, group):
    (lt,) = [r for r in run.of_type(LT) if r.parent == group.parent]
    return lt


def test_dev_node_groups_carry_capacity_labels_and_taints(dev_run):
    ng = groups(dev_run)
    assert set(ng) == {"initial", "jupyter", "jobs", "spot", "gpu"}
    spot = ng["spot"].inputs
    assert spot["capacityType"] == "SPOT"
    assert spot["labels"]["app.iguazio.com/lifecycle"] == "preemptible"
    assert spot["taints"] == [{"key": "app.iguazio.com/lifecycle", "value": "preemptible", "effect": "NO_SCHEDULE"}]
    initial = ng["initial"].inputs
    assert initial["capacityType"] == "ON_DEMAND"
    assert initial["taints"] == [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NO_SCHEDULE"}]
    gpu = ng["gpu"].inputs
    assert gpu["amiType"] == "AL2023_x86_64_NVIDIA"
    assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"} in gpu["taints"]
    assert gpu["labels"]["nvidia.com/gpu.present"] == "true"
    for name in ("jupyter", "jobs"):
        assert ng[name].inputs["labels"]["app.iguazio.com/lifecycle"] == "non-preemptible"
    # Notebooks get their own nodes; jobs and functions go to the jobs group.
    assert ng["jupyter"].inputs["taints"] == [
        {"key": "mlplatform.io/node-role", "value": "jupyter", "effect": "NO_SCHEDULE"}
    ]
    assert ng["jobs"].inputs["taints"] == []


def test_prod_node_groups(prod_run):
    ng = groups(prod_run)
    assert set(ng) == {"initial", "workload", "gpu"}
    assert ng["initial"].inputs["scalingConfig"] == {"minSize": 3, "maxSize": 3, "desiredSize": 3}
    assert ng["workload"].inputs["capacityType"] == "ON_DEMAND"
    assert ng["workload"].inputs["scalingConfig"]["minSize"] >= 1


def test_autoscaled_groups_leave_desired_size_to_the_autoscaler(dev_run):
    ng = groups(dev_run)
    assert ng["initial"].ignore_changes == []
    for name in ("jupyter", "jobs", "spot", "gpu"):
        assert ng[name].ignore_changes == ["scalingConfig.desiredSize"]


def test_asg_tags_let_groups_scale_from_zero(dev_run):
    ng = groups(dev_run)
    gpu = asg_tags(dev_run, ng["gpu"])
    assert gpu[f"{CA}/node-template/resources/nvidia.com/gpu"] == "1"
    assert gpu[f"{CA}/node-template/label/k8s.amazonaws.com/accelerator"] == "nvidia-a10g"
    assert gpu[f"{CA}/node-template/taint/nvidia.com/gpu"] == "true:NoSchedule"
    spot = asg_tags(dev_run, ng["spot"])
    assert spot[f"{CA}/node-template/label/app.iguazio.com/lifecycle"] == "preemptible"
    assert spot[f"{CA}/node-template/taint/app.iguazio.com/lifecycle"] == "preemptible:NoSchedule"
    # Every tag sits on the group's own Auto Scaling group and is not copied to instances.
    for tag in dev_run.of_type(TAG):
        assert tag.inputs["autoscalingGroupName"].startswith("eks-")
        assert tag.inputs["tag"]["propagateAtLaunch"] is False
    # EKS puts the discovery tags on every managed node group's ASG; the stack must not own them.
    for group in ng.values():
        assert not {f"{CA}/enabled", f"{CA}/mlp-dev"} & set(asg_tags(dev_run, group)), group.name


def test_launch_templates_enforce_imdsv2_encrypted_gp3_and_no_ssh(dev_run):
    for name, group in groups(dev_run).items():
        lt = launch_template(dev_run, group).inputs
        assert lt["metadataOptions"] == {
            "httpEndpoint": "enabled",
            "httpTokens": "required",
            "httpPutResponseHopLimit": 1,
        }
        (disk,) = lt["blockDeviceMappings"]
        assert disk["ebs"]["encrypted"] == "true" and disk["ebs"]["volumeType"] == "gp3"
        assert "keyName" not in lt and "remoteAccess" not in group.inputs
        assert group.inputs["launchTemplate"]["id"].startswith(f"{name}-lt-")
        assert group.inputs["updateConfig"] == {"maxUnavailable": 1}


def control_plane(run):
    """The aws:eks/cluster:Cluster pulumi_eks.Cluster creates: in a real run it carries the settings."""
    return run.one(EKS_CLUSTER, "cluster-eksCluster")


def test_control_plane_baseline(dev_run, prod_run):
    for run in (dev_run, prod_run):
        # A remote component: the engine registers it with no properties (engine/remote/pulumi_eks.py).
        assert run.one("eks:index:Cluster", "cluster").inputs == {}
        eks = control_plane(run).inputs
        assert eks["accessConfig"]["authenticationMode"] == "API"
        assert eks["enabledClusterLogTypes"] == CONTROL_PLANE_LOG_TYPES
        key = run.one("aws:kms/key:Key", "cluster-secrets").outputs["arn"]
        assert eks["encryptionConfig"] == {"provider": {"keyArn": key}, "resources": ["secrets"]}
        assert run.of_type("aws:iam/openIdConnectProvider:OpenIdConnectProvider")
        # CoreDNS has one owner: the workload layer's add-on, not pulumi_eks; and no default node group.
        by_eks = [r for r in run.resources if r.created_by]
        assert {r.inputs["addonName"] for r in by_eks if r.type == "aws:eks/addon:Addon"} == {"kube-proxy", "vpc-cni"}
        assert not [r for r in by_eks if r.type.startswith(("aws:autoscaling", "aws:ec2/launch", "aws:eks/node"))]
    dev = control_plane(dev_run).inputs["vpcConfig"]
    assert dev["endpointPublicAccess"] is False and "publicAccessCidrs" not in dev
    prod = control_plane(prod_run)
    assert prod.inputs["vpcConfig"]["endpointPublicAccess"] is False
    assert prod.inputs["vpcConfig"]["endpointPrivateAccess"] is True
    assert "publicAccessCidrs" not in prod.inputs["vpcConfig"]
    assert prod.inputs["deletionProtection"] is True and control_plane(dev_run).inputs["deletionProtection"] is False
    assert prod.protect and not control_plane(dev_run).protect
    assert prod_run.one("aws:kms/key:Key", "cluster-secrets").inputs["enableKeyRotation"] is True


def test_node_role_has_only_the_node_policies(dev_run):
    attached = {
        r.inputs["policyArn"]
        for r in dev_run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        if r.name.startswith("cluster-node-")
    }
    assert attached == set(node_managed_policies("us-east-1").values())


def test_components_parent_their_children(dev_run):
    (cluster,) = dev_run.of_type("mlplatform:cluster:Cluster")
    assert dev_run.one("eks:index:Cluster", "cluster").parent == cluster.urn
    for group in dev_run.of_type(NG):
        assert "mlplatform:node_group:NodeGroup" in group.parent


def test_new_vpc_spans_the_requested_zones_with_private_node_subnets(prod_run):
    subnets = prod_run.of_type("aws:ec2/subnet:Subnet")
    private = [s for s in subnets if "kubernetes.io/role/internal-elb" in s.inputs["tags"]]
    assert len(private) == 3 and len({s.inputs["availabilityZone"] for s in private}) == 3
    assert len(prod_run.of_type("aws:ec2/natGateway:NatGateway")) == 3  # perAz in prod
    assert len(control_plane(prod_run).inputs["vpcConfig"]["subnetIds"]) == 3


def test_existing_vpc_is_used_as_given():
    raw = stack_config("dev")
    raw["ml-platform-eks:network"] = {
        "vpcId": "vpc-0123456789abcdef0",
        "privateSubnetIds": ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    }
    run = run_stack("dev", raw)
    assert not run.of_type("aws:ec2/vpc:Vpc")
    assert control_plane(run).inputs["vpcConfig"]["subnetIds"] == [
        "subnet-0aaaaaaaaaaaaaaaa",
        "subnet-0bbbbbbbbbbbbbbbb",
    ]
    assert {sg.inputs["vpcId"] for sg in run.of_type("aws:ec2/securityGroup:SecurityGroup")} == {
        "vpc-0123456789abcdef0"
    }
    for group in run.of_type(NG):
        assert group.inputs["subnetIds"] == ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]


def test_stack_outputs(dev_run):
    assert dev_run.exports["clusterName"] == "mlp-dev"
    assert "kubeconfig" in dev_run.secret_exports
    assert dev_run.public_exports()["kubeconfig"] == "[secret]"
    assert set(dev_run.exports["nodeGroups"]) == {"initial", "jupyter", "jobs", "spot", "gpu"}


def test_invalid_config_stops_the_program_before_any_resource():
    import pulumi

    raw = stack_config("dev")
    raw["ml-platform-eks:nodeGroups"]["jobs"]["minSize"] = 50
    with pytest.raises(pulumi.RunError, match=r"nodeGroups\.jobs\.minSize"):
        run_stack("dev", raw)


def test_runs_are_independent():
    again = run_stack("dev", stack_config("dev"))
    assert len(again.resources) == len(shipped_run("dev").resources)


def test_the_flow_log_group_is_encrypted_with_the_stacks_key_once_its_policy_lets_cloudwatch_logs_use_it(prod_run):
    """CKV_AWS_158; CreateLogGroup with a key whose policy does not allow CloudWatch Logs fails."""
    import json

    key = prod_run.one("aws:kms/key:Key", "cluster-secrets")
    policy = prod_run.one("aws:kms/keyPolicy:KeyPolicy", "cluster-secrets")
    (group,) = prod_run.of_type("aws:cloudwatch/logGroup:LogGroup")
    assert group.inputs["kmsKeyId"] == key.outputs["arn"]
    assert policy.urn in group.dependencies
    statements = json.loads(policy.inputs["policy"])["Statement"]
    (logs,) = [s for s in statements if s.get("Principal", {}).get("Service", "").startswith("logs.")]
    assert logs["Principal"]["Service"] == "logs.us-east-1.amazonaws.com"
    arn = logs["Condition"]["ArnLike"]["kms:EncryptionContext:aws:logs:arn"]
    assert arn.endswith(":log-group:" + group.inputs["namePrefix"] + "*")
    # The flow log writes to that group.
    (flow,) = prod_run.of_type("aws:ec2/flowLog:FlowLog")
    assert flow.inputs["logDestination"] == group.outputs["arn"]


def test_a_stack_in_its_own_vpc_lets_no_logs_service_use_the_key():
    raw = stack_config("dev")
    raw["ml-platform-eks:network"] = {
        "vpcId": "vpc-0123456789abcdef0",
        "privateSubnetIds": ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    }
    import json

    run = run_stack("dev", raw)
    statements = json.loads(run.one("aws:kms/keyPolicy:KeyPolicy", "cluster-secrets").inputs["policy"])["Statement"]
    assert not [s for s in statements if "Service" in s.get("Principal", {})]
