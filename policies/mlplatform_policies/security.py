"""Checks of the security baseline, as platform teams know it from checkov (CKV_AWS_37/38/39/58/79/341...).

The control plane is a pulumi_eks.Cluster: a remote component that the engine
registers with no properties. The settings live on the aws:eks/cluster:Cluster
its Construct creates, so the cluster rules read that (offline, the engine models
the children: mlplatform/engine/remote/pulumi_eks.py).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from mlplatform_core.model.cluster import CONTROL_PLANE_LOG_TYPES
from mlplatform_core.model.layout.autoscaler_tags import AUTOSCALER_PREFIX
from mlplatform_core.model.resource_types import (
    EKS_CLUSTER,
    IAM_POLICY,
    IAM_POLICY_ATTACHMENT,
    IAM_ROLE,
    IAM_ROLE_POLICY,
    IAM_ROLE_POLICY_ATTACHMENT,
    LAUNCH_TEMPLATE,
    NODE_GROUP,
)

from .iam_documents import action_matches, as_list, policy_document, statements
from .props import MISSING, UNKNOWN, environment, fmt, get, items, known, number, prod_rules, require, truthy

ADMIN_POLICY_NAMES = ("AdministratorAccess", "PowerUserAccess", "IAMFullAccess")
SCALING_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


def _launch_template_missing(args: Any) -> bool:
    if args.resource_type != NODE_GROUP:
        return False
    lt = get(args.props, "launchTemplate")
    if lt is UNKNOWN:
        return False
    return lt in (MISSING, None) or all(get(lt, k) in (MISSING, None, "") for k in ("id", "name"))


# --- nodes -------------------------------------------------------------------------------------


def imdsv2(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    if _launch_template_missing(args):
        yield "node group has no launch template, so EKS's default one leaves IMDSv1 enabled"
        return
    if args.resource_type == LAUNCH_TEMPLATE:
        tokens = get(args.props, "metadataOptions", "httpTokens")
        if known(tokens) and tokens != "required":
            yield (
                f"metadataOptions.httpTokens is {fmt(tokens) if tokens is not MISSING else 'unset'}; IMDSv1 "
                "lets any process (or SSRF) on the node read the node role's credentials"
            )
        hops = number(get(args.props, "metadataOptions", "httpPutResponseHopLimit"))
        if hops is not None and hops > 2:
            yield f"metadataOptions.httpPutResponseHopLimit is {fmt(hops)}; more than 2 lets pods reach IMDS freely"
        elif hops is not None and hops > 1 and prod_rules(environment(args.props)):
            # A hop limit of 2 lets the IMDSv2 token reach a pod's network namespace, so any pod could act
            # with the node role; prod pods get AWS access from IRSA roles of their own instead.
            yield (
                f"metadataOptions.httpPutResponseHopLimit is {fmt(hops)} on a prod node; above 1 pods can "
                "fetch IMDS tokens and borrow the node role's credentials (use IRSA for pods that need AWS)"
            )


def encrypted_volumes(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    if _launch_template_missing(args):
        yield "node group has no launch template; its root volumes are encrypted only if the account default is"
        return
    if args.resource_type == LAUNCH_TEMPLATE:
        mappings = [m for m in items(get(args.props, "blockDeviceMappings", default=[])) if known(m)]
        ebs = [(get(m, "deviceName"), get(m, "ebs")) for m in mappings if known(get(m, "ebs"))]
        if not ebs:
            yield "launch template maps no EBS volume, so the root volume keeps the AMI's unencrypted default"
        for device, volume in ebs:
            enc = get(volume, "encrypted")
            if known(enc) and not truthy(enc):
                shown = fmt(enc) if enc is not MISSING else "unset"
                yield f"EBS volume {fmt(device)} is not encrypted (encrypted={shown})"


def ssh_access(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    if args.resource_type == NODE_GROUP and get(args.props, "remoteAccess") not in (MISSING, None):
        yield "node group enables remoteAccess (SSH); use SSM Session Manager instead of open SSH keys"
    if args.resource_type == LAUNCH_TEMPLATE and get(args.props, "keyName") not in (MISSING, None, ""):
        yield "launch template sets keyName, installing an SSH key on every node; use SSM Session Manager instead"


# --- control plane -------------------------------------------------------------------------------


def log_types(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    logs = require(args.props, "enabledClusterLogTypes", default=[])
    have = set(logs) if isinstance(logs, list) else set()
    missing = [t for t in CONTROL_PLANE_LOG_TYPES if t not in have]
    if missing:
        yield f"control-plane log types {', '.join(missing)} are not enabled; audits need all five"


def secrets_encryption(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    # pulumi-eks builds the whole encryptionConfig from the key ARN in one apply: with a key created in
    # the same run it is unknown during a preview, and the rule runs on `pulumi up`.
    config = require(args.props, "encryptionConfig", default=None)
    if not isinstance(config, dict):
        yield "the cluster has no encryptionConfig; Kubernetes secrets are stored unencrypted in etcd"
        return
    resources = config.get("resources")
    if "secrets" not in (resources if isinstance(resources, list) else []):
        yield "encryptionConfig does not cover the secrets resource"
    if not (config.get("provider") or {}).get("keyArn"):
        yield "encryptionConfig names no KMS key"


def _endpoint(args: Any) -> tuple[Any, Any, Any]:
    """(private, public, cidrs) of vpcConfig with the API's defaults: public access on, open to 0.0.0.0/0."""
    private = require(args.props, "vpcConfig", "endpointPrivateAccess", default=False)
    public = require(args.props, "vpcConfig", "endpointPublicAccess", default=True)
    cidrs = require(args.props, "vpcConfig", "publicAccessCidrs", default=["0.0.0.0/0"])
    return (
        False if private is None else private,
        True if public is None else public,
        ["0.0.0.0/0"] if cidrs is None else cidrs,
    )


