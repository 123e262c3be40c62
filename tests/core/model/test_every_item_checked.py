"""One invalid item of a list never hides the others: every item is checked and every problem shown at once."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError
from mlplatform_core.model.validation import validate_stack

BASE = {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}
P = "ml-platform-eks:additionalNodeGroups"
ARN = "arn:aws:iam::111122223333:role/team"


def problems(**settings) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        validate_stack({**BASE, **settings}, "dev")
    return {p.path: p.message for p in info.value.problems}


def test_every_additional_group_is_checked_at_once():
    found = problems(
        **{
            P: [
                {"name": "BAD", "instanceTypes": ["m5.xlarge"]},  # refused by the settings model
                {"name": "no-types"},  # refused by the layout
                7,  # not a mapping
                {"name": "gpu-ish", "instanceTypes": ["m5.xlarge"], "role": "gpu"},
                {"name": "upside-down", "instanceTypes": ["m5.xlarge"], "minSize": 4, "maxSize": 2},
            ]
        }
    )
    assert set(found) >= {
        f"{P}[0].name",
        f"{P}[1].instanceTypes",
        f"{P}[2]",
        f"{P}[3].gpu",
        f"{P}[4].minSize",
    }, found


def test_an_invalid_group_takes_its_node_pool_settings_with_it():
    found = problems(
        **{
            "ml-platform-eks:provisioner": "karpenter",
            P: [{"name": "mem", "instanceTypes": ["r5.xlarge"], "maxSize": "3"}],
            "ml-platform-eks:karpenter": {"nodePools": {"mem": {"weight": 10}}},
        }
    )
    # only the real problem: not "nodePools.mem is not an enabled group" because mem was set aside
    assert list(found) == [f"{P}[0].maxSize"], found


def test_access_entries_are_each_checked_and_none_becomes_cluster_wide():
    found = problems(
        **{
            "ml-platform-eks:access": {
                "edit": [
                    {"principal": ARN, "namespaces": None},
                    {"principal": ARN + "2", "namespaces": []},
                    "not-an-arn",
                ]
            }
        }
    )
    assert "would grant access to every namespace" in found["ml-platform-eks:access.edit[0].namespaces"]
    assert "would grant access to every namespace" in found["ml-platform-eks:access.edit[1].namespaces"]
    assert "ml-platform-eks:access.edit[2]" in found
