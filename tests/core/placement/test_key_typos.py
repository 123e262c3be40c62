"""Typo'd taint and label keys in tolerations and selectors get a did-you-mean against the stack's own keys."""

from __future__ import annotations

from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.placement.key_typos import key_warnings, stack_keys
from mlplatform_core.placement.pods import Pod
from mlplatform_core.placement.templates import node_templates
from tests.conftest import stack_config

KEYS = stack_keys(node_templates(build_layout(parse(stack_config("dev")), "dev")))


def _warnings(**spec) -> list[str]:
    return key_warnings(Pod.from_spec({"containers": [{"name": "c"}], **spec}), KEYS)


def test_the_issues_misspelt_lifecycle_toleration_is_named_with_the_key_it_means():
    [warning] = _warnings(tolerations=[{"key": "app.iguazio.com/lifecyle", "operator": "Exists"}])
    assert warning == (
        "toleration key 'app.iguazio.com/lifecyle' is on no node of this stack; "
        "did you mean 'app.iguazio.com/lifecycle'?"
    )


def test_selector_and_affinity_keys_are_checked_too():
    term = {"matchExpressions": [{"key": "mlplatform.io/node-rol", "operator": "In", "values": ["jobs"]}]}
    found = _warnings(
        nodeSelector={"mlplatform.io/node-grup": "jobs"},
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}},
    )
    assert [w.split(";")[0] for w in found] == [
        "nodeSelector key 'mlplatform.io/node-grup' is on no node of this stack",
        "node affinity key 'mlplatform.io/node-rol' is on no node of this stack",
    ]


def test_the_stacks_own_keys_kubernetes_keys_and_unrelated_keys_of_the_users_are_left_alone():
    assert not _warnings(
        tolerations=[
            {"key": "app.iguazio.com/lifecycle", "operator": "Exists"},  # the stack's own
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists"},  # Kubernetes' own taint
            {"key": "example.com/dedicated", "operator": "Exists"},  # the user's own, close to nothing
            {"operator": "Exists"},  # tolerates everything
        ],
        nodeSelector={"kubernetes.io/arch": "amd64", "mlplatform.io/node-group": "jobs"},
    )