# "Open to the world": the listed blocks, overlaps counted once, cover at least this share of their address
# family. 0.0.0.0/1 + 128.0.0.0/1 is 0.0.0.0/0 written in two; a single /1 already admits 2^31 addresses, as
# open to internet-wide scanning as the whole space, while the largest single allocations (a /8) are 1/256.
OPEN_SHARE = Fraction(1, 2)


def world_open(cidrs: list[str]) -> str | None:
    """How `cidrs` open the endpoint to the world (together they cover at least OPEN_SHARE of IPv4 or IPv6),
    or None. Blocks that do not parse are left to the provider, which refuses them."""
    by_version: dict[int, list[Any]] = {4: [], 6: []}
    for cidr in cidrs:
        try:
            net = ipaddress.ip_network(cidr.strip(), strict=False)
        except ValueError:
            continue
        by_version[net.version].append(net)
    for version, nets in by_version.items():
        if not nets:
            continue
        merged = list(ipaddress.collapse_addresses(nets))
        total = 2 ** (32 if version == 4 else 128)
        share = Fraction(sum(n.num_addresses for n in merged), total)
        if share >= OPEN_SHARE:
            blocks = ", ".join(str(n) for n in merged)
            return (
                f"{', '.join(cidrs) if len(cidrs) <= 4 else f'{len(cidrs)} blocks'} together cover "
                f"{float(share):.0%} of the IPv{version} space ({blocks}): the whole internet, in effect"
            )
    return None


