"""Policy configs (the --policy-pack-config JSON): levels, settings, and what `mlplatform check` refuses."""

from __future__ import annotations

import jsonschema
import pytest

from mlplatform_policies import BY_NAME, offline, policy_config
from tests.policies.test_layout_rules import PROD_SPOT_WORKLOAD
from tests.policies.variants import (
    DEV_POLICY_CONFIG,
    LT,
    advisory,
    configured,
    edit,
    evaluate,
    mandatory,
    set_at,
    shipped,
)


def test_shipped_stacks_have_no_mandatory_violation():
    assert mandatory(evaluate(shipped("dev"), DEV_POLICY_CONFIG)) == set()
    assert evaluate(shipped("prod")) == []


def _imds_broken():
    return edit(shipped("prod"), LT, "workload-lt", set_at(["metadataOptions", "httpTokens"], "optional"))


def test_policy_config_turns_a_mandatory_rule_advisory():
    broken = _imds_broken()
    assert "imdsv2-required" in mandatory(evaluate(broken))
    relaxed = evaluate(broken, {"imdsv2-required": "advisory"})
    assert mandatory(relaxed) == set() and "imdsv2-required" in advisory(relaxed)
    as_object = evaluate(broken, {"imdsv2-required": {"enforcementLevel": "advisory"}})
    assert mandatory(as_object) == set()


def test_policy_config_disables_a_rule_and_all_sets_every_level():
    broken = _imds_broken()
    assert evaluate(broken, {"imdsv2-required": "disabled"}) == []
    everything = evaluate(broken, {"all": "advisory"})
    assert mandatory(everything) == set() and advisory(everything) == {"imdsv2-required"}
    # A named policy wins over "all", as in the Pulumi CLI.
    assert mandatory(evaluate(broken, {"all": "advisory", "imdsv2-required": "mandatory"})) == {"imdsv2-required"}


def test_policy_config_can_make_an_advisory_rule_mandatory():
    spot_prod = configured("prod", **PROD_SPOT_WORKLOAD)
    assert mandatory(evaluate(spot_prod)) == set()
    assert mandatory(evaluate(spot_prod, {"prod-workload-on-demand": "mandatory"})) == {"prod-workload-on-demand"}


@pytest.mark.parametrize(
    "config,needle",
    [
        ({"no-such-rule": "advisory"}, "unknown policy name"),
        ({"imdsv2-required": "warn"}, "not an enforcement level"),
        ({"imdsv2-required": {"minNodes": 2}}, "not a setting of this policy"),
        ({"initial-node-group": {"minNodes": "two"}}, "not of type"),
        ({"initial-node-group": {"minNodes": 0}}, "below the minimum"),
        ({"no-dev-groups-in-prod": {"forbiddenRoles": "jupyter"}}, "not of type array"),
        ({"priority-classes": {"classNames": {"urgent": "x"}}}, "unknown key"),
        ({"imdsv2-required": 3}, "must be an enforcement level or an object"),
        ({"dev-gpu-scale-from-zero": {"environments": ["dve"]}}, 'not one of "dev", "prod"'),
        ({"dev-gpu-scale-from-zero": {"environments": ["dev", "dev"]}}, "given more than once"),
        ({"idle-cost-ceiling": {"maxIdleMonthlyUsd": {"prd": 5}}}, "unknown key 'prd'; valid keys: dev, prod"),
    ],
)
def test_invalid_policy_config_is_refused(config, needle):
    with pytest.raises(offline.PolicyConfigError, match=needle):
        evaluate(shipped("prod"), config)


SETTINGS_SAMPLES = [
    ["dev"],
    ["dve"],
    ["dev", "dev"],
    "dev",
    {"dev": 100, "prod": None},
    {"prd": 5},
    {"dev": -1},
    {"low": "a", "medium": "b", "high": "c"},
    {"urgent": "x"},
    None,
    3,
    2.0,
    True,
]


@pytest.mark.parametrize("policy", sorted(BY_NAME), ids=str)
def test_the_offline_config_check_agrees_with_a_json_schema_validator(policy):
    # The CLI validates a pack's config against each policy's JSON schema; `mlplatform check` reads the same
    # schemas with its own small validator. They must accept and refuse the same values.
    schema = BY_NAME[policy].config_schema
    for key, prop in ((schema.properties or {}) if schema else {}).items():
        for value in SETTINGS_SAMPLES:
            theirs = jsonschema.Draft7Validator(prop).is_valid(value)
            ours = not policy_config._schema_errors(value, prop, f"{policy}.{key}")
            assert ours == theirs, (policy, key, value)


def test_shipped_dev_policy_config_is_valid_and_only_relaxes():
    from mlplatform.check import default_policy_config

    path = default_policy_config("dev")
    assert path is not None and path.name == "dev.json"
    doc = offline.load_policy_config(path)
    settings = offline.resolve_config(doc)
    assert all(settings[name].level.value in ("advisory", "disabled") for name in doc)
    assert default_policy_config("prod") is None  # prod runs every rule at its own level


def test_an_unknown_rule_name_or_setting_gets_a_did_you_mean():
    with pytest.raises(offline.PolicyConfigError) as info:
        offline.resolve_config({"eks-endpoint-privat": "advisory", "no-dev-groups-in-prod": {"forbiddenRole": []}})
    message = str(info.value)
    assert "unknown policy name 'eks-endpoint-privat'; did you mean eks-endpoint-private?" in message
    assert "no-dev-groups-in-prod.forbiddenRole: not a setting of this policy; did you mean forbiddenRoles?" in message


def test_a_look_alike_character_in_a_name_is_shown_escaped():
    """A Cyrillic `а` in a policy name or a policy's setting reads as `\\u0430`, with the name it resembles:
    the user sees why `eks-endpoint-privаte` is unknown."""
    with pytest.raises(policy_config.PolicyConfigError) as info:
        policy_config.resolve_config(
            {"eks-endpoint-priv\u0430te": "advisory", "idle-cost-ceiling": {"m\u0430xIdleMonthlyUsd": 5}}
        )
    text = str(info.value)
    assert "unknown policy name 'eks-endpoint-priv\\u0430te' (it contains the non-ASCII character(s) \\u0430)" in text
    assert "did you mean eks-endpoint-private?" in text
    assert "idle-cost-ceiling.m\\u0430xIdleMonthlyUsd: not a setting of this policy (it contains" in text
    assert "did you mean maxIdleMonthlyUsd?" in text and "\u0430" not in text
