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
