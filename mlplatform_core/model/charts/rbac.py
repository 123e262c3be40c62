"""RBAC as Kubernetes authorizes it: is every permission an image needs granted to its service account?

A permission is (API group, resource, verb, resource name or every name) in a scope: the whole cluster (a
ClusterRole through a ClusterRoleBinding) or one namespace (a Role through a RoleBinding). A rule grants it
when the group, resource and verb match (or are `*`) and the rule names no resources or names this one; a
cluster-wide grant covers every namespace (kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac
rbac.go RuleAllows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CLUSTER = "cluster"
ANY_NAME = ""


@dataclass(frozen=True, order=True)
class Permission:
    scope: str  # CLUSTER or "namespace"
    group: str
    resource: str
    verb: str
    name: str = ANY_NAME

    def __str__(self) -> str:
        what = f"{self.group}/{self.resource}" if self.group else self.resource
        named = f" named {self.name}" if self.name else ""
        where = "cluster-wide" if self.scope == CLUSTER else "in its namespace"
        return f"{self.verb} {what}{named} ({where})"


def permissions(rules: Iterable[Mapping[str, Any]], scope: str) -> set[Permission]:
    """Every permission a list of rules spells out (no wildcards expanded: a need is concrete)."""
    out = set()
    for rule in rules:
        names = rule.get("resourceNames") or [ANY_NAME]
        for group in rule.get("apiGroups") or [""]:
            for resource in rule.get("resources") or []:
                for verb in rule.get("verbs") or []:
                    for name in names:
                        out.add(Permission(scope, group, resource, verb, name))
    return out


def _allows(rule: Mapping[str, Any], need: Permission) -> bool:
    def matches(values: Sequence[str] | None, want: str) -> bool:
        return bool(values) and ("*" in values or want in values)

    names = rule.get("resourceNames") or []
    return (
        matches(rule.get("apiGroups"), need.group)
        and matches(rule.get("resources"), need.resource)
        and matches(rule.get("verbs"), need.verb)
        and (not names or (need.name != ANY_NAME and need.name in names))
    )


def missing(needs: Iterable[Permission], grants: Sequence[Mapping[str, Any]], namespace: str) -> list[Permission]:
    """The needs no grant covers. `grants`: the facts' RBAC entries bound to the service account, each with
    its role's kind, namespace and rules; a namespace-scoped need is checked in `namespace`."""
    cluster = [r for g in grants if g.get("namespace") is None for r in g["rules"]]
    local = [r for g in grants if g.get("namespace") == namespace for r in g["rules"]]
    out = []
    for need in needs:
        rules = cluster if need.scope == CLUSTER else cluster + local
        if not any(_allows(rule, need) for rule in rules):
            out.append(need)
    return sorted(out)
