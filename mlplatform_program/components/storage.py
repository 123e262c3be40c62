"""Storage: the EBS CSI driver (EKS add-on with its own IRSA role) and the default encrypted gp3 StorageClass."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from mlplatform_core.model.addons import ebs_csi

from .service_roles import service_role


class Storage(pulumi.ComponentResource):
    """aws-ebs-csi-driver add-on (preserved on delete, version resolved for the cluster's Kubernetes minor)."""

    def __init__(
        self,
        name: str,
        eks_cluster_name: pulumi.Input[str],
        kubernetes_version: str,
        region: str,
        oidc_provider_arn: pulumi.Input[str],
        oidc_provider_url: pulumi.Input[str],
        provider: k8s.Provider,
        depends_on: Sequence[pulumi.Resource] = (),
        tags: Mapping[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
        cluster_name: str = "",
        use_pod_identity: bool = False,
    ):
        """`depends_on`: the node groups its controller runs on (an add-on without nodes ends up DEGRADED).
        `use_pod_identity`: the controller's role through EKS Pod Identity (`cluster_name` scopes its trust)
        instead of IRSA."""
        super().__init__("mlplatform:storage:Storage", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        sr = service_role(
            f"{name}-ebs-csi",
            use_pod_identity=use_pod_identity,
            cluster_name=cluster_name,
            eks_cluster_name=eks_cluster_name,
            oidc_provider_arn=oidc_provider_arn,
            oidc_provider_url=oidc_provider_url,
            namespace=ebs_csi.NAMESPACE,
            service_account=ebs_csi.CONTROLLER_SERVICE_ACCOUNT,
            description=pulumi.Output.concat(
                "EBS CSI driver controller of ", eks_cluster_name, " (Pod Identity)" if use_pod_identity else " (IRSA)"
            ),
            tags=tags,
            parent=self,
        )
        role = sr.role
        policy = aws.iam.RolePolicyAttachment(
            f"{name}-ebs-csi", role=role.name, policy_arn=ebs_csi.policy_arn(region), opts=child
        )
        # The newest add-on build for the cluster's minor; EKS never upgrades an add-on by itself.
        version = aws.eks.get_addon_version_output(
            addon_name=ebs_csi.ADDON_NAME,
            kubernetes_version=kubernetes_version,
            most_recent=True,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.addon = aws.eks.Addon(
            f"{name}-ebs-csi",
            cluster_name=eks_cluster_name,
            addon_name=ebs_csi.ADDON_NAME,
            addon_version=version.version,
            # IRSA: EKS annotates the service account with the role; Pod Identity: the association binds it.
            service_account_role_arn=sr.irsa_role_arn,
            configuration_values=json.dumps(ebs_csi.configuration(region)),
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            # Deleting the Pulumi resource (a rename, a refactor) must not take the driver off a running cluster.
            preserve=True,
            tags=dict(tags or {}),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[policy, *sr.ready, *depends_on]),
        )
        sc = ebs_csi.storage_class()
        self.storage_class = k8s.storage.v1.StorageClass(
            f"storageclass-{sc['metadata']['name']}",
            metadata=sc["metadata"],
            provisioner=sc["provisioner"],
            parameters=sc["parameters"],
            volume_binding_mode=sc["volumeBindingMode"],
            reclaim_policy=sc["reclaimPolicy"],
            allow_volume_expansion=sc["allowVolumeExpansion"],
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[self.addon]),
        )
        self.register_outputs({"storageClass": sc["metadata"]["name"], "ebsCsiRoleArn": role.arn})
