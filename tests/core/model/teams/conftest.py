from __future__ import annotations

import copy

import pytest

from mlplatform_core.model.config import ConfigError
from mlplatform_core.model.validation import validate_stack
from tests.conftest import stack_config

NS = "ml-platform-eks:"
TEAMS = {
    "vision": {
        "namespaces": ["vision"],
        "quotas": {
            "gpu": {"gpu": {"nominal": 2, "borrowingLimit": 2}, "cpu": {"nominal": 6}, "memory": {"nominal": "24Gi"}},
            "jobs": {"cpu": {"nominal": 8}, "memory": {"nominal": "32Gi"}},
        },
    },
    "nlp": {
        "namespaces": ["nlp"],
        "fairShareWeight": 2,
        "priorityClasses": ["low", "medium"],
        "quotas": {
            "gpu": {"gpu": {"nominal": 2, "lendingLimit": 1}, "cpu": {"nominal": 6}, "memory": {"nominal": "24Gi"}}
        },
    },
}


def with_teams(stack: str = "dev", teams: dict | None = None, **settings) -> dict:
    raw = stack_config(stack)
    raw[NS + "workloads"] = {"namespaces": {"vision": {}, "nlp": {}, "speech": {}}}
    raw[NS + "teams"] = copy.deepcopy(TEAMS if teams is None else teams)
    for key, value in settings.items():
        raw[NS + key] = value
    return raw


def valid(raw: dict):
    return validate_stack(raw, "dev")


def problems(raw: dict) -> list[str]:
    with pytest.raises(ConfigError) as err:
        validate_stack(raw, "dev")
    return [str(p) for p in err.value.problems]
