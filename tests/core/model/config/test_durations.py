"""Durations are Go durations within Go's range and the setting's own maximum, refused naming the units."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.config.durations import GO_MAX_SECONDS, seconds, spoken

BASE = {
    "aws:region": "us-west-2",
    "ml-platform-eks:environment": "dev",
    "ml-platform-eks:provisioner": "karpenter",
}


def pool(**settings) -> dict:
    return {**BASE, "ml-platform-eks:karpenter": {"nodePools": {"jobs": settings}}}


@pytest.mark.parametrize("key", ["consolidateAfter", "expireAfter"])
@pytest.mark.parametrize(
    "value,words",
    [
        ("9999999999999h", "beyond Go's duration range"),
        (f"{GO_MAX_SECONDS + 1}s", "beyond Go's duration range"),
        ("10000h", "is more than the"),
        ("10d", "hours (h), minutes (m) and seconds (s)"),
        ("1.5h", "hours (h), minutes (m) and seconds (s)"),
    ],
)
def test_a_duration_out_of_bounds_is_refused_naming_units(key, value, words):
    with pytest.raises(ConfigError) as info:
        parse(pool(**{key: value}))
    line = next(x for x in str(info.value).splitlines() if f"nodePools.jobs.{key}:" in x)
    assert words in line and repr(value) in line


def test_durations_within_bounds_and_never_for_expiry():
    cfg = parse(pool(consolidateAfter="1h30m", expireAfter="Never"))
    assert cfg.karpenter.node_pools["jobs"].consolidate_after == "1h30m"
    parse(pool(consolidateAfter="168h", expireAfter="8760h"))
    with pytest.raises(ConfigError, match="is zero"):
        parse(pool(expireAfter="0s"))


def test_reading_and_writing_durations():
    assert seconds("1h30m5s") == 5405 and spoken(5405) == "1h30m5s" and spoken(0) == "0s"


def test_the_grammar_is_the_karpenter_crds_and_never_is_refused_with_a_reason():
    """The NodePool CRD of the pinned release (tests/data/karpenter/crd_schemas.json) takes `Never` for both
    durations; consolidateAfter refuses it on purpose (an empty node would stay billed) and says so, rather
    than calling Karpenter's own word "not a duration"."""
    import json
    import re

    from tests.conftest import ROOT

    schema = json.loads((ROOT / "tests/data/karpenter/crd_schemas.json").read_text())["schemas"]["NodePool"]
    spec = schema["openAPIV3Schema"]["properties"]["spec"]["properties"]
    crd = {
        "consolidateAfter": spec["disruption"]["properties"]["consolidateAfter"]["pattern"],
        "expireAfter": spec["template"]["properties"]["spec"]["properties"]["expireAfter"]["pattern"],
    }
    for key, pattern in crd.items():
        for text in ("30s", "10m", "1h30m", "168h", "Never"):
            assert re.fullmatch(pattern, text), (key, text)
        for text in ("1.5h", "10d", "-5m", "never", "5"):
            assert not re.fullmatch(pattern, text), (key, text)
            with pytest.raises(ConfigError, match="hours \\(h\\), minutes \\(m\\) and seconds \\(s\\)"):
                parse(pool(**{key: text}))
    with pytest.raises(ConfigError) as info:
        parse(pool(consolidateAfter="Never"))
    assert "'Never' is not taken here" in str(info.value) and "at most 168h" in str(info.value)
    assert "not a duration" not in str(info.value)
    assert parse(pool(expireAfter="Never")).karpenter.node_pools["jobs"].expire_after == "Never"
