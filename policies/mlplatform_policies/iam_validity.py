"""IAM as AWS accepts it: every AWS managed policy a program attaches exists in the stack's partition.

The same proof as the offline plan's (mlplatform_core/model/iam/managed_policies.py, on the data generated from
AWS's managed policies as moto takes them from IAM), on what the pack sees: a policy ARN at the wrong path, of
another partition or of no policy at all is NoSuchEntity at AttachRolePolicy, during `pulumi up`, after the
resources before it were created. ARNs not known yet during a preview are left for the update to check.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mlplatform_core.model.iam.managed_policies import ATTACHING, arn_problem, attached_arns, parse
from mlplatform_core.model.regions import partition_of

from .cost import region_of
from .props import plain


def managed_policies_exist(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    region = region_of(args.resources)
    for r in args.resources:
        if r.resource_type not in ATTACHING:
            continue
        props = plain(r.props)
        for prop, arn in attached_arns(r.resource_type, props if isinstance(props, Mapping) else {}):
            # The stack's partition is its region's; with no region in sight, the ARN's own (a wrong path is
            # still wrong there).
            partition = partition_of(region) if region else parse(arn).partition
            if problem := arn_problem(arn, partition):
                yield f"{r.name}: {prop}: {problem}", r.urn
