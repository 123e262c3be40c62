"""Polyaxon environments: each reaches exactly its group, and groups that share a role are told apart."""

from __future__ import annotations

import pytest

from mlplatform_core.model.ml_settings.polyaxon import polyaxon_environments
from mlplatform_core.model.scheduling import GROUP_LABEL, ROLE_LABEL, Toleration
from tests.core.model.conftest import admits, stack


@pytest.mark.parametrize("name", ["dev", "prod"])
def test_each_polyaxon_environment_reaches_exactly_its_group(name):
    layout, _ = stack(name)
    envs = polyaxon_environments(layout)
    assert set(envs) == {g.name for g in layout.groups if not g.is_initial}
    for group_name, env in envs.items():
        tolerations = [Toleration.from_dict(t) for t in env["tolerations"]]
        reached = [g.name for g in layout.groups if admits(g, env["nodeSelector"], tolerations)]
        assert reached == [group_name]


def test_polyaxon_tells_apart_groups_that_share_a_role():
    raw = {
        "ml-platform-eks:additionalNodeGroups": [
            {"name": "jobs-large", "role": "jobs", "instanceTypes": ["m5.4xlarge"], "labels": {"size": "large"}},
        ]
    }
    layout, _ = stack("dev", **raw)
    envs = polyaxon_environments(layout)
    assert envs["jobs-large"]["nodeSelector"] == {ROLE_LABEL: "jobs", GROUP_LABEL: "jobs-large"}
    assert envs["jobs"]["nodeSelector"] == {ROLE_LABEL: "jobs", GROUP_LABEL: "jobs"}
    for name in ("jobs", "jobs-large"):
        tolerations = [Toleration.from_dict(t) for t in envs[name]["tolerations"]]
        assert [g.name for g in layout.groups if admits(g, envs[name]["nodeSelector"], tolerations)] == [name]


def test_polyaxon_tells_apart_groups_that_differ_in_nothing_but_their_name():
    """Two groups of one role with the same types and labels: only the per-group label tells them apart."""
    same = {"role": "batch", "instanceTypes": ["m5.2xlarge"], "labels": {"team": "a"}}
    groups = [{"name": "batch-a", **same}, {"name": "batch-b", **same}]
    layout, _ = stack("dev", **{"ml-platform-eks:additionalNodeGroups": groups})
    envs = polyaxon_environments(layout)
    for name in ("batch-a", "batch-b"):
        tolerations = [Toleration.from_dict(t) for t in envs[name]["tolerations"]]
        assert [g.name for g in layout.groups if admits(g, envs[name]["nodeSelector"], tolerations)] == [name]


def test_a_group_alone_in_its_role_is_selected_by_its_role():
    layout, _ = stack("dev")
    assert polyaxon_environments(layout)["jupyter"]["nodeSelector"] == {ROLE_LABEL: "jupyter"}
