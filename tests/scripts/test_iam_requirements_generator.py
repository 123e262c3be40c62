"""scripts/generators/generate_iam_requirements.py reads the upstream formats it claims to and fails loudly when they
change.

The fixtures are small hand-made files in each upstream format (not upstream data).
"""

from __future__ import annotations

import json

import pytest

from tests.scripts.test_generators import load

gen = load("generate_iam_requirements")

SERVICE = gen.ServiceData(
    json.dumps(
        {
            "eks": {
                "privileges": {"DescribeNodegroup": {"resource_types": {"nodegroup": {"required": True}}}},
                "resources": {
                    "nodegroup": {
                        "arn": "arn:${Partition}:eks:${Region}:${Account}:nodegroup/${ClusterName}/${Name}/${UUID}"
                    }
                },
            },
            "ec2": {
                "privileges": {
                    "DescribeImages": {"resource_types": {"": {"required": False}}},
                    "CreateVolume": {"resource_types": {"volume": {"required": True}, "snapshot": {"required": False}}},
                    "CreateTags": {"resource_types": {"volume": {"required": False}}},
                },
                "resources": {"volume": {"arn": "arn:${Partition}:ec2:${Region}:${Account}:volume/${VolumeId}"}},
            },
        }
    )
)


def test_a_star_resource_becomes_the_actions_one_required_resource_type():
    assert SERVICE.resource_of("eks:DescribeNodegroup") == (
        "arn:${Partition}:eks:${Region}:${AccountId}:nodegroup/${ClusterName}/example/example"
    )
    assert SERVICE.resource_of("ec2:DescribeImages") == "*"  # no resource-level permissions
    with pytest.raises(SystemExit, match="ec2:Nonexistent"):
        SERVICE.resource_of("ec2:Nonexistent")


def test_patterns_become_one_resource_of_this_stack():
    assert (
        gen._instantiate("arn:aws:ec2:*:*:volume/vol-*")
        == "arn:${Partition}:ec2:${Region}:${AccountId}:volume/vol-example"
    )
    assert (
        gen._instantiate("arn:${Partition}:ec2:${Region}::image/*") == "arn:${Partition}:ec2:${Region}::image/example"
    )
    assert gen._instantiate("*") == "*"


def test_a_statements_conditions_give_a_context_they_hold_for():
    ctx = gen.context_of(
        {
            "StringEquals": {
                "aws:RequestTag/kubernetes.io/cluster/${ClusterName}": "owned",
                "ec2:CreateAction": ["RunInstances", "CreateFleet"],
            },
            "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
            "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "Name"]},
            "Null": {"aws:TagKeys": "false"},
        }
    )
    assert ctx["requestTags"] == {"kubernetes.io/cluster/${ClusterName}": "owned"}
    assert ctx["resourceTags"] == {"karpenter.sh/nodepool": "example"}
    assert ctx["tagKeys"] == ["eks:eks-cluster-name", "Name"]
    assert ctx["context"] == {"ec2:CreateAction": ["RunInstances"]}
    assert gen.context_of({"ForAllValues:StringNotEquals": {"aws:TagKeys": ["x"]}})["tagKeys"] == ["example-key"]


def test_statements_that_are_not_plain_allows_or_name_wildcard_actions_are_refused():
    deny = {"Statement": [{"Effect": "Deny", "Action": "ec2:*", "Resource": "*"}]}
    with pytest.raises(SystemExit, match="not a plain Allow"):
        gen.requests_of(deny, "P", SERVICE)
    wildcard = {"Statement": [{"Effect": "Allow", "Action": "ec2:Describe*", "Resource": "*"}]}
    with pytest.raises(SystemExit, match="wildcard"):
        gen.requests_of(wildcard, "P", SERVICE)


CONTROLLER = """
const trueStr = "true"
const isManagedByDriver = trueStr
		volumeTags               = map[string]string{
			cloud.VolumeNameTagKey:   volName,
			cloud.AwsEbsDriverTagKey: isManagedByDriver,
		}
	snapshotTags := map[string]string{
		cloud.SnapshotNameTagKey: snapshotName,
		cloud.AwsEbsDriverTagKey: isManagedByDriver,
	}
"""
CLOUD = """
	VolumeNameTagKey = "CSIVolumeName"
	SnapshotNameTagKey = "CSIVolumeSnapshotName"
	AwsEbsDriverTagKey = util.GetDriverName() + "/cluster"
"""
MAIN = '\t\tdriverName := "ebs.csi.aws.com"\n'