def endpoint_open_cidrs(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    _, public, cidrs = _endpoint(args)
    if public is False:
        return
    listed = [c for c in (cidrs if isinstance(cidrs, list) else []) if isinstance(c, str)]
    if not listed:
        yield "the API endpoint is public with no publicAccessCidrs, which EKS opens to 0.0.0.0/0"
    elif why := world_open(listed):
        yield f"the API endpoint is public to {why}, so anyone can reach the Kubernetes API"


def endpoint_private(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    private, public, _ = _endpoint(args)
    if public is True:
        yield "the API endpoint is public; keep it private and reach it through the VPC (VPN, bastion, CI runners)"
    if private is False:
        yield "private endpoint access is off; nodes and in-VPC clients would reach the API over the internet"


# --- IAM ---------------------------------------------------------------------------------------


def _is_admin_arn(arn: Any) -> bool:
    return (
        isinstance(arn, str)
        and re.match(r"^arn:aws[a-z-]*:iam::aws:policy/", arn) is not None  # every partition's managed policies
        and arn.rsplit("/", 1)[-1] in ADMIN_POLICY_NAMES
    )


def _grants_admin(doc: dict | None) -> bool:
    for st in statements(doc or {}):
        if st.get("Effect") != "Allow":
            continue
        actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
        wide = any(a in ("*", "iam:*") for a in actions)
        if wide and "*" in as_list(st.get("Resource")):
            return True
    return False


def _trusts_ec2(role: Any) -> bool:
    doc = policy_document(get(role.props, "assumeRolePolicy"))
    for st in statements(doc or {}):
        principal = st.get("Principal")
        services = as_list(principal.get("Service")) if isinstance(principal, dict) else []
        if "ec2.amazonaws.com" in services:
            return True
    return False


def node_role_admin(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    roles = [r for r in args.resources if r.resource_type == IAM_ROLE]
    # ARNs are unknown during a preview; only known ones may link a role to a node group.
    node_arns = {
        a for r in args.resources if r.resource_type == NODE_GROUP if isinstance(a := get(r.props, "nodeRoleArn"), str)
    }
    node_roles = [r for r in roles if _trusts_ec2(r) or get(r.props, "arn") in node_arns]
    policies = {get(p.props, "arn"): p for p in args.resources if p.resource_type == IAM_POLICY}
    for role in node_roles:
        name = get(role.props, "name")
        label = name if isinstance(name, str) else role.name

        def attached(r: Any, prop: str, name: Any = name, role: Any = role) -> bool:
            # By name (offline, and in a preview once known), else by the engine's property dependency.
            value = get(r.props, prop)
            values = list(items(value)) if prop == "roles" else [value]
            deps = getattr(r, "property_dependencies", {}) or {}
            return (isinstance(name, str) and name in values) or any(d.urn == role.urn for d in deps.get(prop, []))

        for arn in items(get(role.props, "managedPolicyArns", default=[])):
            if _is_admin_arn(arn):
                yield f"node role {label} carries {arn}; nodes need only the EKS worker, CNI and ECR policies", role.urn
        for inline in items(get(role.props, "inlinePolicies", default=[])):
            if _grants_admin(policy_document(get(inline, "policy"))):
                yield f"node role {label} has an inline policy granting * on *", role.urn
        for r in args.resources:
            if (r.resource_type == IAM_ROLE_POLICY_ATTACHMENT and attached(r, "role")) or (
                r.resource_type == IAM_POLICY_ATTACHMENT and attached(r, "roles")
            ):
                arn = get(r.props, "policyArn")
                customer = policies.get(arn) if known(arn) else None
                if _is_admin_arn(arn) or (customer and _grants_admin(policy_document(get(customer.props, "policy")))):
                    yield (
                        f"{r.name} attaches {arn} to node role {label}; every pod on the node could use it "
                        "(pods that need AWS access get an IRSA role of their own)",
                        r.urn,
                    )
            elif (
                r.resource_type == IAM_ROLE_POLICY
                and attached(r, "role")
                and _grants_admin(policy_document(get(r.props, "policy")))
            ):
                yield f"inline policy {r.name} grants * on * to node role {label}", r.urn


def _cluster_names(args: Any) -> set[str]:
    names = set()
    for r in args.resources:
        key = {NODE_GROUP: "clusterName", EKS_CLUSTER: "name"}.get(r.resource_type)
        value = get(r.props, key) if key else None
        if isinstance(value, str):
            names.add(value)
    return names


def _scoped(st: dict, clusters: set[str]) -> bool:
    resources = [x for x in as_list(st.get("Resource")) if isinstance(x, str)]
    # Listed ASGs: the ARN's group-id part is usually '*', the group name must not be.
    if resources and all(
        "*" not in x.partition(":autoScalingGroupName/")[2] and ":autoScalingGroupName/" in x for x in resources
    ):
        return True
    for conditions in (st.get("Condition") or {}).values():
        if not isinstance(conditions, dict):
            continue
        for key in conditions:
            tag = key.split("ResourceTag/", 1)[1] if "ResourceTag/" in key else None
            if tag and tag.startswith(AUTOSCALER_PREFIX + "/") and (tag.split("/", 2)[-1] in clusters or not clusters):
                return True
    return False


def autoscaler_scope(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    clusters = _cluster_names(args)
    docs: list[tuple[Any, Any]] = []
    for r in args.resources:
        if r.resource_type in (IAM_POLICY, IAM_ROLE_POLICY):
            docs.append((r, get(r.props, "policy")))
        elif r.resource_type == IAM_ROLE:
            docs.extend((r, get(p, "policy")) for p in items(get(r.props, "inlinePolicies", default=[])))
    for r, raw in docs:
        doc = policy_document(raw)
        if doc is None:
            continue  # unknown during a preview, or not JSON (the provider rejects that)
        for st in statements(doc):
            if st.get("Effect") != "Allow":
                continue
            actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
            granted = [s for s in SCALING_ACTIONS if any(action_matches(a, s) for a in actions)]
            if granted and not _scoped(st, clusters):
                want = f"aws:ResourceTag/{AUTOSCALER_PREFIX}/{sorted(clusters)[0] if clusters else '<cluster>'}"
                yield (
                    f"{r.name} allows {', '.join(granted)} on every Auto Scaling group in the account; scope it "
                    f"with a Condition on {want} (or list the ASG ARNs)",
                    r.urn,
                )


# --- protection ------------------------------------------------------------------------------------


def protected(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    if not args.opts.protect:
        yield (
            f"prod {args.resource_type.rsplit(':', 1)[-1]} is not protected; `pulumi destroy` or a replace "
            "would delete it and every workload with it"
        )
