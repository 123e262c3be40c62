"""The rehearsal fails where a real `pulumi up` would: moto answers as IAM does, botocore refuses bad shapes.

Each test takes a stack that replays cleanly, changes one thing the way a mistake would, and shows the
failure names the resource, the operation and AWS's error code.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from mlplatform import plan as plan_module
from mlplatform.engine import ProgramRun
from mlplatform_core.model.addons import ebs_csi

from .conftest import plan_run, rehearse

pytestmark = pytest.mark.rehearse
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"


def changed(run: ProgramRun, type_: str, name: str, **inputs) -> ProgramRun:
    """`run` with one resource's inputs changed (a copy: the cached recording stays as it is)."""
    resources = [
        dataclasses.replace(r, inputs={**copy.deepcopy(r.inputs), **inputs}) if (r.type, r.name) == (type_, name) else r
        for r in run.resources
    ]
    return dataclasses.replace(run, resources=resources)


def failures(result) -> dict[tuple[str, str], str]:
    return {(f.type, f.name): f.message for f in result.failures}


def test_the_ebs_csi_role_replays_with_the_v2_policy_arn(endpoint):
    run = plan_run("dev")
    (attachment,) = [r for r in run.of_type(ATTACHMENT) if r.name == "platform-storage-ebs-csi"]
    assert attachment.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"
    result = rehearse(endpoint, run)
    assert result.ok, result.summary()
    attached = [c.params for c in result.calls if c.operation == "AttachRolePolicy"]
    assert {"RoleName": attachment.inputs["role"], "PolicyArn": attachment.inputs["policyArn"]} in attached


def test_the_old_service_role_path_of_the_ebs_csi_policy_fails_at_attach_role_policy(endpoint, monkeypatch):
    """As the program was before the fix: AWS has no `service-role/AmazonEBSCSIDriverPolicyV2` (NoSuchEntity)."""
    old = "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2"
    monkeypatch.setattr(ebs_csi, "policy_arn", lambda region: old)
    # The plan refuses this ARN itself (tests/mlplatform/test_iam_proof.py); the rehearsal must catch it on its
    # own too, so the plan's IAM proofs are set aside for this run.
    monkeypatch.setattr(plan_module, "stack_problems", lambda resources, partition: [])
    monkeypatch.setattr(plan_module, "prove_iam", lambda *args: None)
    run = plan_run.__wrapped__("dev")  # the program run afresh, with the old ARN
    result = rehearse(endpoint, run, label="dev-old-ebs-csi-arn", report=False)
    assert not result.ok
    message = failures(result)[(ATTACHMENT, "platform-storage-ebs-csi")]
    assert message.startswith("AttachRolePolicy: NoSuchEntity")
    assert old in message
    # Only that attachment, and what waits on it, fails: the rest of the stack replays.
    assert sum(result.created.values()) > 50


def test_an_inline_policy_iam_refuses_fails_at_put_role_policy(endpoint):
    run = plan_run("dev")
    (policy,) = run.of_type("aws:iam/rolePolicy:RolePolicy")[:1]
    document = json.loads(policy.inputs["policy"])
    del document["Statement"][0]["Effect"]  # every statement needs an Effect
    result = rehearse(
        endpoint,
        changed(run, policy.type, policy.name, policy=json.dumps(document)),
        label="dev-bad-policy",
        report=False,
    )
    message = failures(result)[(policy.type, policy.name)]
    assert message.startswith("PutRolePolicy: MalformedPolicyDocument"), message


def test_a_request_botocore_refuses_fails_before_it_is_sent(endpoint):
    """A shape error (a number where the API takes a string) is botocore's, client-side, before any call."""
    run = plan_run("dev")
    (key,) = run.of_type("aws:kms/key:Key")
    result = rehearse(endpoint, changed(run, key.type, key.name, description=42), label="dev-bad-shape", report=False)
    message = failures(result)[(key.type, key.name)]
    assert "Parameter validation failed" in message and "Description" in message, message
    assert not [c for c in result.calls if c.operation == "CreateKey"]  # never sent


def test_an_aws_type_with_no_mapping_fails_the_rehearsal(endpoint):
    run = plan_run("dev")
    (vpc,) = run.of_type("aws:ec2/vpc:Vpc")
    unknown = dataclasses.replace(vpc, type="aws:ec2/vpcIpam:VpcIpam", urn=vpc.urn + "-ipam", name="ipam")
    result = rehearse(
        endpoint, dataclasses.replace(run, resources=[*run.resources, unknown]), label="dev-unmapped", report=False
    )
    assert failures(result)[("aws:ec2/vpcIpam:VpcIpam", "ipam")].startswith("no mapping to the AWS API")


def test_an_input_the_mapping_does_not_send_fails_the_rehearsal(endpoint):
    run = plan_run("dev")
    (vpc,) = run.of_type("aws:ec2/vpc:Vpc")
    result = rehearse(
        endpoint, changed(run, vpc.type, vpc.name, ipv4IpamPoolId="ipam-pool-1"), label="dev-unsent", report=False
    )
    assert "ipv4IpamPoolId" in failures(result)[(vpc.type, vpc.name)]
