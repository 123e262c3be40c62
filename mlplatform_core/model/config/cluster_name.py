"""The EKS cluster's name: `clusterName`, or `mlp-<stack>`; never shortened, never shared by two stacks.

EKS CreateCluster `name` (EKS API reference): 1 to 100 characters, letters, digits, hyphens and
underscores, starting with a letter or a digit. A derived name EKS would refuse or that is too long
is refused (never truncated: two long stack names would silently share one cluster), and so are
two stacks of one project that would create the same cluster in the same account and region.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import REGION_KEY, Problem, key_path, show

MAX_LENGTH = 100
PATTERN = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]*$")
RULE = (
    f"1 to {MAX_LENGTH} characters, only letters, digits, '-' and '_', starting with a letter or a digit "
    "(EKS cluster names)"
)
PREFIX = "mlp-"


def _what_is_wrong(name: str) -> str | None:
    if not name:
        return "is empty"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "-_"))})
    if bad:
        return f"contains {', '.join(show(c) for c in bad)}"
    if not PATTERN.match(name):
        return "does not start with a letter or a digit"
    if len(name) > MAX_LENGTH:
        return f"has {len(name)} characters"
    return None


def name_error(name: str) -> str | None:
    """Why EKS would refuse `name` as a cluster name, in words, or None."""
    if what := _what_is_wrong(name):
        return f"{show(name)} {what}; a cluster name has {RULE}"
    return None


def derived_name(stack: str) -> str:
    return PREFIX + stack


def derived_name_error(stack: str) -> str | None:
    """Why `mlp-<stack>` cannot name the cluster (the stack name is fine for Pulumi), with how to set one."""
    derived = derived_name(stack)
    if what := _what_is_wrong(derived):
        why = (
            f"{what}, over EKS's {MAX_LENGTH} (it is never shortened: two stacks would share one cluster)"
            if PATTERN.match(derived)
            else what
        )
        return (
            f"unset, and the stack name gives the cluster name {show(derived)}, which {why}; set clusterName "
            f"(ml-platform-eks:clusterName in the stack file) to a name of {RULE}"
        )
    return None


@dataclass(frozen=True)
class StackCluster:
    """Where one stack's cluster would live: its name, region and (when the stack pins it) account."""

    stack: str
    source: str
    cluster_name: str
    region: str
    accounts: frozenset[str] | None  # aws:allowedAccountIds; None: any account the credentials reach


def accounts_of(raw: Mapping[str, Any]) -> frozenset[str] | None:
    """The accounts a stack may deploy to: pulumi-aws refuses any other when aws:allowedAccountIds is set."""
    value = raw.get("aws:allowedAccountIds")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = [value]
    if isinstance(value, list) and value:
        return frozenset(str(v) for v in value)
    return None


def _may_share_an_account(a: StackCluster, b: StackCluster) -> bool:
    return a.accounts is None or b.accounts is None or bool(a.accounts & b.accounts)


def colliding_pairs(stacks: Iterable[StackCluster]) -> list[tuple[StackCluster, StackCluster]]:
    """(earlier, later) for each stack whose cluster an earlier stack of the same run would also create: same
    name, same region, and accounts that may be the same (neither pins aws:allowedAccountIds to others')."""
    seen: list[StackCluster] = []
    pairs = []
    for stack in stacks:
        other = next(
            (
                o
                for o in seen
                if (o.cluster_name, o.region) == (stack.cluster_name, stack.region) and _may_share_an_account(stack, o)
            ),
            None,
        )
        if other is not None:
            pairs.append((other, stack))
        seen.append(stack)
    return pairs


def collision_message(first: StackCluster, second: StackCluster) -> str:
    return (
        f"stacks {first.stack} and {second.stack} would both create the EKS cluster {show(second.cluster_name)} in "
        f"{second.region} ({REGION_KEY}), in the same account unless aws:allowedAccountIds says otherwise (EKS names "
        "clusters once per account and region, so the second `pulumi up` would fail); give each its own "
        "clusterName, or pin each stack's aws:allowedAccountIds to its account"
    )


def collisions(stacks: Iterable[StackCluster]) -> list[Problem]:
    """A problem for the later stack of each colliding pair (colliding_pairs)."""
    return [
        Problem(f"{second.source}: {key_path('clusterName')}", collision_message(first, second))
        for first, second in colliding_pairs(stacks)
    ]
