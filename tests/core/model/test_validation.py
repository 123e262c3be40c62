"""One invalid stack reports everything it can: keys, settings, layout and workload layer, with lines.

Also: no boolean is taken for a number anywhere in the settings, keys in namespaces nobody reads are
refused with a did-you-mean, and the rules of a role hold for every group of that role.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from mlplatform_core.model.config import ConfigError, StackConfig, read_stack_document, to_pulumi_config
from mlplatform_core.model.validation import validate_stack
from tests.conftest import stack_config

P = "ml-platform-eks:"


def problems(raw: dict[str, Any], stack: str = "dev") -> dict[str, str]:
    with pytest.raises(ConfigError) as err:
        validate_stack(raw, stack)
    return {p.path: p.message for p in err.value.problems}


def base(env: str = "dev", **settings: Any) -> dict[str, Any]:
    # prod must choose its EKS upgrade policy (upgrade_policy.py)
    if env == "prod":
        settings = {"upgradePolicy": {"supportType": "STANDARD"}, **settings}
    return {"aws:region": "us-west-2", P + "environment": env, **{P + k: v for k, v in settings.items()}}


# --- everything at once ---------------------------------------------------------------------------


def test_settings_layout_and_workload_problems_come_together(tmp_path):
    text = (
        "config:\n"
        "  aws:region: us-west-2\n"
        "  ml-platform-eks:environment: dev\n"
        "  ml-platfrom-eks:tags: {team: a}\n"  # 4: a namespace typo
        "  ml-platform-eks:nodeGroups:\n"
        "    jobs: {maxSize: yes}\n"  # 6: a boolean for a number (the model)
        "    spot: {minSize: 5, maxSize: 3}\n"  # 7: min > max (the layout)
        "    spot: {minSize: 5, maxSize: 3}\n"  # 8: written twice (the file)
        "  ml-platform-eks:workloads:\n"
        "    namespaces:\n"
        "      team: {limits: {max: {cpu: 100m}}}\n"  # 11: max below the default (the workload layer)
    )
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text, encoding="utf-8")
    document = read_stack_document(path)
    with pytest.raises(ConfigError) as err:
        validate_stack(document.config, "dev", str(path), document)
    found = {p.path: p for p in err.value.problems}
    assert set(found) == {
        "ml-platform-eks:nodeGroups.spot",
        "ml-platfrom-eks:tags",
        "ml-platform-eks:nodeGroups.jobs.maxSize",
        "ml-platform-eks:nodeGroups.spot.minSize",
        "ml-platform-eks:workloads.namespaces.team.limits.max.cpu",
    }
    assert found["ml-platfrom-eks:tags"].line == 4
    assert found["ml-platform-eks:nodeGroups.jobs.maxSize"].line == 6
    assert found["ml-platform-eks:nodeGroups.spot.minSize"].line == 8  # the value that counts: the last one
    assert found["ml-platform-eks:workloads.namespaces.team.limits.max.cpu"].line == 11
    assert "(line 6)" in str(err.value) and "lines 7 and 8" in str(err.value)


def test_a_setting_set_aside_raises_no_problem_of_its_own():
    """minSize is invalid and set aside; the group's default minSize then meets desiredSize 5 > maxSize 1, a
    range problem the user may not have: only the invalid setting is reported for the group."""
    found = problems(base(nodeGroups={"jobs": {"minSize": "two", "maxSize": 1, "desiredSize": 5}}))
    assert list(found) == ["ml-platform-eks:nodeGroups.jobs.minSize"]


def test_other_groups_are_still_checked_when_one_is_set_aside():
    found = problems(base(nodeGroups={"jobs": {"minSize": "two"}, "spot": {"minSize": 5, "maxSize": 3}}))
    assert set(found) == {"ml-platform-eks:nodeGroups.jobs.minSize", "ml-platform-eks:nodeGroups.spot.minSize"}


def test_an_invalid_spot_taint_hides_only_what_it_could_cause():
    # The spot taint is on every spot group; with it set aside the layout cannot be judged, the workloads can.
    found = problems(
        base(spotTaint={"key": "bad key!"}, workloads={"namespaces": {"team": {"limits": {"max": {"cpu": "1m"}}}}})
    )
    assert set(found) == {"ml-platform-eks:spotTaint.key", "ml-platform-eks:workloads.namespaces.team.limits.max.cpu"}


def test_a_missing_environment_stops_at_the_model():
    found = problems({"aws:region": "us-west-2", P + "nodeGroups": {"jobs": {"maxSize": "x"}}})
    assert set(found) == {"ml-platform-eks:environment", "ml-platform-eks:nodeGroups.jobs.maxSize"}


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_shipped_stacks_validate(stack):
    valid = validate_stack(stack_config(stack), stack)
    assert valid.layout.groups and valid.workloads.namespaces


# --- no boolean for a number --------------------------------------------------------------------

SAMPLE_KEYS = {"nodeGroups": "jobs", "namespaces": "team", "quota": "pods", "tags": "t"}


def _numeric_paths(model: type[BaseModel], prefix: tuple = ()) -> typing.Iterator[tuple]:
    """Every setting whose type admits a number, as a key path through dicts (a sample key) and lists ([0])."""
    for name, field in model.model_fields.items():
        yield from _walk(field.annotation, (*prefix, field.alias or name))


def _walk(tp: Any, path: tuple) -> typing.Iterator[tuple]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        yield from _walk(args[0], path)
    elif origin in (typing.Union, types.UnionType):
        for a in args:
            yield from _walk(a, path)
    elif origin is dict:
        yield from _walk(args[1], (*path, SAMPLE_KEYS.get(path[-1], "x")))
    elif origin is list:
        yield from _walk(args[0], (*path, 0))
    elif tp in (int, float):
        yield path
    elif isinstance(tp, type) and issubclass(tp, BaseModel):
        yield from _numeric_paths(tp, path)


def _nested(path: tuple, value: Any) -> Any:
    for part in reversed(path):
        value = [value] if isinstance(part, int) else {part: value}
    return value


NUMERIC_PATHS = sorted(set(_numeric_paths(StackConfig)), key=str)


def test_the_walk_finds_the_numbers_of_every_section():
    tops = {p[0] for p in NUMERIC_PATHS}
    assert {"imdsHopLimit", "nodeGroups", "additionalNodeGroups", "network", "workloads"} <= tops
    assert ("workloads", "namespaces", "team", "quota", "pods") in NUMERIC_PATHS
    assert len(NUMERIC_PATHS) >= 15


@pytest.mark.parametrize("path", NUMERIC_PATHS, ids=lambda p: ".".join(map(str, p)))
@pytest.mark.parametrize("value", [True, False])
def test_no_setting_takes_a_boolean_for_a_number(path, value):
    raw = base()
    top, rest = path[0], path[1:]
    raw[P + top] = _nested(rest, value) if rest else value
    found = problems(raw)
    wanted = P + "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))
    assert wanted in found, found
    assert "is a boolean" in found[wanted]


def test_numbers_written_as_text_still_work_as_the_engine_hands_them_over():
    """The Pulumi engine hands top-level settings to the program as text: "2" stays a valid hop limit."""
    raw = base(imdsHopLimit=2, nodeGroups={"jobs": {"maxSize": 4}})
    valid = validate_stack(to_pulumi_config(raw), "dev")
    assert valid.layout.imds_hop_limit == 2 and valid.layout.group("jobs").max_size == 4
    found = problems(to_pulumi_config(base(imdsHopLimit=True)))
    assert "ml-platform-eks:imdsHopLimit" in found


# --- namespaces -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key,hint",
    [
        ("ml-platfrom-eks:nodeGroups", "did you mean ml-platform-eks:nodeGroups?"),
        ("ML-platform-eks:endpoint", "did you mean ml-platform-eks:endpoint?"),
        ("ml_platform_eks:tags", "did you mean ml-platform-eks:tags?"),
        ("kubernets:context", "did you mean kubernetes:context?"),
        ("AWS:profile", "did you mean aws:profile?"),
        ("datadog:apiKey", "nothing would read this setting"),
    ],
)
def test_a_namespace_nobody_reads_is_refused_with_a_hint(key, hint):
    raw = base()
    raw[key] = {"a": 1}
    assert hint in problems(raw)[key]


@pytest.mark.parametrize("key", ["aws:profile", "kubernetes:context", "eks:x", "pulumi:tags"])
def test_provider_namespaces_pass(key):
    raw = base()
    raw[key] = "value"
    validate_stack(raw, "dev")


def test_a_misspelt_region_key_is_named():
    raw = {"aws:regin": "us-west-2", P + "environment": "dev"}
    assert problems(raw)["aws:region"] == "missing; did you mean aws:region instead of 'aws:regin'?"


# --- a role's rules hold for every group of the role --------------------------------------------------


def group(**fields: Any) -> dict[str, Any]:
    return {"instanceTypes": ["m5.xlarge"], **fields}


@pytest.mark.parametrize(
    "extra,key,needle",
    [
        (group(name="core-b", role="initial", capacityType="SPOT", minSize=2, maxSize=2, desiredSize=2),
         "capacityType", "must be ON_DEMAND"),
        (group(name="core-b", role="initial", minSize=1, maxSize=3), "minSize", "must be static"),
        (group(name="core-b", role="initial", dedicated=True, minSize=2, maxSize=2, desiredSize=2),
         "dedicated", "already reserved"),
    ],
)  # fmt: skip
def test_a_group_with_role_initial_keeps_the_initial_rules(extra, key, needle):
    found = problems(base(additionalNodeGroups=[extra]))
    assert needle in found[f"{P}additionalNodeGroups[0].{key}"]


def test_a_prod_group_with_role_initial_needs_two_nodes():
    found = problems(base("prod", additionalNodeGroups=[group(name="core-b", role="initial", minSize=1, maxSize=1)]))
    assert "at least 2 nodes" in found[f"{P}additionalNodeGroups[0].maxSize"]


def test_a_valid_second_initial_group_is_tainted_for_core_services_only():
    extra = group(name="core-b", role="initial", minSize=2, maxSize=2, desiredSize=2)
    layout = validate_stack(base(additionalNodeGroups=[extra]), "dev").layout
    core_b = layout.group("core-b")
    assert core_b.is_initial
    assert "CriticalAddonsOnly" in {t.key for t in core_b.taints}


@pytest.mark.parametrize(
    "extra,key",
    [
        (group(name="notebooks-large", role="jupyter"), "role"),
        (group(name="jupyter"), "name"),
        (group(name="jobs"), "name"),
        (group(name="batch", role="jobs"), "role"),
        (group(name="team-notebooks"), "name"),
        (group(name="gpu-dev", role="dev-gpu", gpu=True, instanceTypes=["g5.xlarge"]), "role"),
    ],
)
def test_prod_refuses_every_development_group(extra, key):
    found = problems(base("prod", additionalNodeGroups=[extra]))
    assert "production cluster" in found[f"{P}additionalNodeGroups[0].{key}"]


@pytest.mark.parametrize("name", ["nightly-jobs", "devops", "batch"])
def test_prod_keeps_groups_that_only_sound_alike(name):
    validate_stack(base("prod", additionalNodeGroups=[group(name=name, role="workload")]), "prod")


def test_dev_may_add_development_groups():
    validate_stack(base(additionalNodeGroups=[group(name="notebooks-large", role="jupyter")]), "dev")


@pytest.mark.parametrize("field", ["defaultRequest", "default", "max", "min"])
def test_no_quantity_takes_a_boolean(field):
    raw = base(workloads={"namespaces": {"team": {"limits": {field: {"cpu": True}}}}})
    found = problems(raw)
    key = f"{P}workloads.namespaces.team.limits.{field}.cpu"
    assert key in found and "True is not a quantity" in found[key]


# --- nothing falsely flagged by a setting set aside -----------------------------------------------


def test_a_mistyped_endpoint_key_does_not_make_a_public_endpoint_private():
    raw = base(
        kubernetesLayer="inline",
        endpoint={"publicAccess": True, "publicAccessCidr": ["54.240.1.7/32"]},  # typo: ...Cidrs
    )
    assert list(problems(raw)) == ["ml-platform-eks:endpoint.publicAccessCidr"]


def test_a_mistyped_region_is_the_only_problem_reported_about_the_partition():
    raw = base(access={"admin": ["arn:aws-us-gov:iam::111122223333:role/platform"]})
    raw["aws:region"] = "us-gov-west1"
    assert list(problems(raw)) == ["aws:region"]
    del raw["aws:region"]  # missing altogether: no partition judged against a stand-in region either
    assert list(problems(raw)) == ["aws:region"]


def test_cross_setting_problems_still_come_with_other_problems():
    # The settings a check reads are valid: it runs, whatever else is wrong elsewhere.
    raw = base(
        kubernetesLayer="inline",
        endpoint={"privateAccess": True, "publicAccess": False},
        nodeGroups={"jobs": {"maxSize": "yes"}},
    )
    assert set(problems(raw)) == {"ml-platform-eks:kubernetesLayer", "ml-platform-eks:nodeGroups.jobs.maxSize"}


def test_settings_of_a_group_that_is_off_by_default_are_not_dropped():
    found = problems(base(nodeGroups={"gpu": {"instanceTypes": ["g5.2xlarge"], "maxSize": 4}}))
    assert found == {
        "ml-platform-eks:nodeGroups.gpu": "instanceTypes, maxSize given, but the gpu group is off by default in "
        "dev; add enabled: true to create it (or enabled: false to keep it off)"
    }
    for enabled in (True, False):  # said explicitly: either is what the user asked for
        raw = base(nodeGroups={"gpu": {"enabled": enabled, "instanceTypes": ["g5.2xlarge"], "maxSize": 4}})
        layout = validate_stack(raw, "dev").layout
        assert ("gpu" in {g.name for g in layout.groups}) is enabled
