"""The cluster's name is never shortened, is refused in words, and no two stacks of a run create the same cluster."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, parse, read_stack_file
from mlplatform_core.model.config.cluster_name import StackCluster, accounts_of, collisions
from mlplatform_core.model.layout import build_layout
from tests.conftest import ROOT

BASE = {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}


def layout_error(stack: str, **settings) -> str:
    with pytest.raises(ConfigError) as info:
        build_layout(parse({**BASE, **settings}), stack)
    return str(info.value)


def test_a_derived_name_of_100_characters_is_the_stack_name_unchanged():
    assert build_layout(parse(BASE), "s" * 96).cluster_name == "mlp-" + "s" * 96


@pytest.mark.parametrize("length", [97, 98, 100])
def test_a_derived_name_over_100_characters_is_refused_never_truncated(length):
    # Truncated, stacks "s"*96+"a" and "s"*96+"b" would both have been mlp-sss...s: one cluster for two stacks.
    message = layout_error("s" * length)
    assert "ml-platform-eks:clusterName: unset" in message and f"{length + 4} characters" in message
    assert "set clusterName" in message


def test_a_name_set_for_a_long_stack_is_used():
    assert (
        build_layout(parse({**BASE, "ml-platform-eks:clusterName": "research"}), "s" * 100).cluster_name == "research"
    )


@pytest.mark.parametrize(
    "name,words",
    [
        ("c" * 101, "has 101 characters"),
        ("team.a", "contains '.'"),
        ("-team", "does not start with a letter or a digit"),
        ("", "is empty"),
        ("tеam", "contains '\\u0435'"),  # a Cyrillic e
    ],
)
def test_a_cluster_name_eks_refuses_is_explained_in_words(name, words):
    with pytest.raises(ConfigError) as info:
        parse({**BASE, "ml-platform-eks:clusterName": name})
    message = str(info.value)
    assert words in message and "only letters, digits, '-' and '_'" in message
    assert "^" not in message and "pattern" not in message  # no regular expression


def cluster(stack, name, region="us-east-1", accounts=None):
    return StackCluster(stack, f"stacks/Pulumi.{stack}.yaml", name, region, accounts)


def test_two_stacks_creating_one_cluster_in_one_region_are_refused():
    found = collisions([cluster("a", "shared"), cluster("b", "shared"), cluster("c", "other")])
    assert [p.path for p in found] == ["stacks/Pulumi.b.yaml: ml-platform-eks:clusterName"]
    assert "stacks a and b would both create the EKS cluster 'shared' in us-east-1" in found[0].message


def test_other_regions_or_pinned_other_accounts_do_not_collide():
    assert collisions([cluster("a", "x"), cluster("b", "x", region="eu-west-1")]) == []
    one, two = frozenset({"111111111111"}), frozenset({"222222222222"})
    assert collisions([cluster("a", "x", accounts=one), cluster("b", "x", accounts=two)]) == []
    assert collisions([cluster("a", "x", accounts=one), cluster("b", "x", accounts=one | two)]) != []
    assert collisions([cluster("a", "x", accounts=one), cluster("b", "x")]) != []  # b may run in a's account


def test_allowed_account_ids_as_a_list_or_as_the_engine_hands_it():
    assert accounts_of({"aws:allowedAccountIds": ["111111111111"]}) == {"111111111111"}
    assert accounts_of({"aws:allowedAccountIds": '["111111111111"]'}) == {"111111111111"}
    assert accounts_of({}) is None


def test_the_shipped_stacks_create_distinct_clusters():
    shipped = []
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        raw = read_stack_file(path)
        stack = path.name[len("Pulumi.") : -len(".yaml")]
        cfg = parse(raw)
        shipped.append(StackCluster(stack, path.name, cfg.cluster_name_for(stack), cfg.region, accounts_of(raw)))
    assert len(shipped) >= 3 and collisions(shipped) == []
