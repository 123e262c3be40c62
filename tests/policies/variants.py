"""Broken variants of the shipped stacks, as the policy pack sees them, for the rule tests.

A variant comes from a changed stack config (run through the real program, cached per config) or from
edited recorded resources where the config layer already refuses the mistake (the pack must still catch
it in hand-written code). Each rule module's tests (test_<module>_rules.py) list a CASES entry per rule:
the rule passes on the shipped stack and fails on the broken one.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
from collections.abc import Callable
from functools import cache
from typing import Any

from mlplatform.check import policy_resources
from mlplatform.engine import run_stack
from mlplatform_policies import offline
from tests.conftest import stack_config
from tests.runs import shipped_run

Resource = offline.Resource
NG = "aws:eks/nodeGroup:NodeGroup"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
TAG = "aws:autoscaling/tag:Tag"
EKS = "aws:eks/cluster:Cluster"  # the control plane pulumi_eks.Cluster creates; the component carries no settings
EKS_NAME = "cluster-eksCluster"
CM = "kubernetes:core/v1:ConfigMap"
LR = "kubernetes:core/v1:LimitRange"
NS = "kubernetes:core/v1:Namespace"
PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
SC = "kubernetes:storage.k8s.io/v1:StorageClass"
DEV_POLICY_CONFIG = {"eks-endpoint-private": "advisory"}  # policies/config/dev.json


@cache
def shipped(stack: str) -> tuple[Resource, ...]:
    return tuple(policy_resources(shipped_run(stack)))


@cache
def _configured(stack: str, edits: str) -> tuple[Resource, ...]:
    cfg = stack_config(stack)
    for key, value in json.loads(edits).items():
        cfg[f"ml-platform-eks:{key}"] = value
    return tuple(policy_resources(run_stack(stack, cfg)))


def configured(stack: str, **edits: Any) -> tuple[Resource, ...]:
    """The resources of a shipped stack with some top-level settings replaced."""
    return _configured(stack, json.dumps(edits, sort_keys=True))


def edit(
    resources, type_: str, name: str | None, change: Callable[[dict], Any] | None = None, **fields: Any
) -> list[Resource]:
    """Resources with the matching ones' props (and state) changed by `change`, or other fields replaced."""
    out, hit = [], False
    for r in resources:
        if r.type == type_ and (name is None or r.name == name):
            hit = True
            props = copy.deepcopy(dict(r.props))
            if change:
                change(props)
            r = dataclasses.replace(r, props=props, state={**(r.state or {}), **props}, **fields)
        out.append(r)
    assert hit, f"no {type_} {name}"
    return out


def drop(resources, type_: str, predicate: Callable[[Resource], bool] = lambda r: True) -> list[Resource]:
    kept = [r for r in resources if not (r.type == type_ and predicate(r))]
    assert len(kept) < len(resources)
    return kept


def add(resources, type_: str, name: str, props: dict, parent: str | None = None) -> list[Resource]:
    urn = f"urn:pulumi:test::ml-platform-eks::{type_}::{name}"
    return [*resources, Resource(type_, name, urn, props, parent=parent, state=props)]


def evaluate(resources, config=None) -> list[offline.Violation]:
    return offline.evaluate(resources, config)


def mandatory(violations) -> set[str]:
    return {v.policy for v in violations if v.mandatory}


def advisory(violations) -> set[str]:
    return {v.policy for v in violations if not v.mandatory}


def b64(value: Any) -> str:
    return base64.b64encode(json.dumps(value).encode()).decode()


DELETE = object()  # set_at(path, DELETE) removes the key


def set_at(path: list, value: Any) -> Callable[[dict], None]:
    def change(props: dict) -> None:
        cur = props
        for part in path[:-1]:
            cur = cur[part]
        if value is DELETE:
            del cur[path[-1]]
        else:
            cur[path[-1]] = value

    return change


def assert_rule_case(
    rule: str, stack: str, breaks: Callable[[list[Resource]], list[Resource]], level: str, config=None
):
    """`rule` passes on the shipped `stack` and fails, at `level`, on the variant `breaks` makes of it."""
    config = {**(DEV_POLICY_CONFIG if stack.startswith("dev") else {}), **(config or {})} or None
    assert rule not in {v.policy for v in evaluate(shipped(stack), config)}
    found = [v for v in evaluate(breaks(list(shipped(stack))), config) if v.policy == rule]
    assert found, f"{rule} did not fire"
    assert {v.level for v in found} == {level}
    assert all(v.message and v.remediation for v in found)


def messages(violations, rule: str) -> str:
    return "\n".join(v.message for v in violations if v.policy == rule)
