"""Who may use the cluster: the `access` setting (admin / edit / view IAM principals, optionally per namespace).

Principals are IAM role or user ARNs, checked against the rules of EKS access entries
(EKS user guide, grant-k8s-access.adoc and creating-access-entries, awsdocs/amazon-eks-user-guide
@ 4d52b4d0; CreateAccessEntry API `principalArn`): one existing IAM role or user per entry, role
paths allowed, no STS sessions (assumed-role), no IAM groups, no service-linked roles. AWS
publishes no pattern; the one below follows those rules and IAM's name characters.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator

from ..regions import partition_of
from ..scheduling import dns_label_error
from .base import SettingsModel
from .errors import Problem, key_path, show

LEVELS = ("admin", "edit", "view")
_PRINCIPAL = re.compile(
    r"^arn:(aws|aws-cn|aws-us-gov|aws-iso[a-z-]*):iam::(\d{12}):(role|user)/([A-Za-z0-9_+=,.@/-]{1,576})$"
)
_EXAMPLE = "arn:aws:iam::111122223333:role/platform-admins"


def principal_arn_error(arn: Any) -> str | None:
    """Why EKS would refuse `arn` as an access-entry principal, or None."""
    if not isinstance(arn, str):
        return f"{show(arn)} is not an IAM role or user ARN such as {_EXAMPLE}"
    if ":sts::" in arn or ":assumed-role/" in arn:
        return (
            f"{show(arn)} is an STS session (assumed-role), a new principal every session; name the role itself, "
            f"e.g. {_EXAMPLE} (SSO roles with their full path role/aws-reserved/sso.amazonaws.com/...)"
        )
    if ":group/" in arn:
        return f"{show(arn)} is an IAM group; EKS access entries take roles and users only, list those instead"
    found = _PRINCIPAL.match(arn)
    if found is None:
        return f"{show(arn)} is not an IAM role or user ARN such as {_EXAMPLE}"
    if found.group(3) == "role" and found.group(4).startswith("aws-service-role/"):
        return f"{show(arn)} is a service-linked role, which EKS refuses as an access-entry principal"
    if "//" in found.group(4) or found.group(4).endswith("/"):
        return f"{show(arn)} has an empty path segment; IAM paths are /segment/.../name"
    return None


class AccessGrantSettings(SettingsModel):
    """One principal at one level: cluster-wide, or limited to `namespaces`."""

    principal: str
    namespaces: list[str] | None = Field(default=None, min_length=1, max_length=50)

    @field_validator("principal")
    @classmethod
    def _principal(cls, v: str) -> str:
        if err := principal_arn_error(v):
            raise ValueError(err)
        return v

    @field_validator("namespaces", mode="before")
    @classmethod
    def _scoped(cls, v: Any) -> Any:
        # Written but empty: the entry meant to be scoped, so it never falls back to cluster-wide access.
        if v is None or (isinstance(v, list) and not v):
            raise ValueError(
                f"{'null' if v is None else 'an empty list'}: an entry with namespaces is scoped to them, and this "
                "names none, which would grant access to every namespace; list the namespaces, or drop the "
                "namespaces key (or write the bare ARN) for cluster-wide access"
            )
        return v

    @field_validator("namespaces")
    @classmethod
    def _namespaces(cls, v: list[str] | None) -> list[str] | None:
        for ns in v or []:
            if err := dns_label_error(ns):
                raise ValueError(f"namespace {show(ns)} {err}")
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"namespaces {show(v)} list a namespace twice")
        return v


def _from_arn(value: Any) -> Any:
    """A bare ARN is a cluster-wide grant; checked here so that the error names the list entry."""
    if isinstance(value, str):
        if err := principal_arn_error(value):
            raise ValueError(err)
        return {"principal": value}
    return value


AccessGrantEntry = Annotated[AccessGrantSettings, BeforeValidator(_from_arn)]


class AccessSettings(SettingsModel):
    """IAM principals with Kubernetes access: an ARN, or {principal, namespaces} to scope it to namespaces."""

    admin: list[AccessGrantEntry] = Field(default_factory=list, max_length=100)
    edit: list[AccessGrantEntry] = Field(default_factory=list, max_length=100)
    view: list[AccessGrantEntry] = Field(default_factory=list, max_length=100)

    def grants(self) -> list[tuple[str, int, AccessGrantSettings]]:
        """(level, index, grant) for every entry, in the order the stack lists them."""
        return [(level, i, g) for level in LEVELS for i, g in enumerate(getattr(self, level))]


def access_problems(access: AccessSettings, region: str) -> list[Problem]:
    """Checks that need more than one entry or the region: partition, and a principal listed twice at a level."""
    problems: list[Problem] = []
    partition = partition_of(region)
    seen: dict[tuple[str, str], int] = {}
    for level, i, grant in access.grants():
        path = key_path("access", level, i)
        arn_partition = grant.principal.split(":", 2)[1]
        if arn_partition != partition:
            problems.append(
                Problem(
                    path,
                    f"{show(grant.principal)} is in partition {arn_partition}, but region {region} is in "
                    f"{partition}; a cluster only accepts principals of its own partition",
                )
            )
        first = seen.setdefault((level, grant.principal), i)
        if first != i:
            problems.append(
                Problem(
                    path,
                    f"{show(grant.principal)} is already listed at access.{level}[{first}]; list each "
                    "principal once per level (give it namespaces there to scope it)",
                )
            )
    return problems
