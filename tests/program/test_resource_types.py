"""The toolkit's type tokens (mlplatform_core/model/resource_types.py, read by change/, the reports, the mocks and
the policy pack) are the ones the installed SDKs register: a rename in a pulumi-aws or pulumi-kubernetes bump
fails here, not silently in every reader."""

from __future__ import annotations

import pulumi_aws as aws
import pulumi_eks
import pulumi_kubernetes as k8s
import pytest

from mlplatform_core.model import resource_types as t
from mlplatform_core.model.karpenter import spec
from mlplatform_core.model.karpenter.flavors import AUTO_MODE_FLAVOR
from mlplatform_core.model.teams.manifests import API_VERSION as KUEUE_API

SDK_CLASSES = {
    "NODE_GROUP": aws.eks.NodeGroup,
    "LAUNCH_TEMPLATE": aws.ec2.LaunchTemplate,
    "ASG_TAG": aws.autoscaling.Tag,
    "EC2_TAG": aws.ec2.Tag,
    "EKS_CLUSTER": aws.eks.Cluster,
    "PULUMI_EKS_CLUSTER": pulumi_eks.Cluster,
    "KMS_KEY": aws.kms.Key,
    "VPC": aws.ec2.Vpc,
    "SUBNET": aws.ec2.Subnet,
    "IAM_ROLE": aws.iam.Role,
    "IAM_POLICY": aws.iam.Policy,
    "IAM_ROLE_POLICY": aws.iam.RolePolicy,
    "IAM_ROLE_POLICY_ATTACHMENT": aws.iam.RolePolicyAttachment,
    "IAM_POLICY_ATTACHMENT": aws.iam.PolicyAttachment,
    "K8S_NAMESPACE": k8s.core.v1.Namespace,
    "K8S_LIMIT_RANGE": k8s.core.v1.LimitRange,
    "K8S_CONFIG_MAP": k8s.core.v1.ConfigMap,
    "K8S_PRIORITY_CLASS": k8s.scheduling.v1.PriorityClass,
    "K8S_STORAGE_CLASS": k8s.storage.v1.StorageClass,
    "EKS_ADDON": aws.eks.Addon,
    "SECURITY_GROUP": aws.ec2.SecurityGroup,
    "SQS_QUEUE": aws.sqs.Queue,
    "EVENT_RULE": aws.cloudwatch.EventRule,
    "CLOUDWATCH_LOG_GROUP": aws.cloudwatch.LogGroup,
}


@pytest.mark.parametrize("name", sorted(SDK_CLASSES))
def test_each_token_is_the_one_its_sdk_class_registers(name):
    assert getattr(t, name) == SDK_CLASSES[name].pulumi_type  # set by the SDK's @pulumi.type_token


def test_every_token_is_checked_here_or_derived_from_the_custom_resources_the_core_writes():
    tokens = {k for k, v in vars(t).items() if k.isupper() and isinstance(v, str)}
    # Custom resources: pulumi-kubernetes' CustomResource registers kubernetes:<apiVersion>:<kind>.
    derived = {
        "NODE_POOL": f"kubernetes:{spec.NODE_POOL_API}:NodePool",
        "EC2_NODE_CLASS": f"kubernetes:{spec.NODE_CLASS_API}:{spec.NODE_CLASS_KIND}",
        "AUTO_MODE_NODE_CLASS": f"kubernetes:{AUTO_MODE_FLAVOR.node_class_api}:{AUTO_MODE_FLAVOR.node_class_kind}",
        "KUEUE_RESOURCE_FLAVOR": f"kubernetes:{KUEUE_API}:ResourceFlavor",
        "KUEUE_CLUSTER_QUEUE": f"kubernetes:{KUEUE_API}:ClusterQueue",
        "KUEUE_LOCAL_QUEUE": f"kubernetes:{KUEUE_API}:LocalQueue",
    }
    assert tokens == set(SDK_CLASSES) | set(derived)
    assert {name: getattr(t, name) for name in derived} == derived
