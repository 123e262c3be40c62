"""What each controller needs IAM to allow, proven on the planned policy documents of its role.

The needs are generated from upstream (data/iam_requirements.json, scripts/generators/generate_iam_requirements.py):
each is one call a controller makes (action, resource, the tags and condition keys the call carries) and the upstream
source that says it is needed. `missing` replays them through the evaluator (evaluate.py) on the role's inline
policies and the documents of its attached AWS managed policies (moto's copy, in the same data); a call the role
does not allow is a problem naming the role, the action, the resource and the source. A managed policy the data
does not hold is named as unknown: its permissions are not counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from .evaluate import Request, evaluate, request

KARPENTER = "karpenter"
CLUSTER_AUTOSCALER = "cluster-autoscaler"
EBS_CSI = "ebs-csi"
AUTO_MODE_TAGS = "auto-mode-custom-tags"
_MANAGED_ARN = re.compile(r"^arn:([a-z-]+):iam::aws:policy(/(?:[^/]+/)*)([^/]+)$")


@lru_cache(maxsize=1)
def snapshot() -> dict[str, Any]:
    return json.loads(resources.files("mlplatform_core.data").joinpath("iam_requirements.json").read_text())


@dataclass(frozen=True)
class Role:
    """A planned role: its name, inline policy documents and attached managed-policy ARNs."""

    name: str
    inline: tuple[Mapping[str, Any], ...] = ()
    managed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Values:
    """What the placeholders of the needs stand for in this stack."""

    partition: str
    region: str
    account_id: str
    cluster_name: str
    node_role_arn: str = ""
    queue_arn: str = ""
    extra_tags: Mapping[str, str] = field(default_factory=dict)  # added to every tagged call (NodeClass spec.tags)
    principal_tags: Mapping[str, str] = field(default_factory=dict)  # the role's session tags

    def fill(self, text: str) -> str:
        for key, value in (
            ("Partition", self.partition),
            ("Region", self.region),
            ("AccountId", self.account_id),
            ("ClusterName", self.cluster_name),
            ("NodeRoleArn", self.node_role_arn),
            ("QueueArn", self.queue_arn),
        ):
            text = text.replace("${" + key + "}", value)
        return text


def upstream_of(controller: str) -> str:
    return snapshot()["controllers"][controller]["upstream"]


def managed_document(arn: str) -> Mapping[str, Any] | None:
    """The document of an AWS managed policy by its ARN (path included), in the ARN's partition; None when the
    data does not hold it (or holds it under another path: such an ARN does not exist)."""
    m = _MANAGED_ARN.match(arn)
    if not m:
        return None
    partition, path, name = m.groups()
    policy = snapshot()["managedPolicies"].get(name)
    if policy is None or policy["path"] != path:
        return None
    # The commercial documents name arn:aws:; the same policy in another partition names its own.
    return json.loads(json.dumps(policy["document"]).replace('"arn:aws:', f'"arn:{partition}:'))


def requests_of(controller: str, values: Values) -> list[tuple[Request, str]]:
    """The controller's calls in this stack, each with why it is needed."""
    out = []
    for need in snapshot()["controllers"][controller]["requests"]:
        out.append((_request(need, values), need["why"]))
    return out


def _request(need: Mapping[str, Any], values: Values) -> Request:
    context: dict[str, Any] = {"aws:RequestedRegion": values.region}
    for key, vals in (need.get("context") or {}).items():
        context[values.fill(key)] = [values.fill(v) for v in vals]
    request_tags = {values.fill(k): values.fill(v) for k, v in (need.get("requestTags") or {}).items()}
    if request_tags:
        request_tags.update(values.extra_tags)
    for key, value in request_tags.items():
        context[f"aws:RequestTag/{key}"] = value
    keys = need.get("tagKeys") or list(request_tags)
    if keys:
        context["aws:TagKeys"] = [values.fill(k) for k in keys]
    service = need["action"].split(":", 1)[0]
    for key, value in (need.get("resourceTags") or {}).items():
        key, value = values.fill(key), values.fill(value)
        context[f"aws:ResourceTag/{key}"] = value
        context[f"{service}:ResourceTag/{key}"] = value  # EC2 and Auto Scaling answer both spellings
    for key, value in values.principal_tags.items():
        context[f"aws:PrincipalTag/{key}"] = value
    return request(need["action"], values.fill(need["resource"]), context)


def documents_of(role: Role) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The role's documents, and the attached managed policies the data does not hold."""
    docs = list(role.inline)
    unknown = []
    for arn in role.managed:
        doc = managed_document(arn)
        if doc is None:
            unknown.append(arn)
        else:
            docs.append(doc)
    return docs, unknown


def missing(controller: str, what: str, role: Role, values: Values) -> list[str]:
    """A problem per call of the controller the role does not allow: the role, the action, the resource, and the
    upstream source that needs it."""
    docs, unknown = documents_of(role)
    gaps = []
    for req, why in requests_of(controller, values):
        decision = evaluate(docs, req)
        if not decision.allowed:
            gaps.append((req, why, decision.outcome))
    if not gaps:
        return []
    moto = next((src["version"] for src in snapshot()["source"] if src.get("pypi") == "moto"), "?")
    out = [
        f"IAM: the {what} role {role.name} attaches {arn}, which is no AWS managed policy at that path in moto "
        f"{moto}'s copy of IAM's: its permissions are not counted"
        for arn in unknown
    ]
    for req, why, outcome in gaps:
        out.append(
            f"IAM: the {what} role {role.name} does not allow {req.action} on {req.resource} ({outcome}), which "
            f"{upstream_of(controller)} requires ({why})"
        )
    return out
