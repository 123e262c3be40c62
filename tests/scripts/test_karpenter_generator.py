"""scripts/generators/generate_karpenter_data.py reads the upstream formats it claims to, and fails loudly when they
change.

The fixtures are small hand-made files in each upstream format (not upstream data).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.scripts.test_generators import load

COMPATIBILITY = """name: "karpenter"
compatibility:
  - appVersion: 1.13.x
    minK8sVersion: 1.26
    maxK8sVersion: 1.36
  - appVersion: 1.14.x
    minK8sVersion: 1.26
    maxK8sVersion: 1.30
"""

CLOUDFORMATION = """
Resources:
  KarpenterNodeRole:
    Type: "AWS::IAM::Role"
    Properties:
      ManagedPolicyArns:
        - !Sub "arn:${AWS::Partition}:iam::aws:policy/AmazonEKSWorkerNodePolicy"
  NodeLifecyclePolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument: !Sub |
        {"Statement": [{"Sid": "AllowScopedDeletion", "Effect": "Allow", "Action": "ec2:TerminateInstances",
          "Resource": "arn:${AWS::Partition}:ec2:${AWS::Region}:*:instance/*",
          "Condition": {"StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned"}}}]}
  IAMIntegrationPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument: !Sub |
        {"Statement": [{"Effect": "Allow", "Action": "iam:PassRole", "Resource": "${KarpenterNodeRole.Arn}"}]}
  EKSIntegrationPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument: !Sub |
        {"Statement": [{"Effect": "Allow", "Action": "eks:DescribeCluster",
          "Resource": "arn:${AWS::Partition}:eks:${AWS::Region}:${AWS::AccountId}:cluster/${ClusterName}"}]}
  InterruptionPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument: !Sub |
        {"Statement": [{"Effect": "Allow", "Action": "sqs:ReceiveMessage",
          "Resource": "${KarpenterInterruptionQueue.Arn}"}]}
  ResourceDiscoveryPolicy:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument: !Sub |
        {"Statement": [{"Effect": "Allow", "Action": "pricing:GetProducts", "Resource": "*"}]}
  KarpenterInterruptionQueue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub "${ClusterName}"
      MessageRetentionPeriod: 300
      SqsManagedSseEnabled: true
  KarpenterInterruptionQueuePolicy:
    Type: AWS::SQS::QueuePolicy
    Properties:
      Queues:
        - !Ref KarpenterInterruptionQueue
      PolicyDocument:
        Statement:
          - Effect: Allow
            Action: sqs:SendMessage
            Resource: !GetAtt KarpenterInterruptionQueue.Arn
  SpotInterruptionRule:
    Type: 'AWS::Events::Rule'
    Properties:
      EventPattern:
        source:
          - aws.ec2
        detail-type:
          - EC2 Spot Instance Interruption Warning
      Targets:
        - Id: KarpenterInterruptionQueueTarget
          Arn: !GetAtt KarpenterInterruptionQueue.Arn
"""

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nodepools.karpenter.sh}
spec:
  group: karpenter.sh
  names: {kind: NodePool}
  scope: Cluster
  versions:
    - name: v1
      served: true
      schema:
        openAPIV3Schema: {type: object, properties: {spec: {type: object}}}
"""


@pytest.fixture(scope="module")
def gen():
    return load("generate_karpenter_data")


def test_compatibility_is_read_as_strings_for_the_pinned_minor(gen):
    # YAML would read 1.30 as the float 1.3; the generator must keep the minor as written.
    assert gen.parse_compatibility(COMPATIBILITY, "1.14.1") == {"min": "1.26", "max": "1.30"}
    with pytest.raises(SystemExit, match=r"no row for Karpenter 1\.15\.x"):
        gen.parse_compatibility(COMPATIBILITY, "1.15.0")


def test_cloudformation_policies_get_the_toolkits_placeholders(gen):
    data = gen.parse_cloudformation(CLOUDFORMATION)
    policies = data["controllerPolicies"]
    assert set(policies) == {"NodeLifecycle", "IAMIntegration", "EKSIntegration", "Interruption", "ResourceDiscovery"}
    deletion = policies["NodeLifecycle"]["Statement"][0]
    assert deletion["Resource"] == "arn:${Partition}:ec2:${Region}:*:instance/*"
    assert deletion["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/${ClusterName}": "owned"}
    assert policies["IAMIntegration"]["Statement"][0]["Resource"] == "${NodeRoleArn}"
    assert policies["Interruption"]["Statement"][0]["Resource"] == "${QueueArn}"
    queue = data["interruptionQueue"]
    assert queue["messageRetentionSeconds"] == 300 and queue["sqsManagedSseEnabled"] is True
    assert queue["policy"]["Statement"][0]["Resource"] == "${QueueArn}"
    assert queue["rules"] == [
        {
            "name": "SpotInterruptionRule",
            "eventPattern": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
        }
    ]
    assert data["nodeRoleManagedPolicies"] == ["AmazonEKSWorkerNodePolicy"]


def test_an_unknown_cloudformation_reference_fails_loudly(gen):
    text = CLOUDFORMATION.replace("${AWS::Region}:*:instance", "${AWS::StackName}:*:instance")
    with pytest.raises(SystemExit, match="unknown reference"):
        gen.parse_cloudformation(text)


def test_crd_schemas_keep_the_served_version(gen):
    schema = gen.crd_schema(CRD, "NodePool")
    assert schema["apiVersion"] == "karpenter.sh/v1" and schema["scope"] == "Cluster"
    assert schema["openAPIV3Schema"]["properties"] == {"spec": {"type": "object"}}
    with pytest.raises(SystemExit, match="EC2NodeClass"):
        gen.crd_schema(CRD, "EC2NodeClass")
    with pytest.raises(SystemExit, match="served versions"):
        gen.crd_schema(CRD.replace("name: v1", "name: v1beta1"), "NodePool")


def test_the_shipped_snapshots_use_only_placeholders_the_toolkit_fills(gen):
    from mlplatform_core.model.karpenter import release

    used = set(re.findall(r"\$\{[A-Za-z]+\}", json.dumps(release.snapshot())))
    assert used and used <= set(gen.PLACEHOLDERS.values())
    # ...and the toolkit fills every one of them (URLSuffix is not used by what the toolkit reads).
    assert used <= {"${Partition}", "${Region}", "${AccountId}", "${ClusterName}", "${NodeRoleArn}", "${QueueArn}"}
    assert release.snapshot()["release"] == gen.RELEASE
