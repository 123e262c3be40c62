"""The planned IAM roles against what their controllers need (mlplatform_core/model/iam/requirements.py).

Read from the recording of the real program: each role with its inline policies (aws.iam.RolePolicy, the role's
own inlinePolicies) and attached managed policies (aws.iam.RolePolicyAttachment, managedPolicyArns). A controller's
role is the one its service account's trust names (IRSA's `sub`, or Pod Identity's namespace and service-account
session tags): Karpenter's controller, the Cluster Autoscaler, the EBS CSI controller. On Auto Mode, the cluster
role (trusted by eks.amazonaws.com) must let Auto Mode tag with every planned NodeClass's `spec.tags`. A call a
role does not allow refuses the stack (exit 2), as missing chart RBAC does, before anything is created.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from mlplatform_core.errors import InputError
from mlplatform_core.model import addon_versions
from mlplatform_core.model.addons import ebs_csi, karpenter_controller
from mlplatform_core.model.addons.autoscaler import AUTOSCALER_SERVICE_ACCOUNT
from mlplatform_core.model.addons.charts import NAMESPACES
from mlplatform_core.model.iam import requirements as needs
from mlplatform_core.model.regions import partition_of
from mlplatform_core.model.resource_types import AUTO_MODE_NODE_CLASS as NODE_CLASS
from mlplatform_core.model.resource_types import IAM_ROLE as ROLE
from mlplatform_core.model.resource_types import IAM_ROLE_POLICY as INLINE
from mlplatform_core.model.resource_types import IAM_ROLE_POLICY_ATTACHMENT as ATTACHMENT
from mlplatform_core.model.resource_types import SQS_QUEUE as QUEUE

# Controller -> (its service account, namespace/name; what the message calls its role).
CONTROLLERS = {
    needs.KARPENTER: (
        f"{karpenter_controller.NAMESPACE}/{karpenter_controller.SERVICE_ACCOUNT}",
        "Karpenter controller",
    ),
    needs.CLUSTER_AUTOSCALER: (
        f"{NAMESPACES[addon_versions.CLUSTER_AUTOSCALER]}/{AUTOSCALER_SERVICE_ACCOUNT}",
        "Cluster Autoscaler",
    ),
    needs.EBS_CSI: (f"{ebs_csi.NAMESPACE}/{ebs_csi.CONTROLLER_SERVICE_ACCOUNT}", "EBS CSI controller"),
}


class IamProofError(InputError):
    """A planned role does not allow what its controller needs."""


def _document(value: Any) -> Mapping[str, Any] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, Mapping) else None


def _statements(doc: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    st = (doc or {}).get("Statement", [])
    return [s for s in (st if isinstance(st, list) else [st]) if isinstance(s, Mapping)]


def service_accounts(trust: Mapping[str, Any] | None) -> set[str]:
    """The service accounts (namespace/name) a trust policy lets assume the role."""
    out = set()
    for st in _statements(trust):
        for values in (st.get("Condition") or {}).values():
            if not isinstance(values, Mapping):
                continue
            for key, value in values.items():
                for v in value if isinstance(value, list) else [value]:
                    if key.endswith(":sub") and str(v).startswith("system:serviceaccount:"):
                        out.add(str(v).removeprefix("system:serviceaccount:").replace(":", "/", 1))
            ns = values.get("aws:RequestTag/kubernetes-namespace")
            sa = values.get("aws:RequestTag/kubernetes-service-account")
            if isinstance(ns, str) and isinstance(sa, str):
                out.add(f"{ns}/{sa}")
    return out


def _trusts_service(trust: Mapping[str, Any] | None, service: str) -> bool:
    for st in _statements(trust):
        principal = (st.get("Principal") or {}).get("Service") if isinstance(st.get("Principal"), Mapping) else None
        if service in (principal if isinstance(principal, list) else [principal]):
            return True
    return False


def _role(run_resources: Iterable[Any], role: Any) -> needs.Role:
    name = role.outputs.get("name") or role.name
    refs = {name, f"{name}-id", role.outputs.get("id"), role.outputs.get("arn")} - {None}
    inline = [d for p in (role.inputs.get("inlinePolicies") or []) if (d := _document(p.get("policy")))]
    managed = list(role.inputs.get("managedPolicyArns") or [])
    for r in run_resources:
        if r.type == INLINE and r.inputs.get("role") in refs:
            if (doc := _document(r.inputs.get("policy"))) is not None:
                inline.append(doc)
        elif r.type == ATTACHMENT and r.inputs.get("role") in refs and r.inputs.get("policyArn"):
            managed.append(r.inputs["policyArn"])
    return needs.Role(name, tuple(inline), tuple(managed))


def problems(resources: list[Any], region: str, cluster_name: str) -> list[str]:
    """Every call a planned controller role does not allow."""
    return proof(resources, region, cluster_name)[1]


def proof(resources: list[Any], region: str, cluster_name: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(controller, role name) of every role checked, and every call a planned controller role does not allow."""
    roles = [r for r in resources if r.type == ROLE]
    checked: list[tuple[str, str]] = []
    out: list[str] = []
    for role in roles:
        trust = _document(role.inputs.get("assumeRolePolicy"))
        arn = str(role.outputs.get("arn") or "")
        account = arn.split(":")[4] if arn.count(":") >= 5 else ""
        base = needs.Values(partition_of(region), region, account, cluster_name)
        accounts = service_accounts(trust)
        for controller, (service_account, what) in CONTROLLERS.items():
            if service_account not in accounts:
                continue
            values = base
            if controller == needs.KARPENTER:
                values = _karpenter_values(resources, role, base)
            checked.append((controller, str(role.outputs.get("name") or role.name)))
            out += needs.missing(controller, what, _role(resources, role), values)
        if _trusts_service(trust, "eks.amazonaws.com"):
            for tags in _node_class_tags(resources):
                values = needs.Values(
                    base.partition,
                    region,
                    account,
                    cluster_name,
                    extra_tags=tags,
                    principal_tags={"eks:eks-cluster-name": cluster_name},
                )
                checked.append((needs.AUTO_MODE_TAGS, str(role.outputs.get("name") or role.name)))
                out += needs.missing(needs.AUTO_MODE_TAGS, "EKS Auto Mode cluster", _role(resources, role), values)
    return checked, list(dict.fromkeys(out))


