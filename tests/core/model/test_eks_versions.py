"""The EKS version calendar: which minors EKS creates clusters on, on a given day, and what they cost to keep."""

from __future__ import annotations

import datetime

import pytest

from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import ConfigError, parse
from tests.conftest import stack_config

DAY = datetime.date(2026, 11, 22)


@pytest.fixture
def on_day(monkeypatch):
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)


def test_phases_follow_the_published_calendar():
    v = eks_versions.calendar()["1.33"]
    assert (v.eks_release, v.end_of_standard_support, v.end_of_extended_support) == (
        datetime.date(2025, 5, 29),
        datetime.date(2026, 7, 29),
        datetime.date(2027, 7, 29),
    )
    assert v.phase(datetime.date(2026, 7, 28)) == "standard"
    assert v.phase(datetime.date(2026, 7, 29)) == "extended"  # billing changes at the start of the day
    assert v.phase(datetime.date(2027, 7, 29)) == "ended"
    assert v.phase(datetime.date(2025, 5, 1)) == "unreleased"


def test_creatable_minors_on_a_day():
    assert eks_versions.creatable(DAY) == ["1.31", "1.32", "1.33", "1.34", "1.35", "1.36"]  # 1.31 until 2026-11-26


def version_error(version: str) -> str:
    raw = stack_config("dev")
    raw["ml-platform-eks:kubernetesVersion"] = version
    with pytest.raises(ConfigError) as exc:
        parse(raw)
    return str(exc.value)


def test_a_minor_past_extended_support_is_refused_with_the_date_and_the_choices(on_day):
    message = version_error("1.29")
    assert "ml-platform-eks:kubernetesVersion" in message and "ended on 2026-03-23" in message
    assert "1.31, 1.32, 1.33, 1.34, 1.35, 1.36" in message and "(1.34, 1.35, 1.36 in standard support)" in message


def test_an_unknown_minor_is_refused(on_day):
    assert "'1.99' is not an EKS Kubernetes version" in version_error("1.99")


def test_a_minor_in_extended_support_is_accepted(on_day):
    raw = stack_config("dev")
    raw["ml-platform-eks:kubernetesVersion"] = "1.33"
    assert parse(raw).kubernetes_version == "1.33"


def test_the_default_is_in_standard_support_on_the_calendars_date():
    default = eks_versions.calendar()[
        parse({"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}).kubernetes_version
    ]
    generated = datetime.date.fromisoformat(eks_versions.calendar_source()["generated"])
    assert default.phase(generated) == "standard"
