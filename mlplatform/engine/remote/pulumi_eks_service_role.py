"""pulumi-eks's ServiceRole component, as pulumi_eks.py's Construct model creates it: an IAM role trusted by one
service, and one attachment per managed policy named by its id's hash (nodejs/eks/servicerole.ts @ v4.3.0,
73-121; sha1hash at 20-25). The cluster role and Auto Mode's node role are ServiceRoles.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .model import Child


def service_role(
    add: Any, name: str, service: str, actions: list[str], policies: tuple[str, ...], partition: str, extra: dict
) -> Child:
    """A ServiceRole component: the role, then one attachment per policy named by its id's hash
    (servicerole.ts:73-121; the component registers {} like eks:index:Cluster)."""
    component = add("eks:index:ServiceRole", name, {}, custom=False)
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Action": actions, "Effect": "Allow", "Principal": {"Service": [service]}}],
    }
    policy = json.dumps(trust, separators=(",", ":"))  # JSON.stringify's spelling
    role = add("aws:iam/role:Role", f"{name}-role", {**extra, "assumeRolePolicy": policy}, component)
    component.outputs = {"resolvedRole": role.id, "directRole": role.id}
    for policy in policies:
        policy_id = f"arn:aws:iam::aws:policy/{policy}"
        add(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            f"{name}-{hashlib.sha1(policy_id.encode()).hexdigest()[:8]}",
            # `role` is the Role resource; the provider receives its id, which for an IAM role is its name.
            {"policyArn": f"arn:{partition}:iam::aws:policy/{policy}", "role": role.outputs["name"]},
            component,
            unknown_in_preview=(("role",),),
        )
    return role
