"""Who may use the cluster, as EKS access entries and access-policy associations (plain data).

Authentication mode is API: an IAM principal gets Kubernetes permissions through an access entry and
the access policies associated with it (EKS user guide, access-policy-reference.adoc and
grant-k8s-access.adoc, awsdocs/amazon-eks-user-guide @ 4d52b4d0). The identity that creates the
cluster is already an admin: pulumi-eks always sets bootstrapClusterCreatorAdminPermissions
(pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts accessConfig @ 7bf0c1b1), so the stack never makes an
entry for it; a second entry for the same principal fails with ResourceInUseException.

`AccessGrant` is the reusable piece: another capability (e.g. a node role that needs an EC2_LINUX
entry) builds one and hands it to components/access.py.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .config import StackConfig, key_path, partition_of

STANDARD = "STANDARD"  # the only entry type policies can be associated with
EC2_LINUX = "EC2_LINUX"  # a node role's entry (no policies, no Kubernetes groups)

# Kubernetes permissions per level: cluster-wide, and scoped to namespaces.
_POLICIES = {
    ("admin", False): "AmazonEKSClusterAdminPolicy",  # cluster-admin
    ("admin", True): "AmazonEKSAdminPolicy",  # admin within the namespaces
    ("edit", False): "AmazonEKSEditPolicy",
    ("edit", True): "AmazonEKSEditPolicy",
    ("view", False): "AmazonEKSViewPolicy",
    ("view", True): "AmazonEKSViewPolicy",
}


def access_policy_arn(policy: str, region: str) -> str:
    return f"arn:{partition_of(region)}:eks::aws:cluster-access-policy/{policy}"


@dataclass(frozen=True)
class PolicyAssociation:
    policy_arn: str
    namespaces: tuple[str, ...] = ()  # empty: the whole cluster

    @property
    def scope(self) -> str:
        return "namespace" if self.namespaces else "cluster"

    @property
    def policy(self) -> str:
        return self.policy_arn.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class AccessGrant:
    """One IAM principal's access entry and the access policies associated with it."""

    principal_arn: str
    associations: tuple[PolicyAssociation, ...] = ()
    entry_type: str = STANDARD
    levels: tuple[str, ...] = ()  # where the stack lists it, e.g. ("access.admin[0]",)

    @property
    def name(self) -> str:
        """A stable Pulumi resource name: readable tail of the ARN plus a short hash of all of it."""
        tail = re.sub(r"[^A-Za-z0-9-]", "-", self.principal_arn.rsplit("/", 1)[-1])[:40].strip("-") or "principal"
        return f"access-{tail}-{hashlib.sha1(self.principal_arn.encode()).hexdigest()[:6]}"


def access_grants(cfg: StackConfig) -> tuple[AccessGrant, ...]:
    """One grant per principal of the `access` setting, with an association per level it is listed at."""
    by_principal: dict[str, list[tuple[str, PolicyAssociation]]] = {}
    for level, i, grant in cfg.access.grants():
        namespaces = tuple(grant.namespaces or ())
        policy = access_policy_arn(_POLICIES[(level, bool(namespaces))], cfg.region)
        where = key_path("access", level, i).split(":", 1)[1]
        by_principal.setdefault(grant.principal, []).append((where, PolicyAssociation(policy, namespaces)))
    return tuple(
        AccessGrant(arn, tuple(a for _, a in found), STANDARD, tuple(w for w, _ in found))
        for arn, found in by_principal.items()
    )
