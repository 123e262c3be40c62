"""EKS Pod Identity: the agent add-on, the roles' trust and the service accounts that get a role through it.

With `podIdentity: true` the add-ons' AWS roles (the Cluster Autoscaler, Karpenter's controller, the EBS CSI
controller) trust the EKS Pod Identity service principal instead of the cluster's OIDC provider, and an
aws.eks.PodIdentityAssociation binds each to its one service account. Sources (awsdocs/amazon-eks-user-guide
@ 4d52b4d0 manage-access/aws-access/service-accounts.adoc, pod-id-role, pod-id-abac):
- trust: principal `pods.eks.amazonaws.com` (the same in every partition the guide covers, China included),
  actions sts:AssumeRole and sts:TagSession; the session tags EKS adds (`eks-cluster-name`,
  `kubernetes-namespace`, `kubernetes-service-account`) scope it to one service account of this cluster, as
  IRSA's `sub` condition does;
- the agent (`eks-pod-identity-agent` add-on) must run on every node whose pods use it: a DaemonSet on the host
  network tolerating everything (aws/eks-pod-identity-agent charts/eks-pod-identity-agent @ d4dc0f3f);
- Pod Identity associations per cluster: 5,000, not adjustable (the pod-identities page; model/quotas.py).
No role needs AWS for the EFA device plugin or the NVIDIA add-ons: they get none.
"""

from __future__ import annotations

from typing import Any

from .affinity import AMD64_ARM64, LINUX, every_node, not_on

AGENT_ADDON = "eks-pod-identity-agent"
SERVICE_PRINCIPAL = "pods.eks.amazonaws.com"
AGENT_PLACEMENT = every_node(LINUX, AMD64_ARM64, not_on("fargate", "hybrid", "auto"), host_network=True)


def trust_policy(cluster_name: str, namespace: str, service_account: str) -> dict[str, Any]:
    """Trust for EKS Pod Identity, scoped to one service account of this cluster by the session tags EKS adds."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AllowEksAuthToAssumeRoleForPodIdentity",
                "Effect": "Allow",
                "Principal": {"Service": SERVICE_PRINCIPAL},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
                "Condition": {
                    "StringEquals": {
                        "aws:RequestTag/eks-cluster-name": cluster_name,
                        "aws:RequestTag/kubernetes-namespace": namespace,
                        "aws:RequestTag/kubernetes-service-account": service_account,
                    }
                },
            }
        ],
    }