def _karpenter_values(resources: list[Any], role: Any, base: needs.Values) -> needs.Values:
    """The node role and interruption queue created beside the controller's role (KarpenterInfrastructure)."""
    siblings = [r for r in resources if r.parent == role.parent]
    node = next(
        (
            r
            for r in siblings
            if r.type == ROLE and _trusts_service(_document(r.inputs.get("assumeRolePolicy")), "ec2.amazonaws.com")
        ),
        None,
    )
    queue = next((r for r in siblings if r.type == QUEUE), None)
    return needs.Values(
        base.partition,
        base.region,
        base.account_id,
        base.cluster_name,
        node_role_arn=str(node.outputs.get("arn") or "") if node else "",
        queue_arn=str(queue.outputs.get("arn") or "") if queue else "",
    )


def _node_class_tags(resources: list[Any]) -> list[dict[str, str]]:
    """The distinct `spec.tags` of the planned Auto Mode NodeClasses."""
    out: list[dict[str, str]] = []
    for r in resources:
        if r.type != NODE_CLASS:
            continue
        tags = ((r.inputs.get("spec") or {}).get("tags")) or {}
        if tags and dict(tags) not in out:
            out.append({str(k): str(v) for k, v in tags.items()})
    return out


def prove(resources: list[Any], region: str, cluster_name: str, stack: str) -> None:
    """Refuse the stack (IamProofError, exit 2) when a controller role lacks what its controller needs."""
    found = problems(resources, region, cluster_name)
    if found:
        shown = "\n".join(f"  - {p}" for p in found[:20])
        more = f"\n  ... and {len(found) - 20} more" if len(found) > 20 else ""
        raise IamProofError(
            f"stack {stack}: {len(found)} call(s) a controller needs are not allowed by its planned IAM role:\n"
            f"{shown}{more}"
        )
