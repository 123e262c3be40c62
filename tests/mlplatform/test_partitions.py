"""Every ARN a stack writes follows its region's partition: GovCloud and China stacks, planned offline.

Managed policies, Karpenter's IAM, IRSA trust (the OIDC provider), access entries' access policies, the KMS
key, the logs: an `arn:aws:` in a GovCloud or China stack names something that does not exist there, and the
apply fails. The offline engine's stand-ins (mocks.py, remote/pulumi_eks.py) follow the partition too, so the
plan shows what AWS will return.
"""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from mlplatform.engine import StackRun, run_stack
from mlplatform.engine.placeholders import Placeholders
from tests.conftest import stack_config

MIRROR = "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/mirror"
ACCESS = {"admin": ["arn:{p}:iam::111122223333:role/platform"], "view": ["arn:{p}:iam::111122223333:role/auditors"]}
CASES = {
    # (shipped stack, region, partition, extra settings)
    "prod-govcloud": ("prod", "us-gov-west-1", "aws-us-gov", {}),
    "karpenter-china": ("dev-karpenter", "cn-north-1", "aws-cn", {"ml-platform-eks:imageRegistry": MIRROR}),
}


@cache
def planned(case: str) -> StackRun:
    stack, region, partition, extra = CASES[case]
    raw = stack_config(stack)
    raw["aws:region"] = region
    raw["ml-platform-eks:access"] = {k: [a.format(p=partition) for a in v] for k, v in ACCESS.items()}
    raw.update(extra)
    return run_stack(stack, raw)


def arns(value) -> list[str]:
    return re.findall(r"arn:[a-z-]+:[^\"' ]*", json.dumps(value))


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_commercial_arn_in_any_input_output_or_export(case):
    run, partition = planned(case), CASES[case][2]
    found = []
    for r in run.resources:
        found += [(r.type, r.name, a) for a in arns(r.inputs) + arns(r.outputs)]
    found += [("export", k, a) for k, v in run.exports.items() for a in arns(v)]
    found += [("invoke", i.token, a) for i in run.invokes for a in arns(i.result)]
    assert found, "the stack writes ARNs"
    wrong = [f for f in found if not f[2].startswith(f"arn:{partition}:")]
    assert not wrong, wrong


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_arns_that_decide_an_apply_name_the_partition(case):
    run, partition = planned(case), CASES[case][2]
    attached = {r.inputs["policyArn"] for r in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert f"arn:{partition}:iam::aws:policy/AmazonEKSWorkerNodePolicy" in attached
    assert f"arn:{partition}:iam::aws:policy/AmazonEKSClusterPolicy" in attached  # pulumi-eks's cluster role
    access = {r.inputs["policyArn"] for r in run.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation")}
    assert access == {
        f"arn:{partition}:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
        f"arn:{partition}:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
    }
    assert run.exports["oidcProviderArn"].startswith(f"arn:{partition}:iam::")
    # The EC2 service principal is the same in every partition (pulumi-eks, terraform-aws-eks).
    roles = [json.loads(r.inputs["assumeRolePolicy"]) for r in run.of_type("aws:iam/role:Role")]
    principals = {json.dumps(s["Principal"]) for doc in roles for s in doc["Statement"]}
    assert any("ec2.amazonaws.com" in p for p in principals)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_plan_shows_the_partition_in_what_it_makes_up(case):
    run, partition = planned(case), CASES[case][2]
    shown = Placeholders.of(run)
    made_up = [p for r in run.resources for p in shown.find(r.outputs) if "arn:" in p["value"]]
    assert made_up and all(p["atDeploy"].startswith(f"arn:{partition}:") for p in made_up), made_up[:3]


def test_china_stacks_pull_every_add_on_image_from_the_mirror():
    run = planned("karpenter-china")
    values = {r.name: r.inputs["values"] for r in run.of_type("kubernetes:helm.sh/v3:Release")}
    assert values["karpenter"]["controller"]["image"]["repository"] == f"{MIRROR}/karpenter/controller"
    assert values["nvidia-device-plugin"]["image"]["repository"] == f"{MIRROR}/nvidia/k8s-device-plugin"
