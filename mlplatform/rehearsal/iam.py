"""IAM: roles, their inline and managed policies, instance profiles, policies and the OIDC provider."""

from __future__ import annotations

import re

from .api import Api
from .mapping import Resource, integer, maps, name_of, tags

# The thumbprint pulumi-eks fetches from the issuer's TLS chain at deploy; offline the recording holds a
# placeholder, so the request carries a stand-in of the valid shape (40 hex digits): the one of the root CA
# that signed the EKS OIDC issuers' certificates (AWS no longer checks it for EKS issuers).
THUMBPRINT_STAND_IN = "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"
_THUMBPRINT = re.compile(r"[0-9a-fA-F]{40}")


@maps("aws:iam/role:Role", "internal/service/iam/role.go (resourceRoleCreate)")
def role(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    inline = r.inputs.take("inlinePolicies") or []
    managed = r.inputs.take("managedPolicyArns") or []
    r.inputs.drop("forceDetachPolicies")  # used when the role is deleted
    answer = api(
        "iam",
        "CreateRole",
        RoleName=name,
        Path=r.inputs.take("path"),
        AssumeRolePolicyDocument=r.inputs.need("assumeRolePolicy"),
        Description=r.inputs.take("description"),
        MaxSessionDuration=integer(r.inputs.take("maxSessionDuration")),
        PermissionsBoundary=r.inputs.take("permissionsBoundary"),
        Tags=tags(r.inputs.take("tags")),
    )["Role"]
    r.inputs.done()
    # After the role, as role.go does: each inline policy (PutRolePolicy), each managed policy (AttachRolePolicy).
    for policy in inline:
        if policy.get("name") and policy.get("policy"):
            api("iam", "PutRolePolicy", RoleName=name, PolicyName=policy["name"], PolicyDocument=policy["policy"])
    for arn in managed:
        api("iam", "AttachRolePolicy", RoleName=name, PolicyArn=arn)
    return {"id": name, "name": name, "arn": answer["Arn"], "uniqueId": answer["RoleId"]}


@maps("aws:iam/rolePolicy:RolePolicy", "internal/service/iam/role_policy.go (resourceRolePolicyPut)")
def role_policy(api: Api, r: Resource) -> dict[str, str]:
    role_name, name = r.inputs.need("role"), name_of(r)
    api("iam", "PutRolePolicy", RoleName=role_name, PolicyName=name, PolicyDocument=r.inputs.need("policy"))
    r.inputs.done()
    return {"id": f"{role_name}:{name}", "name": name}


@maps("aws:iam/rolePolicyAttachment:RolePolicyAttachment", "internal/service/iam/role_policy_attachment.go")
def role_policy_attachment(api: Api, r: Resource) -> dict[str, str]:
    role_name, arn = r.inputs.need("role"), r.inputs.need("policyArn")
    api("iam", "AttachRolePolicy", RoleName=role_name, PolicyArn=arn)
    r.inputs.done()
    return {"id": f"{role_name}/{arn}"}


@maps("aws:iam/policy:Policy", "internal/service/iam/policy.go (resourcePolicyCreate)")
def policy(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    answer = api(
        "iam",
        "CreatePolicy",
        PolicyName=name,
        Path=r.inputs.take("path"),
        PolicyDocument=r.inputs.need("policy"),
        Description=r.inputs.take("description"),
        Tags=tags(r.inputs.take("tags")),
    )["Policy"]
    r.inputs.done()
    return {"id": answer["Arn"], "arn": answer["Arn"], "name": name, "policyId": answer["PolicyId"]}


@maps("aws:iam/instanceProfile:InstanceProfile", "internal/service/iam/instance_profile.go")
def instance_profile(api: Api, r: Resource) -> dict[str, str]:
    name = name_of(r)
    answer = api(
        "iam",
        "CreateInstanceProfile",
        InstanceProfileName=name,
        Path=r.inputs.take("path"),
        Tags=tags(r.inputs.take("tags")),
    )["InstanceProfile"]
    role_name = r.inputs.take("role")
    r.inputs.done()
    if role_name:
        api("iam", "AddRoleToInstanceProfile", InstanceProfileName=name, RoleName=role_name)
    return {"id": name, "name": name, "arn": answer["Arn"], "uniqueId": answer["InstanceProfileId"]}


@maps("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "internal/service/iam/openid_connect_provider.go")
def oidc_provider(api: Api, r: Resource) -> dict[str, str]:
    thumbprints = [
        t if _THUMBPRINT.fullmatch(t) else THUMBPRINT_STAND_IN for t in r.inputs.take("thumbprintLists") or []
    ]
    answer = api(
        "iam",
        "CreateOpenIDConnectProvider",
        Url=r.inputs.need("url"),
        ClientIDList=r.inputs.take("clientIdLists"),
        ThumbprintList=thumbprints or None,
        Tags=tags(r.inputs.take("tags")),
    )
    r.inputs.done()
    arn = answer["OpenIDConnectProviderArn"]
    return {"id": arn, "arn": arn}
