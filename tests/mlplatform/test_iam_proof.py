"""The plan proves the stack's IAM against AWS's data before anything is created: a managed policy that does not
exist in the stack's partition, or a policy document with an action AWS does not define, refuses the plan with
exit 2 (mlplatform_core/model/iam). Every shipped stack, example and partition variant passes."""

from __future__ import annotations

import json

import pytest

import mlplatform_core.model.addons.autoscaler as autoscaler
import mlplatform_core.model.addons.ebs_csi as ebs_csi
from mlplatform.cli import main
from mlplatform.engine import run_stack
from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.iam.proof import stack_problems
from mlplatform_core.model.regions import partition_of
from tests.conftest import ROOT, stack_config
from tests.mlplatform.test_partitions import CASES, planned
from tests.runs import shipped_run

EXAMPLE_STACKS = ("prod-unprotected", "shared-gpus", "training")  # examples/stacks/ (broken.yaml is meant to fail)
OLD_EBS_CSI = "arn:{p}:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2"


def problems_of(run, region: str) -> list[tuple[str, str]]:
    return stack_problems(((r.type, r.name, r.inputs) for r in run.resources), partition_of(region))


def plan_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(["plan", *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("stack", ["dev", "prod", "dev-karpenter", "dev-automode"])
def test_every_shipped_stack_attaches_existing_policies_and_writes_valid_documents(stack):
    run = shipped_run(stack)
    assert run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")  # the proof had something to prove
    assert problems_of(run, "us-east-1") == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_partition_variant_passes(case):
    assert problems_of(planned(case), CASES[case][1]) == []


@pytest.mark.parametrize("example", EXAMPLE_STACKS)
def test_every_example_stack_passes(example):
    raw = read_stack_file(ROOT / "examples" / "stacks" / f"Pulumi.{example}.yaml")
    assert problems_of(run_stack(example, raw), str(raw["aws:region"])) == []


def test_irsa_trust_policies_pass_with_their_oidc_condition_keys():
    raw = stack_config("dev-karpenter")
    raw["ml-platform-eks:podIdentity"] = False  # IRSA: <issuer>:sub and :aud, which IAM defines per provider
    run = run_stack("dev-karpenter", raw)
    trusts = [r.inputs["assumeRolePolicy"] for r in run.of_type("aws:iam/role:Role")]
    assert any(":sub" in t and "AssumeRoleWithWebIdentity" in t for t in trusts)
    assert problems_of(run, "us-east-1") == []


def test_the_ebs_csi_policy_under_the_old_service_role_path_refuses_the_plan(capsys, monkeypatch):
    monkeypatch.setattr(ebs_csi, "policy_arn", lambda region: OLD_EBS_CSI.format(p=partition_of(region)))
    code, err = plan_cli(capsys, "dev")
    assert code == 2
    assert "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicyV2" in err  # the policy, as attached
    assert "partition aws" in err and "NoSuchEntity" in err
    assert "did you mean arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?" in err  # the path it has


def test_the_old_path_is_refused_in_govcloud_too_with_the_partitions_arn(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(ebs_csi, "policy_arn", lambda region: OLD_EBS_CSI.format(p=partition_of(region)))
    stack = tmp_path / "Pulumi.gov.yaml"
    raw = read_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml")
    raw["aws:region"] = "us-gov-west-1"
    stack.write_text(json.dumps({"config": raw}))
    code, err = plan_cli(capsys, "--config-file", str(stack))
    assert code == 2
    assert "partition aws-us-gov" in err
    assert "did you mean arn:aws-us-gov:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?" in err
    assert "AWS publishes none for aws-us-gov" in err  # what is known, said


def test_a_commercial_arn_in_a_china_stack_is_refused(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(ebs_csi, "policy_arn", lambda region: "arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2")
    stack = tmp_path / "Pulumi.cn.yaml"
    raw = read_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    raw["aws:region"] = "cn-north-1"
    raw["ml-platform-eks:imageRegistry"] = "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror"
    stack.write_text(json.dumps({"config": raw}))
    code, err = plan_cli(capsys, "--config-file", str(stack))
    assert code == 2
    assert "names the partition 'aws', but the stack's region is in 'aws-cn'" in err
    assert "did you mean arn:aws-cn:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?" in err


def test_a_misspelt_action_in_an_inline_policy_refuses_the_plan(capsys, monkeypatch):
    real = autoscaler.autoscaler_policy

    def misspelt(*args):
        doc = real(*args)
        doc["Statement"][0]["Action"] = [a.replace("DescribeAutoScalingGroups", "DescribeAutoscalingGroup")
                                         for a in doc["Statement"][0]["Action"]]  # fmt: skip
        return doc

    monkeypatch.setattr(autoscaler, "autoscaler_policy", misspelt)
    code, err = plan_cli(capsys, "dev")
    assert code == 2
    assert "'autoscaling:DescribeAutoscalingGroup' is not an action of autoscaling" in err
    assert "did you mean autoscaling:DescribeAutoScalingGroups?" in err
    assert "aws:iam/rolePolicy:RolePolicy" in err  # which resource
