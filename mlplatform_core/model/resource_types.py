"""The type tokens of the resources the toolkit reads (`<package>:<module>:<Type>`, as the engine sends them).

One place for the plan document's readers (change/), the tooling's reports and mocks, and the policy pack's
rules (the pack's venv installs this package: policies/requirements.txt).
"""

from __future__ import annotations

from .karpenter import spec
from .karpenter.flavors import AUTO_MODE_FLAVOR

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ASG_TAG = "aws:autoscaling/tag:Tag"
EC2_TAG = "aws:ec2/tag:Tag"
# pulumi_eks.Cluster (eks:index:Cluster) is a remote component: the engine registers it with no properties,
# so no rule reads it. Its child carries the control plane's settings.
EKS_CLUSTER = "aws:eks/cluster:Cluster"
PULUMI_EKS_CLUSTER = "eks:index:Cluster"
KMS_KEY = "aws:kms/key:Key"
VPC = "aws:ec2/vpc:Vpc"
SUBNET = "aws:ec2/subnet:Subnet"
IAM_ROLE = "aws:iam/role:Role"
IAM_POLICY = "aws:iam/policy:Policy"
IAM_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
IAM_ROLE_POLICY_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
IAM_POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
K8S_NAMESPACE = "kubernetes:core/v1:Namespace"
K8S_LIMIT_RANGE = "kubernetes:core/v1:LimitRange"
K8S_CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
K8S_PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
K8S_STORAGE_CLASS = "kubernetes:storage.k8s.io/v1:StorageClass"
EKS_ADDON = "aws:eks/addon:Addon"
# Karpenter's custom resources (pulumi_kubernetes apiextensions.CustomResource: kubernetes:<apiVersion>:<kind>),
# at the API versions the core writes.
NODE_POOL = f"kubernetes:{spec.NODE_POOL_API}:NodePool"
EC2_NODE_CLASS = f"kubernetes:{spec.NODE_CLASS_API}:{spec.NODE_CLASS_KIND}"
# EKS Auto Mode's node class (its NodePools are karpenter.sh/v1 NodePools, pointing at it).
AUTO_MODE_NODE_CLASS = f"kubernetes:{AUTO_MODE_FLAVOR.node_class_api}:{AUTO_MODE_FLAVOR.node_class_kind}"
# Kueue's custom resources (teams: model/teams/manifests.py), at the API version the core writes.
KUEUE_RESOURCE_FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"
KUEUE_CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
KUEUE_LOCAL_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
SQS_QUEUE = "aws:sqs/queue:Queue"
EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
CLOUDWATCH_LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