def test_the_ebs_csi_drivers_tags_are_read_from_its_source():
    tags = gen.ebs_csi_tags(CONTROLLER, CLOUD, MAIN)
    assert tags["volume"] == {"CSIVolumeName": "pvc-example", "ebs.csi.aws.com/cluster": "true"}
    assert tags["snapshot"]["ebs.csi.aws.com/cluster"] == "true"
    # A driver that stops tagging its volumes with the cluster tag is not read as if it did.
    with pytest.raises(SystemExit, match="volume tags changed"):
        gen.ebs_csi_tags(
            CONTROLLER.replace("cloud.AwsEbsDriverTagKey: isManagedByDriver,\n\t\t}", "\n\t\t}", 1), CLOUD, MAIN
        )


def test_the_ebs_csi_needs_carry_the_drivers_tags_not_the_policys():
    v2 = {
        "Statement": [
            {
                "Sid": "CreateWithManagedTag",
                "Effect": "Allow",
                "Action": ["ec2:CreateVolume"],
                "Resource": "arn:aws:ec2:*:*:volume/*",
                "Condition": {"StringEquals": {"aws:RequestTag/ebs.csi.aws.com/cluster": "true"}},
            },
            {
                "Sid": "CreateMigrated",
                "Effect": "Allow",
                "Action": ["ec2:CreateVolume"],
                "Resource": "arn:aws:ec2:*:*:volume/*",
                "Condition": {"StringLike": {"aws:RequestTag/kubernetes.io/created-for/pvc/name": "*"}},
            },
        ]
    }
    tags = {"volume": {"CSIVolumeName": "pvc-example", "ebs.csi.aws.com/cluster": "true"}}
    out = gen.ebs_csi(v2, tags, SERVICE)
    assert len(out) == 1  # both statements are the same call as the driver makes it
    assert out[0]["requestTags"] == tags["volume"]


AUTOSCALER_README = """
#### Full Cluster Autoscaler Features Policy (Recommended)

```json
{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Action": ["ec2:DescribeImages", "eks:DescribeNodegroup"], "Resource": ["*"]}]}
```

`--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name>`
"""


def test_the_autoscalers_documented_policy_and_discovery_tags_are_read():
    out = gen.autoscaler(AUTOSCALER_README, SERVICE)
    assert [r["action"] for r in out] == ["ec2:DescribeImages", "eks:DescribeNodegroup"]
    assert out[1]["resource"].startswith("arn:${Partition}:eks:${Region}:${AccountId}:nodegroup/${ClusterName}/")
    with pytest.raises(SystemExit, match="auto-discovery tag keys changed"):
        gen.autoscaler(AUTOSCALER_README.replace("/enabled,", "/on,"), SERVICE)
    with pytest.raises(SystemExit, match="Full Cluster Autoscaler Features Policy"):
        gen.autoscaler("no policy here", SERVICE)


AUTO_MODE_PAGE = """
[[tag-prop,tag-prop.title]]
== Custom {aws} tags for EKS Auto resources
[source,json]
----
{"Version": "2012-10-17", "Statement": [
 {"Sid": "Compute", "Effect": "Allow", "Action": ["ec2:CreateVolume"], "Resource": "*",
  "Condition": {"StringEquals": {"aws:RequestTag/eks:eks-cluster-name": "${aws:PrincipalTag/eks:eks-cluster-name}"}}},
 {"Sid": "Networking", "Effect": "Allow", "Action": "ec2:DescribeImages", "Resource": "*"},
 {"Sid": "Shield", "Effect": "Allow", "Action": "ec2:DescribeImages", "Resource": "*"}]}
----
"""


def test_the_auto_mode_custom_tag_policy_is_read_for_compute_and_networking():
    out = gen.auto_mode(AUTO_MODE_PAGE, SERVICE)
    assert [r["why"].rsplit(" ", 1)[1] for r in out] == ["Compute", "Networking"]
    assert out[0]["requestTags"] == {"eks:eks-cluster-name": "${ClusterName}"}
    with pytest.raises(SystemExit, match="statements are"):
        gen.auto_mode(AUTO_MODE_PAGE.replace('"Networking"', '"Other"'), SERVICE)
