"""`mlplatform plan` proves the planned IAM roles against what their controllers need upstream (exit 2 if not)."""

from __future__ import annotations

import copy

import pytest

from mlplatform.cli import main
from mlplatform.iam_proof import proof, service_accounts
from mlplatform.plan import build_plan
from mlplatform_core.model.addons import ebs_csi, irsa, karpenter_controller
from mlplatform_core.model.addons import pod_identity as pid
from mlplatform_core.model.automode import tag_policy


@pytest.mark.parametrize(
    "stack, controllers",
    [
        ("prod", {"cluster-autoscaler", "ebs-csi"}),
        ("dev-karpenter", {"karpenter", "ebs-csi"}),
        ("dev-automode", {"auto-mode-custom-tags"}),
    ],
)
def test_the_shipped_stacks_roles_allow_what_their_controllers_need(stack, controllers):
    plan = build_plan(stack)
    checked, problems = proof(plan.run.resources, plan.config.region, plan.layout.cluster_name)
    assert {c for c, _ in checked} == controllers  # each controller's role was found and replayed
    assert problems == []


def test_a_karpenter_controller_role_without_create_fleet_fails_the_plan(monkeypatch, capsys):
    real = karpenter_controller.controller_policies

    def without_create_fleet(*args):
        docs = copy.deepcopy(real(*args))
        for doc in docs.values():
            for st in doc["Statement"]:
                if isinstance(st["Action"], list) and "ec2:CreateFleet" in st["Action"]:
                    st["Action"].remove("ec2:CreateFleet")
        return docs

    monkeypatch.setattr(karpenter_controller, "controller_policies", without_create_fleet)
    code = main(["plan", "dev-karpenter"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Karpenter controller role karpenter-controller-" in err
    assert "does not allow ec2:CreateFleet on arn:aws:ec2:us-east-1:" in err
    assert "aws/karpenter-provider-aws v1.14.1" in err and "cloudformation.yaml" in err
    assert "ec2:RunInstances" not in err  # only what is missing is named


def test_an_auto_mode_cluster_role_without_the_custom_tag_permissions_fails_the_plan(monkeypatch, capsys):
    monkeypatch.setattr(
        tag_policy,
        "custom_tags_policy",
        lambda keys: {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "ec2:DescribeTags", "Resource": "*"}],
        },
    )
    code = main(["plan", "dev-automode"])
    err = capsys.readouterr().err
    assert code == 2
    assert "EKS Auto Mode cluster role cluster-eksRole-role-" in err
    assert "does not allow ec2:CreateFleet" in err and "Custom AWS tags for EKS Auto resources" in err


def test_an_ebs_csi_role_attaching_v2_under_service_role_fails_the_plan(monkeypatch, capsys):
    real = ebs_csi.policy_arn
    monkeypatch.setattr(ebs_csi, "policy_arn", lambda region: real(region).replace("policy/", "policy/service-role/"))
    code = main(["plan", "dev"])
    err = capsys.readouterr().err
    assert code == 2
    # The managed-policy existence check answers first, with the path the policy has; the controllers' needs are
    # replayed only on documents AWS would accept (a missing policy would otherwise be reported twice).
    assert "NoSuchEntity: AmazonEBSCSIDriverPolicyV2 has the path /" in err
    assert "did you mean arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2?" in err
    assert "EBS CSI controller role" not in err


@pytest.mark.parametrize("pod_identity", [True, False])
def test_a_controllers_role_is_found_by_its_service_accounts_trust_with_irsa_or_pod_identity(pod_identity):
    if pod_identity:
        trust = pid.trust_policy("c", "kube-system", "karpenter")
    else:
        issuer = "https://oidc.eks.us-east-1.amazonaws.com/id/ABC"
        trust = irsa.irsa_trust_policy("arn:aws:iam::1:oidc-provider/x", issuer, "kube-system", "karpenter")
    assert service_accounts(trust) == {"kube-system/karpenter"}
    assert (
        service_accounts({"Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}}]}) == set()
    )
