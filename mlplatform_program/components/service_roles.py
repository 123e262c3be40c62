"""An add-on's AWS role for one service account: IRSA (the cluster's OIDC provider) or EKS Pod Identity.

`podIdentity: true` (layout.pod_identity) gives the role the Pod Identity trust (model/addons/pod_identity.py)
and an aws.eks.PodIdentityAssociation binding it to the service account; otherwise the web-identity trust of
IRSA (model/addons/irsa.py) and the chart or add-on annotates the service account with the role. The pods
read their credentials when they start, so whatever starts them waits for `ready` (the association).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from mlplatform_core.model.addons import irsa, pod_identity


@dataclass
class ServiceRole:
    role: aws.iam.Role
    pod_identity: bool
    ready: list[pulumi.Resource] = field(default_factory=list)  # what the pods' start must wait for

    @property
    def irsa_role_arn(self) -> pulumi.Output[str] | None:
        """The role ARN to annotate the service account with (IRSA), or None with Pod Identity."""
        return None if self.pod_identity else self.role.arn


def service_role(
    name: str,
    *,
    use_pod_identity: bool,
    cluster_name: str,
    eks_cluster_name: pulumi.Input[str],
    oidc_provider_arn: pulumi.Input[str],
    oidc_provider_url: pulumi.Input[str],
    namespace: str,
    service_account: str,
    description: pulumi.Input[str],
    tags: Mapping[str, str] | None,
    parent: pulumi.Resource,
) -> ServiceRole:
    """The role (and with Pod Identity its association) of `namespace/service_account`."""
    child = pulumi.ResourceOptions(parent=parent)
    if use_pod_identity:
        trust: pulumi.Input[str] = json.dumps(pod_identity.trust_policy(cluster_name, namespace, service_account))
    else:
        trust = pulumi.Output.all(oidc_provider_arn, oidc_provider_url).apply(
            lambda a: json.dumps(irsa.irsa_trust_policy(a[0], a[1], namespace, service_account))
        )
    role = aws.iam.Role(name, assume_role_policy=trust, description=description, tags=dict(tags or {}), opts=child)
    out = ServiceRole(role, use_pod_identity)
    if use_pod_identity:
        out.ready.append(
            aws.eks.PodIdentityAssociation(
                name,
                cluster_name=eks_cluster_name,
                namespace=namespace,
                service_account=service_account,
                role_arn=role.arn,
                tags=dict(tags or {}),
                opts=child,
            )
        )
    return out
