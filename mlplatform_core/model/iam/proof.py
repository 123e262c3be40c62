"""The IAM a stack creates, proven against AWS's data: every managed policy it attaches exists in its partition,
every policy document it writes is valid and names only actions and condition keys that exist.

Pure Python, on plain data: the resources a program registers (type token and inputs), as the offline plan
records them and as the policy pack sees them. A problem refuses the plan (mlplatform/plan.py) before anything
is created; the pack has the managed-policy rule (mlplatform_policies/iam_validity.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...errors import InputError
from . import actions, managed_policies
from .documents import Kind, document_problems
from .managed_policies import arn_problem, attached_arns

# The policy documents a resource's inputs hold, per resource type (pulumi-aws 7 input names): property -> kind.
DOCUMENTS: dict[str, dict[str, Kind]] = {
    "aws:iam/role:Role": {"assumeRolePolicy": "trust"},
    "aws:iam/rolePolicy:RolePolicy": {"policy": "identity"},
    "aws:iam/policy:Policy": {"policy": "identity"},
    "aws:iam/userPolicy:UserPolicy": {"policy": "identity"},
    "aws:iam/groupPolicy:GroupPolicy": {"policy": "identity"},
    "aws:kms/key:Key": {"policy": "resource"},
    "aws:kms/keyPolicy:KeyPolicy": {"policy": "resource"},
    "aws:sqs/queue:Queue": {"policy": "resource"},
    "aws:sqs/queuePolicy:QueuePolicy": {"policy": "resource"},
    "aws:s3/bucketPolicy:BucketPolicy": {"policy": "resource"},
}


def documents_of(resource_type: str, props: Mapping[str, Any]) -> Iterator[tuple[str, Any, Kind]]:
    """(property, document, kind) for every policy document in a resource's inputs (unset or unknown: none)."""
    for prop, kind in DOCUMENTS.get(resource_type, {}).items():
        if isinstance(props.get(prop), (str, Mapping)):
            yield prop, props[prop], kind
    if resource_type == "aws:iam/role:Role":  # a role's inline policies: [{name, policy}]
        for i, inline in enumerate(props.get("inlinePolicies") or []):
            if isinstance(inline, Mapping) and isinstance(inline.get("policy"), (str, Mapping)):
                yield f"inlinePolicies[{i}].policy", inline["policy"], "identity"


def resource_problems(resource_type: str, props: Mapping[str, Any], partition: str) -> list[str]:
    """What AWS would refuse, or let grant nothing, in one resource's IAM: attached ARNs, then documents."""
    out = [f"{prop}: {p}" for prop, arn in attached_arns(resource_type, props) if (p := arn_problem(arn, partition))]
    for prop, doc, kind in documents_of(resource_type, props):
        out += [f"{prop}: {p}" for p in document_problems(doc, kind)]
    return out


def stack_problems(resources: Iterable[tuple[str, str, Mapping[str, Any]]], partition: str) -> list[tuple[str, str]]:
    """(resource, problem) for every resource (type, name, inputs) of a stack in `partition`."""
    return [
        (f"{name} ({rtype})", p) for rtype, name, props in resources for p in resource_problems(rtype, props, partition)
    ]


class IamError(InputError):
    """The stack's IAM as AWS would refuse it (or let it grant nothing it says): the command's exit code 2."""

    def __init__(self, problems: list[tuple[str, str]], source: str | None, partition: str):
        self.problems = problems
        where = f"{source}: " if source else ""
        shown = [f"  - {resource}: {problem}" for resource, problem in problems[:20]]
        more = [f"  ... and {len(problems) - 20} more"] if len(problems) > 20 else []
        super().__init__(
            "\n".join(
                [
                    f"{where}the stack's IAM would fail in partition {partition} (checked against "
                    f"{managed_policies.source()}, and {actions.source()}):",
                    *shown,
                    *more,
                ]
            )
        )
