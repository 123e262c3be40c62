"""AWS hardening checks: VPC flow logs, the default security group, the secrets key's policy, IAM scoped to the
cluster's resources, and node images that do not move by themselves (declared in rules.yaml).

A resource links to the one it configures by the id it names when both are known (a deployed stack), else by
sharing its parent component (a preview, and the offline plan, where ids are not known yet).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlplatform_core.model.resource_types import KMS_KEY, VPC

from .iam_documents import action_matches, as_list, policy_document, statements
from .props import get, items, known, number

FLOW_LOG = "aws:ec2/flowLog:FlowLog"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
DEFAULT_SECURITY_GROUP = "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup"
KMS_KEY_POLICY = "aws:kms/keyPolicy:KeyPolicy"
# Actions that take a resource ARN (the service authorization reference lists a resource type for them): granted
# on "*" they reach every cluster, node group, role or queue of the account.
SCOPABLE_ACTIONS = (
    "eks:DescribeNodegroup",
    "eks:DescribeCluster",
    "eks:DescribeAddon",
    "eks:UpdateNodegroupConfig",
    "iam:PassRole",
    "sqs:ReceiveMessage",
    "sqs:DeleteMessage",
    "logs:PutLogEvents",
    "logs:CreateLogStream",
)
KEY_USE = ("kms:Encrypt", "kms:Decrypt", "kms:ReEncryptFrom", "kms:ReEncryptTo", "kms:GenerateDataKey")


def _linked(owner: Any, others: list[Any], prop: str) -> list[Any]:
    owner_id = get(owner.props, "id")
    by_id = [o for o in others if known(owner_id) and get(o.props, prop) == owner_id]
    if by_id:
        return by_id
    parent = getattr(owner.parent, "urn", None)
    return [o for o in others if getattr(o.parent, "urn", None) == parent and not known(owner_id)]


def _of(args: Any, resource_type: str) -> list[Any]:
    return [r for r in args.resources if r.resource_type == resource_type]


def flow_logs(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    logs, groups = _of(args, FLOW_LOG), _of(args, LOG_GROUP)
    for vpc in _of(args, VPC):
        found = [f for f in _linked(vpc, logs, "vpcId") if get(f.props, "trafficType") in ("ALL", "REJECT")]
        if not found:
            yield f"VPC {vpc.name} has no flow log: traffic to and from the nodes leaves no record", vpc.urn
            continue
        for log in found:
            if get(log.props, "logDestinationType", default="cloud-watch-logs") != "cloud-watch-logs":
                continue
            destination = get(log.props, "logDestination")
            group = [g for g in groups if known(destination) and get(g.props, "arn") == destination]
            group = group or [g for g in groups if getattr(g.parent, "urn", None) == getattr(log.parent, "urn", None)]
            if group and number(get(group[0].props, "retentionInDays")) in (None, 0):
                yield f"flow log group {group[0].name} keeps its records forever: set a retention", group[0].urn
            if group and not get(group[0].props, "kmsKeyId"):
                yield (
                    f"flow log group {group[0].name} is not encrypted with a KMS key: set kmsKeyId (the key's policy "
                    "must let logs.<region>.<dns suffix> use it, or CreateLogGroup fails)",
                    group[0].urn,
                )


def default_security_group(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    groups = _of(args, DEFAULT_SECURITY_GROUP)
    for vpc in _of(args, VPC):
        found = _linked(vpc, groups, "vpcId")
        if not found:
            yield (
                f"VPC {vpc.name}'s default security group keeps EC2's rules (all traffic within it, all egress): "
                "adopt it with aws.ec2.DefaultSecurityGroup and no rules",
                vpc.urn,
            )
        for group in found:
            rules = [*items(get(group.props, "ingress", default=[])), *items(get(group.props, "egress", default=[]))]
            if rules:
                yield f"default security group {group.name} allows traffic: it must have no rules", group.urn


def _key_policy_problems(doc: dict) -> list[str]:
    out = []
    for st in statements(doc):
        if st.get("Effect") != "Allow":
            continue
        principal = st.get("Principal")
        aws = as_list(principal.get("AWS")) if isinstance(principal, dict) else as_list(principal)
        actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
        if "*" in aws:
            out.append(f"statement {st.get('Sid', '?')} allows any principal")
        if any(a in ("*", "kms:*") for a in actions):
            out.append(
                f"statement {st.get('Sid', '?')} allows {'/'.join(a for a in actions if '*' in a)} (every action)"
            )
        roots = [p for p in aws if isinstance(p, str) and p.endswith(":root")]
        uses = [u for u in KEY_USE if any(action_matches(a, u) for a in actions)]
        if roots and uses:
            out.append(
                f"statement {st.get('Sid', '?')} lets every principal of account {roots[0].split(':')[4]} use the key "
                f"({', '.join(uses)}); grant use to the roles that need it"
            )
    return out


def secrets_key_policy(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    policies = _of(args, KMS_KEY_POLICY)
    for key in _of(args, KMS_KEY):
        docs = [(p, get(p.props, "policy")) for p in _linked(key, policies, "keyId")]
        own = get(key.props, "policy")
        if known(own) and not docs:
            docs = [(key, own)]
        if not docs:
            yield (
                f"KMS key {key.name} has only its default policy (the account may do kms:* with it): give it an "
                "explicit policy",
                key.urn,
            )
        for holder, raw in docs:
            doc = policy_document(raw)
            for problem in _key_policy_problems(doc) if doc else []:
                yield f"key policy of {key.name}: {problem}", holder.urn


def iam_scoped(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    doc = policy_document(get(args.props, "policy"))
    for st in statements(doc or {}):
        if st.get("Effect") != "Allow" or "*" not in as_list(st.get("Resource")):
            continue
        actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
        wide = [s for s in SCOPABLE_ACTIONS if any(action_matches(a, s) for a in actions)]
        if wide:
            yield (
                f"{args.name} allows {', '.join(wide)} on every resource of the account; these actions take a "
                "resource ARN: name this cluster's, e.g. arn:<partition>:eks:<region>:<account>:nodegroup/<cluster>/*/*"
            )


def ami_pinned(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    for term in items(get(args.props, "spec", "amiSelectorTerms", default=[])):
        alias = get(term, "alias")
        if isinstance(alias, str) and alias.endswith("@latest"):
            yield (
                f"EC2NodeClass {args.name} follows {alias}: every AMI release AWS publishes replaces every node of "
                "its pools, with no change in the stack"
            )
