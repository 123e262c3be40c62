"""Checks of Karpenter's EC2NodeClasses (the node security baseline) and of the controller's IAM policy.

EC2NodeClasses are Kubernetes custom resources (pulumi_kubernetes apiextensions.CustomResource): their type is
kubernetes:<apiVersion>:<kind> and a policy sees {apiVersion, kind, metadata, spec} as the program wrote them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlplatform_core.model.resource_types import IAM_POLICY, IAM_ROLE, IAM_ROLE_POLICY

from .iam_documents import action_matches, as_list, policy_document, statements
from .props import MISSING, environment, fmt, get, items, known, number, prod_rules, truthy

# --- EC2NodeClass ---------------------------------------------------------------------------------


def imdsv2(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    # Left out, metadataOptions and each of its fields default to IMDSv2 with hop limit 1 (the CRD's defaults).
    tokens = get(args.props, "spec", "metadataOptions", "httpTokens")
    if known(tokens) and tokens is not MISSING and tokens != "required":
        yield (
            f"EC2NodeClass {args.name}: metadataOptions.httpTokens is {fmt(tokens)}; IMDSv1 lets any process (or "
            "SSRF) on the node read the node role's credentials"
        )
    hops = number(get(args.props, "spec", "metadataOptions", "httpPutResponseHopLimit"))
    if hops is not None and hops > 2:
        yield f"EC2NodeClass {args.name}: httpPutResponseHopLimit is {fmt(hops)}; more than 2 lets pods reach IMDS"
    elif hops is not None and hops > 1 and prod_rules(environment(get(args.props, "spec"))):
        # As for node groups' launch templates (security.py): above 1 a pod can fetch an IMDSv2 token.
        yield (
            f"EC2NodeClass {args.name}: httpPutResponseHopLimit is {fmt(hops)} on a prod node; above 1 pods can "
            "fetch IMDS tokens and borrow the node role's credentials (use IRSA for pods that need AWS)"
        )


def encrypted_volumes(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    # Left out, blockDeviceMappings default to encrypted gp3 volumes (provider amifamily/resolver.go DefaultEBS).
    for m in items(get(args.props, "spec", "blockDeviceMappings", default=[])):
        ebs = get(m, "ebs")
        if not known(ebs) or ebs is None:
            continue
        enc = get(ebs, "encrypted")
        if known(enc) and not truthy(enc) and get(ebs, "snapshotID") in (MISSING, None):
            shown = fmt(enc) if enc is not MISSING else "unset"
            yield f"EC2NodeClass {args.name}: volume {fmt(get(m, 'deviceName'))} is not encrypted (encrypted={shown})"


# --- the controller's IAM -------------------------------------------------------------------------

DESTRUCTIVE = ("ec2:TerminateInstances", "ec2:DeleteLaunchTemplate")
CLUSTER_TAG = "kubernetes.io/cluster/"


def _tag_scoped(st: dict) -> bool:
    for conditions in (st.get("Condition") or {}).values():
        if isinstance(conditions, dict) and any(f"ResourceTag/{CLUSTER_TAG}" in k for k in conditions):
            return True
    return False


def controller_scope(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    docs: list[tuple[Any, Any]] = []
    for r in args.resources:
        if r.resource_type in (IAM_POLICY, IAM_ROLE_POLICY):
            docs.append((r, get(r.props, "policy")))
        elif r.resource_type == IAM_ROLE:
            docs.extend((r, get(p, "policy")) for p in items(get(r.props, "inlinePolicies", default=[])))
    for r, raw in docs:
        doc = policy_document(raw)
        if doc is None:
            continue
        for st in statements(doc):
            if st.get("Effect") != "Allow":
                continue
            actions = [a for a in as_list(st.get("Action")) if isinstance(a, str)]
            granted = [s for s in DESTRUCTIVE if any(action_matches(a, s) for a in actions)]
            if granted and not _tag_scoped(st):
                yield (
                    f"{r.name} allows {', '.join(granted)} on every instance in the account; scope it with a "
                    f"Condition on aws:ResourceTag/{CLUSTER_TAG}<cluster> = owned (Karpenter's reference policy)",
                    r.urn,
                )
            if any(action_matches(a, "iam:PassRole") for a in actions) and "*" in as_list(st.get("Resource")):
                yield f"{r.name} allows iam:PassRole on every role; name the node role it may pass", r.urn
